"""Read side of the BALROG suite page: BALROG's leaderboard (BALROG §3, "Evaluation"),
one row per submission and one column per environment.

A cell is the progress ± standard error over the pooled episodes of the submission's
runs of that environment's tasks, as BALROG computes it (envs.balrog.catalog); the
average is the mean of the environments' figures. The numbers come from the runs'
folded progress (Run.metric_sums); episodes and steps are never read.

Imported submissions (results played elsewhere) have a section of their own and no
rank, unless the page is asked to rank them with the arena's own submissions. Runs
played with custom settings rather than BALROG's preset (arena.protocol) make rows of
a table of their own, never ranked against the preset's.
"""

from __future__ import annotations

import dataclasses

from arena.models import Run, Submission
from arena.protocol import RowProtocol, is_comparable, row_protocol
from envs.balrog.catalog import (
    ENVIRONMENTS,
    NO_EPISODES,
    Environment,
    Figure,
    environment_of,
)
from envs.registry import tasks_of
from envs.suite import Suite
from leaderboard.boards.cells import episodes_url, grouped, mean_of, pooled_runs
from leaderboard.boards.harness import without_superseded
from leaderboard.selectors.runs import suite_runs

# BALROG's two leaderboards: language only, and with images (a run in an image format).
MODES = {"llm": "LLM", "vlm": "VLM"}


@dataclasses.dataclass
class Cell:
    environment: Environment
    figure: Figure
    runs: list[Run]
    url: str  # the episodes behind the figure: the run's page, or a list of the runs' episodes


@dataclasses.dataclass
class Row:
    submission: Submission
    cells: list[Cell]  # in BALROG's order of environments, one per environment
    average: Figure
    tokens_in: int
    tokens_out: int
    rank: int | None = None
    protocol: RowProtocol | None = None  # the protocol its runs were played under

    @property
    def environments_played(self) -> int:
        return sum(1 for cell in self.cells if cell.figure.episodes)

    @property
    def complete(self) -> bool:
        """Whether the submission played all of BALROG's environments: only then is its
        average BALROG's overall figure (issue: "partial" otherwise)."""
        return self.environments_played == len(self.cells)

    @property
    def played_titles(self) -> list[str]:
        return [cell.environment.title for cell in self.cells if cell.figure.episodes]


@dataclasses.dataclass
class Board:
    mode: str
    ranked: list[Row]  # the arena's own submissions (and the imported ones when asked)
    imported: list[Row]  # imported submissions, in a section of their own
    # The arena's own runs with custom settings (not BALROG's preset): apart, unranked.
    custom: list[Row] = dataclasses.field(default_factory=list)


def _row(suite: Suite, submission: Submission, runs: list[Run]) -> Row:
    by_environment = grouped(runs, lambda run: environment_of(run.task, run.options))
    cells = []
    for environment in ENVIRONMENTS:
        behind = by_environment.get(environment, [])
        cells.append(Cell(environment, pooled_runs(behind, suite), behind, episodes_url(suite, behind) if behind else ""))
    return Row(
        submission=submission,
        protocol=row_protocol(runs),
        cells=cells,
        average=mean_of(cell.figure for cell in cells) if runs else NO_EPISODES,
        tokens_in=sum(run.tokens_in for run in runs),
        tokens_out=sum(run.tokens_out for run in runs),
    )


def _order(rows: list[Row], ranked_kinds: tuple[str, ...]) -> list[Row]:
    """More environments played first (an average over fewer of BALROG's six is not
    comparable), then the higher average. Only submissions of `ranked_kinds` get a
    rank: baselines are reference rows, and imported results rank only when asked."""
    rows = sorted(rows, key=lambda row: (-row.environments_played, -(row.average.mean or 0.0), row.submission.pk))
    rank = 0
    for row in rows:
        if row.submission.kind in ranked_kinds:
            rank += 1
            row.rank = rank
    return rows


def arena_tasks(suite: Suite) -> dict[Environment, list[str]]:
    """The suite's registered tasks by BALROG environment: an environment without any
    still has a column (imported results fill it)."""
    tasks: dict[Environment, list[str]] = {environment: [] for environment in ENVIRONMENTS}
    for task_id in tasks_of(suite.id):
        environment = environment_of(task_id)
        if environment is not None:
            tasks[environment].append(task_id)
    return tasks


def board(suite: Suite, *, mode: str, rank_imported: bool = False) -> Board:
    """The leaderboard of one mode ("llm" or "vlm"). With `rank_imported`, imported
    submissions are ranked with the arena's own instead of listed apart."""
    # A submission's runs under BALROG's preset and its custom runs are two rows.
    by_submission: dict[tuple[int, bool], list[Run]] = {}
    for run in without_superseded(suite_runs(suite.id, images=mode == "vlm")):
        if environment_of(run.task, run.options) is not None:
            by_submission.setdefault((run.submission_id, is_comparable(run)), []).append(run)
    rows, custom = [], []
    for (_, comparable), submission_runs in by_submission.items():
        (rows if comparable else custom).append(_row(suite, submission_runs[0].submission, submission_runs))
    custom = _order(custom, ())
    if rank_imported:
        return Board(mode, _order(rows, (Submission.KIND_MODEL, Submission.KIND_IMPORTED)), [], custom)
    own = [row for row in rows if not row.submission.is_imported]
    imported = [row for row in rows if row.submission.is_imported]
    return Board(mode, _order(own, (Submission.KIND_MODEL,)), _order(imported, ()), custom)
