"""Read side of the infogather suite (Ke et al. §4, App. A): its leaderboard, the
steps-to-sufficient-information chart (Figs. 3–4) and the exploitation curve (Fig. 6).

Everything is read from the per-run metric sums folded when episodes finish.
"""

from __future__ import annotations

import dataclasses

import plotly.graph_objects as go

from arena.metrics import summary
from arena.models import Run
from envs.registry import suite_of
from arena.protocol import is_comparable
from leaderboard.selectors.runs import scored_runs_of_task
from leaderboard.selectors.ranking import rank_key
from leaderboard.boards.charts import BASELINE_STYLE, figure_json, plain_text

STEPS = "steps_to_sufficient_information"
BASELINE_COLOURS = {
    "optimal": "#2a9d8f",
    "random-without-replacement": "#e9c46a",
    "random-with-replacement": "#e76f51",
}


@dataclasses.dataclass
class Row:
    rank: int | None
    run: Run
    identified: dict
    steps: dict

    @property
    def submission(self):
        return self.run.submission

    @property
    def num_colours(self):
        return self.run.options.get("num_colours")


def _runs(task_id: str, filters=None):
    return [r for r in scored_runs_of_task(task_id, filters) if not r.settings.replay_control]


def leaderboard(task_id: str, filters=None) -> list[Row]:
    """Grouped by number of colours; within a group ranked as on the task page, by the
    suite's primary metric (fewer steps to sufficient information, runs with episodes
    that never got there after the others; leaderboard.selectors.ranking.rank_key)."""
    primary = suite_of(task_id).primary_metric
    rows = [
        Row(None, run, summary(run.metric_sums.get("identified", {})), summary(run.metric_sums.get(STEPS, {})))
        for run in _runs(task_id, filters)
    ]
    # Within a group, runs with custom settings (arena.protocol) after the others, unranked.
    rows.sort(key=lambda r: (r.num_colours or 0, not is_comparable(r.run), rank_key(r.run, primary)))
    rank, group = 0, None
    for row in rows:
        if row.num_colours != group:
            rank, group = 0, row.num_colours
        if not row.submission.is_baseline and is_comparable(row.run):
            rank += 1
            row.rank = rank
    return rows


def _label(run: Run) -> str:
    """One line per submission (and per prompt variant): names are the submitters', so
    they are plain text in the chart."""
    label = run.submission.name
    if run.options.get("guided_reasoning"):
        label += " (guided reasoning)"
    return plain_text(label)


def steps_chart(task_id: str, title: str) -> dict:
    """Figs. 3–4: mean steps to sufficient information against the number of colours,
    one line per submission (baselines dashed). Episodes that never got there are not
    averaged in; their share is in the hover text."""
    lines: dict[str, list[tuple[int, dict, Run]]] = {}
    for run in _runs(task_id):
        colours = run.options.get("num_colours")
        if colours is None:
            continue
        lines.setdefault(_label(run), []).append((colours, summary(run.metric_sums.get(STEPS, {})), run))
    figure = go.Figure()
    for label, points in sorted(lines.items()):
        points.sort(key=lambda p: p[0])
        run = points[0][2]
        style = {"dash": "dash", "color": BASELINE_COLOURS.get(run.submission.policy)} if run.submission.is_baseline else {}
        figure.add_trace(
            go.Scatter(
                x=[p[0] for p in points],
                y=[p[1]["mean"] for p in points],
                error_y={"type": "data", "array": [p[1]["stderr"] or 0 for p in points]},
                customdata=[f"{p[1]['n']} reached, {p[1]['missing']} never" for p in points],
                hovertemplate="%{y:.2f} steps (%{customdata})<extra>" + label + "</extra>",
                mode="lines+markers",
                name=label,
                line=style,
            )
        )
    figure.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "number of colours"}, "dtick": 1},
        yaxis={"title": {"text": "steps to sufficient information"}},
        legend={"orientation": "h", "y": -0.3},
        height=420,
        margin={"t": 50, "l": 60, "r": 20, "b": 90},
    )
    return figure_json(figure)


def exploitation_chart(task_id: str, colours: int, title: str) -> dict:
    """Fig. 6: after each step, the mean 0/1 score of the rule the agent states."""
    figure = go.Figure()
    for run in _runs(task_id):
        if run.options.get("num_colours") != colours:
            continue
        curve = summary(run.metric_sums.get("exploitation_curve", {})).get("curve")
        if not curve:
            continue
        label = _label(run)
        style = {"dash": "dash", "color": BASELINE_COLOURS.get(run.submission.policy)} if run.submission.is_baseline else {}
        figure.add_trace(
            go.Scatter(x=list(range(1, len(curve) + 1)), y=curve, mode="lines", name=label, line=style)
        )
    figure.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "step"}},
        yaxis={"title": {"text": "score of the stated rule"}, "range": [0, 1.05]},
        legend={"orientation": "h", "y": -0.3},
        height=400,
        margin={"t": 50, "l": 60, "r": 20, "b": 90},
    )
    return figure_json(figure)


__all__ = ["BASELINE_STYLE", "leaderboard", "steps_chart", "exploitation_chart"]
