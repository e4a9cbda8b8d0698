"""Plotly figures (built server-side, drawn by static/js/charts.js).

Every string a user chose (submission and model names) goes into a figure through
plain_text: Plotly reads a subset of HTML in labels, legends and hover text (a link
among them) and fills %{…} placeholders in hover templates."""

from __future__ import annotations

import functools
import json

import plotly.graph_objects as go

from leaderboard.selectors.experiment_figures import scaling_points
from leaderboard.selectors.submissions import experiment_runs

BASELINE_STYLE = {"expert": ("Expert", "#2a9d8f"), "random": ("Random legal actions", "#e76f51")}


def plain_text(text: str) -> str:
    """`text` for a Plotly label, shown exactly as written: its markup characters as
    entities (which Plotly draws as the characters) and no %{ left to open a
    placeholder."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("%{", "%&#123;")


def _x_value(n: int) -> float:
    # A log2 axis cannot show 0 demonstrations; 0 is drawn at 0.5 and labelled "0".
    return n if n > 0 else 0.5


def _layout(title: str, y_title: str, xs: list[float]) -> dict:
    ticks = sorted(set(xs)) or [0.5, 1]
    return {
        "title": {"text": title},
        "xaxis": {
            "title": {"text": "demonstration episodes in the prompt"},
            "type": "log",
            "tickvals": ticks,
            "ticktext": ["0" if t == 0.5 else str(int(t)) for t in ticks],
        },
        "yaxis": {"title": {"text": y_title}},
        "legend": {"orientation": "h", "y": -0.3},
        "margin": {"t": 50, "l": 60, "r": 20, "b": 90},
        "height": 400,
    }


@functools.cache
def _default_template() -> dict:
    # What Plotly puts in every figure's layout; the same for all, so built once.
    return json.loads(go.Figure().to_json())["layout"]["template"]


def _figure(traces: list[dict], layout: dict) -> dict:
    """A figure as Plotly's to_json would give it, from plain traces and layout: a task
    page draws six of these, and Plotly's objects validate every property on the way
    (about 30 ms a figure on a 2-core machine, most of the page)."""
    return {"data": traces, "layout": {"template": _default_template(), **layout}}


def _scatter(**properties) -> dict:
    # In Plotly's own order (properties by name, the type last), so the page is the same.
    return {**_by_name(properties), "type": "scatter"}


def _by_name(properties: dict) -> dict:
    return {key: _by_name(value) if isinstance(value, dict) else value for key, value in sorted(properties.items())}


def scaling_figures(task_id: str, fmt: str, reported=(), points=None) -> dict[str, str]:
    """Score vs demonstrations and illegal-action % vs demonstrations, as Plotly
    figures. `reported`: traces of paper figures (leaderboard.reported.display) drawn on
    the score chart, apart from the measured curves. `points`: the format's
    `scaling_points`, when the caller has read them already."""
    curves, baselines = scaling_points(task_id, fmt) if points is None else points
    score: list[dict] = []
    illegal: list[dict] = []
    xs: list[float] = []
    for trace in reported:
        score.append(json.loads(trace.to_json()))
        xs.extend(trace.x)
    for curve_label, points in curves.items():
        label = plain_text(curve_label)
        x = [_x_value(p.num_demonstrations) for p in points]
        xs.extend(x)
        score.append(
            _scatter(
                x=x,
                y=[p.score_mean for p in points],
                error_y={"type": "data", "array": [p.score_stderr or 0 for p in points]},
                mode="lines+markers",
                name=label,
                customdata=[p.episodes for p in points],
                hovertemplate="%{y:.3f} over %{customdata} episodes<extra>" + label + "</extra>",
            )
        )
        illegal.append(
            _scatter(
                x=x,
                y=[100 * (p.illegal_rate or 0) for p in points],
                mode="lines+markers",
                name=label,
            )
        )
    span = xs or [0.5, 1]
    for policy, run in baselines.items():
        name, colour = BASELINE_STYLE.get(policy, (policy, "#888"))
        score.append(
            _scatter(
                x=[min(span), max(span)],
                y=[run.score_mean, run.score_mean],
                mode="lines",
                line={"dash": "dash", "color": colour},
                name=f"{name} ({run.score_mean:.2f})",
            )
        )
    return {
        "score": _figure(score, _layout(f"Score vs demonstrations · {fmt}", "mean score per episode", span)),
        "illegal": _figure(
            illegal, _layout(f"Illegal actions vs demonstrations · {fmt}", "illegal actions (% of steps)", span)
        ),
        "has_model_points": bool(curves),
    }


def figure_json(figure) -> dict:
    return json.loads(figure.to_json())


def experiment_scaling_figures(experiment, baselines: dict, viewer) -> dict:
    """Score and illegal-action % vs demonstrations for the runs of one sweep `viewer` may read."""
    runs = sorted(experiment_runs(experiment, viewer), key=lambda r: r.num_demonstrations)
    runs = [r for r in runs if r.episodes_done]
    xs = [_x_value(r.num_demonstrations) for r in runs] or [0.5, 1]
    score, illegal = go.Figure(), go.Figure()
    label = plain_text(experiment.submission.model or experiment.submission.name)
    score.add_trace(
        go.Scatter(
            x=xs[: len(runs)], y=[r.score_mean for r in runs], mode="lines+markers", name=label,
            error_y={"type": "data", "array": [r.score_stderr or 0 for r in runs]},
        )
    )
    illegal.add_trace(go.Scatter(x=xs[: len(runs)], y=[100 * (r.illegal_rate or 0) for r in runs], mode="lines+markers", name=label))
    for policy, run in baselines.items():
        name, colour = BASELINE_STYLE.get(policy, (policy, "#888"))
        score.add_trace(
            go.Scatter(
                x=[min(xs), max(xs)], y=[run.score_mean] * 2, mode="lines",
                line={"dash": "dash", "color": colour}, name=f"{name} ({run.score_mean:.2f})",
            )
        )
    score.update_layout(**_layout("Score vs demonstrations", "mean score per episode", xs))
    illegal.update_layout(**_layout("Illegal actions vs demonstrations", "illegal actions (% of steps)", xs))
    return {"score": figure_json(score), "illegal": figure_json(illegal)}


def replay_heatmap(rows: list[tuple[str, list[float], list[int]]], title: str) -> dict:
    """LMAct Figs. A8–A13: accuracy of replaying the demonstration, per step."""
    width = max((len(curve) for _, curve, _ in rows), default=0)
    z = [curve + [None] * (width - len(curve)) for _, curve, _ in rows]
    counts = [n + [0] * (width - len(n)) for _, _, n in rows]
    figure = go.Figure(
        go.Heatmap(
            z=z, x=list(range(width)), y=[plain_text(label) for label, _, _ in rows], zmin=0, zmax=1,
            colorscale="Viridis", colorbar={"title": {"text": "accuracy"}}, customdata=counts,
            hovertemplate="step %{x}: %{z:.2f} over %{customdata} episodes<extra>%{y}</extra>",
        )
    )
    figure.update_layout(
        title={"text": title}, xaxis={"title": {"text": "evaluation step"}},
        height=160 + 40 * max(1, len(rows)), margin={"t": 50, "l": 160, "r": 20, "b": 50},
    )
    return figure_json(figure)


def best_score_bars(sections) -> list[dict]:
    """LMAct Fig. 2: one bar chart per task, best score per model, with expert and
    random baselines as horizontal lines. Written as plain figures (`_figure`): Plotly's
    add_hline took half of LMAct's suite page (twelve tasks) at 10^5 episodes."""
    charts = []
    for cls, best, baselines in sections:
        bars = {
            "customdata": [f"{run.format}, {run.num_demonstrations} demos" for _, run in best],
            "error_y": {"array": [run.score_stderr or 0 for _, run in best], "type": "data"},
            "hovertemplate": "%{y:.3f} (%{customdata})<extra></extra>", "name": "best run",
            "x": [plain_text(label) for label, _ in best], "y": [run.score_mean for _, run in best], "type": "bar",
        }
        shapes, annotations = [], []
        for policy, run in baselines.items():
            name, colour = BASELINE_STYLE.get(policy, (policy, "#888"))
            # What Plotly's add_hline writes: a dashed line across the plot, its name at the right end.
            shapes.append({"line": {"color": colour, "dash": "dash"}, "type": "line", "x0": 0, "x1": 1,
                           "xref": "x domain", "y0": run.score_mean, "y1": run.score_mean, "yref": "y"})
            annotations.append({"showarrow": False, "text": name, "x": 1, "xanchor": "right", "xref": "x domain",
                                "y": run.score_mean, "yanchor": "bottom", "yref": "y"})
        layout = {
            **({"shapes": shapes, "annotations": annotations} if shapes else {}),
            "title": {"text": cls.title}, "yaxis": {"title": {"text": "best mean score"}},
            "margin": {"t": 50, "l": 60, "r": 20, "b": 80}, "height": 320, "showlegend": False,
        }
        charts.append({"task": cls, "id": f"fig-best-{cls.id.replace('/', '-')}", "figure": _figure([bars], layout), "empty": not best})
    return charts
