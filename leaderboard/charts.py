"""Plotly figures (built server-side, drawn by static/js/charts.js)."""

from __future__ import annotations

import json

import plotly.graph_objects as go

from leaderboard.selectors import scaling_points

BASELINE_STYLE = {"expert": ("Expert", "#2a9d8f"), "random": ("Random legal actions", "#e76f51")}


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


def scaling_figures(task_id: str, fmt: str) -> dict[str, str]:
    """Score vs demonstrations and illegal-action % vs demonstrations, as JSON strings."""
    curves, baselines = scaling_points(task_id, fmt)
    score, illegal = go.Figure(), go.Figure()
    xs: list[float] = []
    for label, points in curves.items():
        x = [_x_value(p.num_demonstrations) for p in points]
        xs.extend(x)
        score.add_trace(
            go.Scatter(
                x=x,
                y=[p.score_mean for p in points],
                error_y={"type": "data", "array": [p.score_stderr or 0 for p in points]},
                mode="lines+markers",
                name=label,
                customdata=[p.episodes for p in points],
                hovertemplate="%{y:.3f} over %{customdata} episodes<extra>" + label + "</extra>",
            )
        )
        illegal.add_trace(
            go.Scatter(
                x=x,
                y=[100 * (p.illegal_rate or 0) for p in points],
                mode="lines+markers",
                name=label,
            )
        )
    span = xs or [0.5, 1]
    for policy, run in baselines.items():
        name, colour = BASELINE_STYLE.get(policy, (policy, "#888"))
        score.add_trace(
            go.Scatter(
                x=[min(span), max(span)],
                y=[run.score_mean, run.score_mean],
                mode="lines",
                line={"dash": "dash", "color": colour},
                name=f"{name} ({run.score_mean:.2f})",
            )
        )
    score.update_layout(**_layout(f"Score vs demonstrations · {fmt}", "mean score per episode", span))
    illegal.update_layout(**_layout(f"Illegal actions vs demonstrations · {fmt}", "illegal actions (% of steps)", span))
    return {
        "score": json.loads(score.to_json()),
        "illegal": json.loads(illegal.to_json()),
        "has_model_points": bool(curves),
    }
