"""BALROG's own figures (Tables 2-7, 9-15) laid out like the suite page's leaderboard:
one reference row per model of the paper, its average and one cell per environment,
in the LLM or VLM mode. Never ranked (leaderboard.reported.figures)."""

from __future__ import annotations

import dataclasses

from envs.balrog.catalog import ENVIRONMENTS
from envs.core import IMAGE_FORMATS
from leaderboard.reported.figures import Paper, ReportedFigure, reported_set
from leaderboard.reported.display import format_value
from envs.suite import Suite


@dataclasses.dataclass
class PaperRow:
    model: str
    average: str
    cells: list[str]  # one per BALROG environment, in the page's order


@dataclasses.dataclass
class PaperBoard:
    paper: Paper
    rows: list[PaperRow]
    sources: list[str]  # the table each column comes from: average first, then the environments


def paper_board(suite: Suite, mode: str) -> PaperBoard | None:
    found = reported_set(suite.id)
    if found is None or not found.figures:
        return None
    image = mode == "vlm"
    figures = [f for f in found.figures if (f.format in IMAGE_FORMATS) == image]
    # BALROG's tables spell some models two ways (Table 2's "llama-3.2-90B-it", Table 4's
    # "llama-3.2-90b-it"): one model, one row, under the spelling met first.
    spelling: dict[str, str] = {}
    for f in figures:
        spelling.setdefault(f.model.casefold(), f.model)
    figures = [dataclasses.replace(f, model=spelling[f.model.casefold()]) for f in figures]
    by_cell: dict[tuple[str, str], ReportedFigure] = {(f.model, f.environment): f for f in figures}
    columns = ["average", *(environment.name for environment in ENVIRONMENTS)]
    sources = []
    for column in columns:
        cited = sorted({f.source for f in figures if f.environment == column})
        sources.append(", ".join(cited) if cited else "not in the paper")
    # Highest average first; models tied on it (those the paper gives no average) keep
    # the order the reported set lists them in, the paper's, not a set's (which changed
    # with the process's hash seed).
    listed = dict.fromkeys(f.model for f in figures)
    models = sorted(listed, key=lambda m: -(by_cell[(m, "average")].value if (m, "average") in by_cell else -1))
    metric = suite.primary_metric
    rows = [
        PaperRow(
            model=model,
            average=format_value(by_cell.get((model, "average")), metric),
            cells=[format_value(by_cell.get((model, environment.name)), metric) for environment in ENVIRONMENTS],
        )
        for model in models
    ]
    return PaperBoard(found.paper, rows, sources)
