"""AdventureGame's own figures beside the suite page's tables: Table 1 (overall) and
Tables 2-3 (quality / % played per experiment), as reference rows never ranked
(leaderboard.reported.figures)."""

from __future__ import annotations

import dataclasses

from envs.adventure.metrics import EXPERIMENTS
from leaderboard.reported.figures import Paper, reported_set

OVERALL_METRICS = ("clemscore", "quality", "played", "goal_success_rate")


@dataclasses.dataclass
class PaperOverall:
    model: str
    source: str
    values: list[float | None]  # in OVERALL_METRICS order


@dataclasses.dataclass
class PaperExperiments:
    model: str
    source: str
    cells: list[str]  # "quality / played" per experiment, in EXPERIMENTS order


@dataclasses.dataclass
class PaperTables:
    paper: Paper
    overall: list[PaperOverall]
    experiments: list[PaperExperiments]


def paper_tables(suite_id: str) -> PaperTables | None:
    found = reported_set(suite_id)
    if found is None or not found.figures:
        return None
    overall: dict[tuple[str, str], PaperOverall] = {}
    per_experiment: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for figure in found.figures:
        if len(figure.tasks) > 1:
            row = overall.setdefault(
                (figure.model, figure.source), PaperOverall(figure.model, figure.source, [None] * len(OVERALL_METRICS))
            )
            row.values[OVERALL_METRICS.index(figure.metric)] = figure.value
        else:
            experiment = figure.tasks[0].split("/", 1)[1]
            cell = per_experiment.setdefault((figure.model, figure.source), {}).setdefault(experiment, {})
            cell[figure.metric] = figure.value
    experiments = [
        PaperExperiments(
            model, source,
            [
                f"{cells[e]['quality']:.1f} / {cells[e]['played']:.1f}" if e in cells and {"quality", "played"} <= set(cells[e]) else "—"
                for e in EXPERIMENTS
            ],
        )
        for (model, source), cells in per_experiment.items()
    ]
    return PaperTables(found.paper, list(overall.values()), experiments)
