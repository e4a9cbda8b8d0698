"""LMAct's best-score bars (Fig. 2) written as plain figures draw what Plotly's own
figure objects drew."""

import json
import types

import plotly.graph_objects as go

from leaderboard.boards.charts import BASELINE_STYLE, best_score_bars, plain_text


def _plotly_bars(cls, best, baselines) -> dict:
    """The figure as the suite page built it with Plotly's objects and add_hline."""
    figure = go.Figure()
    figure.add_trace(go.Bar(
        x=[plain_text(label) for label, _ in best], y=[run.score_mean for _, run in best],
        error_y={"type": "data", "array": [run.score_stderr or 0 for _, run in best]},
        customdata=[f"{run.format}, {run.num_demonstrations} demos" for _, run in best],
        hovertemplate="%{y:.3f} (%{customdata})<extra></extra>", name="best run",
    ))
    for policy, run in baselines.items():
        name, colour = BASELINE_STYLE.get(policy, (policy, "#888"))
        figure.add_hline(y=run.score_mean, line_dash="dash", line_color=colour, annotation_text=name)
    figure.update_layout(title={"text": cls.title}, yaxis={"title": {"text": "best mean score"}}, height=320,
                         margin={"t": 50, "l": 60, "r": 20, "b": 80}, showlegend=False)
    return json.loads(figure.to_json())


def _run(mean, stderr, fmt="ascii", demos=2):
    return types.SimpleNamespace(score_mean=mean, score_stderr=stderr, format=fmt, num_demonstrations=demos)


def test_the_best_score_bars_are_plotlys_figure_with_its_baseline_lines():
    cls = types.SimpleNamespace(title="Tic-tac-toe", id="lmact/tictactoe")
    best = [("<b>m-1</b>", _run(0.75, 0.1)), ("m-2 %{y}", _run(-0.25, None, "png", 0))]
    baselines = {"expert": _run(1.0, 0.0), "random": _run(-0.5, 0.2), "stockfish": _run(0.1, 0.0)}
    for case in ((best, baselines), (best, {}), ([], {"random": _run(-0.5, 0.2)})):
        [chart] = best_score_bars([(cls, *case)])
        assert chart["id"] == "fig-best-lmact-tictactoe" and chart["empty"] is (not case[0])
        assert json.loads(json.dumps(chart["figure"])) == _plotly_bars(cls, *case)
