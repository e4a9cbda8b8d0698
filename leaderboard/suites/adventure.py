"""Read side of the AdventureGame suite (AdventureGame §3.2, §4.2): the clemscore
table (Table 1), quality / played per experiment (Table 2) and turns against the
optimal number (Fig. 3).

The suite's own aggregation (envs.adventure.metrics.aggregate_totals) is applied to the
sums of the per-episode metrics each run folded as its episodes finished (Run.metric_sums):
episodes and steps are never read (reading every episode's metrics took 0.6 s at 10^5
episodes, bench/read_pages.py).
"""

from __future__ import annotations

import dataclasses

import plotly.graph_objects as go

from arena.models import Run
from arena.protocol import is_comparable
from envs.adventure.metrics import EXPERIMENTS, TOTALS, aggregate_totals
from envs.registry import tasks_of
from leaderboard.selectors.runs import runs_of_tasks
from leaderboard.boards.charts import figure_json, plain_text


@dataclasses.dataclass
class Row:
    rank: int | None
    submission: object
    result: dict
    runs: list


def _latest_runs(suite_id: str, filters=None) -> dict[tuple[int, bool], dict[str, Run]]:
    """Per submission and comparability (arena.protocol: its runs under the paper preset
    and its custom ones are two rows), the latest run of each experiment that has
    finished episodes."""
    latest: dict[tuple[int, bool], dict[str, Run]] = {}
    runs = runs_of_tasks(tasks_of(suite_id), filters, order="created_at")
    for run in runs:
        latest.setdefault((run.submission_id, is_comparable(run)), {})[run.task.split("/", 1)[1]] = run
    return latest


def leaderboard(suite_id: str, filters=None) -> list[Row]:
    """Table 1: per submission, clemscore and its parts over the nine experiments."""
    rows = []
    for submission_runs in _latest_runs(suite_id, filters).values():
        totals = {
            experiment: totals for experiment, run in submission_runs.items()
            if (totals := experiment_totals(run)) is not None
        }
        if not totals:
            continue
        runs = list(submission_runs.values())
        rows.append(Row(None, runs[0].submission, aggregate_totals(totals), runs))
    # Rows with custom settings after the others, never ranked.
    rows.sort(key=lambda r: (not all(is_comparable(run) for run in r.runs), -(r.result["clemscore"] or 0)))
    rank = 0
    for row in rows:
        if not row.submission.is_baseline and all(is_comparable(run) for run in row.runs):
            rank += 1
            row.rank = rank
    return rows


def experiment_totals(run: Run) -> dict | None:
    """The run's episode count and sums of envs.adventure.metrics.TOTALS from its folded
    metrics; None when no finished episode reported them. Every finished episode reports
    "played"; code_score is folded as missing for the episodes not played."""
    sums = run.metric_sums or {}
    count = sums.get("played", {}).get("n", 0)
    if not count:
        return None
    return {"episodes": count, **{key: sums.get(key, {}).get("sum", 0.0) for key in TOTALS}}


def experiment_cells(rows: list[Row]) -> list[dict]:
    """Table 2: for each row, quality / played per experiment in the paper's order."""
    table = []
    for row in rows:
        per = row.result["experiments"]
        table.append({"row": row, "cells": [per.get(experiment) for experiment in EXPERIMENTS]})
    return table


def turns_chart(rows: list[Row]) -> dict:
    """Fig. 3: mean turns used per experiment against the optimal number of turns."""
    figure = go.Figure()
    optimal: dict[str, float] = {}
    for row in rows:
        per = row.result["experiments"]
        label = plain_text(row.submission.model or row.submission.name)
        figure.add_trace(
            go.Bar(
                x=[e for e in EXPERIMENTS if e in per],
                y=[per[e]["turns"] for e in EXPERIMENTS if e in per],
                name=label,
            )
        )
        for experiment, values in per.items():
            optimal.setdefault(experiment, values["optimal_turns"])
    if optimal:
        figure.add_trace(
            go.Scatter(
                x=[e for e in EXPERIMENTS if e in optimal],
                y=[optimal[e] for e in EXPERIMENTS if e in optimal],
                mode="markers",
                marker={"symbol": "line-ew-open", "size": 28, "line": {"width": 3}, "color": "black"},
                name="optimal",
            )
        )
    figure.update_layout(
        title={"text": "Turns used vs optimal, per experiment"},
        barmode="group",
        yaxis={"title": {"text": "mean turns per episode"}},
        legend={"orientation": "h", "y": -0.35},
        height=440,
        margin={"t": 50, "l": 60, "r": 20, "b": 110},
    )
    return figure_json(figure)


__all__ = ["EXPERIMENTS", "leaderboard", "experiment_cells", "turns_chart"]
