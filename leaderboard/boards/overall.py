"""Read side of the overall leaderboard (`/` and /api/leaderboard/overall/): one row per
submission, the columns each suite declares (envs.suite.Overall: a column per task, per
BALROG environment or per TextAtari game category), each cell the suite's primary metric
on the paper's scale with its standard error, and the average progress over the suites
that share a 0–100 scale, as BALROG averages its environments.

The numbers come from the runs' folded aggregates (Run.score_sum, Run.metric_sums);
episodes and steps are never read. Imported results are on the BALROG page, not here:
the filters of the task leaderboards (leaderboard.selectors.runs.Filters) leave them out.
"""

from __future__ import annotations

import dataclasses
import functools
import math

from django.urls import get_script_prefix, reverse

from arena.models import Run, Submission
from arena.protocol import RowProtocol, is_comparable, row_protocol
from envs.balrog.catalog import NO_EPISODES, Figure
from envs.registry import all_suites, tasks_of
from arena.matches.ratings import PlayerRating
from envs.suite import MEAN_OVER_TASKS, Suite
from leaderboard.boards.cells import cell_figure, episodes_url, grouped, mean_of, mean_over_tasks
from leaderboard.boards.harness import without_superseded
from leaderboard.boards.ratings import overall_ratings
from leaderboard.compare.paired import Z_95
from leaderboard.selectors.runs import Filters, scored_runs_by_id
from leaderboard.suites.balrog import MODES

TABS = MODES  # LLM: runs on text observations; VLM: runs on image observations (as BALROG's tabs)
AVERAGE_LABEL = "Average progress"
AVERAGE_DIGITS = 1  # BALROG's precision for progress


@dataclasses.dataclass(frozen=True)
class Column:
    """One figure column: a column of a suite (`key`), or its summary (`summary`)."""

    suite: Suite
    key: str
    title: str
    summary: bool = False

    @property
    def id(self) -> str:
        """Names the column in the page's markup and in the downloads: "balrog.crafter"."""
        return f"{self.suite.id}.{self.key}"

    @property
    def unit(self) -> str:
        return self.suite.primary_metric.unit.strip()

    @property
    def digits(self) -> int:
        return self.suite.primary_metric.digits

    @property
    def higher_is_better(self) -> bool:
        return self.suite.primary_metric.higher_is_better


@dataclasses.dataclass
class Cell:
    column: Column
    figure: Figure
    runs: list[Run]
    url: str  # the episodes behind the figure ("" without any)
    # For a summary: every column of the suite has a figure (else the figure is None).
    partial: bool = False


@dataclasses.dataclass(frozen=True)
class SuiteCell:
    """A row's one cell per suite in the compact table: the suite's own figure where it
    has one (its summary column, or its only column), else how many of its columns the
    row has a figure in (LMAct's and information gathering's tasks share no scale)."""

    suite: Suite
    cell: Cell | None
    played: int
    total: int


def suite_cells(cells: list[Cell]) -> list[SuiteCell]:
    """`cells` (a row's, in the board's column order) folded to one per suite."""
    by_suite: dict[str, list[Cell]] = {}
    for cell in cells:
        by_suite.setdefault(cell.column.suite.id, []).append(cell)
    folded = []
    for group in by_suite.values():
        columns = [cell for cell in group if not cell.column.summary]
        own = next((cell for cell in group if cell.column.summary), None)
        if own is None and len(group) == 1:
            own = group[0]
        played = sum(1 for cell in columns if cell.figure.episodes)
        folded.append(SuiteCell(group[0].column.suite, own, played, len(columns)))
    return folded


@dataclasses.dataclass
class Row:
    submission: Submission
    cells: list[Cell]  # aligned with the board's columns
    average: Figure  # over the shared-scale suites; NO_EPISODES unless all are played
    average_partial: bool  # some but not all of the shared-scale suites are played
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    rank: int | None = None
    # Set when the average progress cannot tell this row from the ranked row above it
    # (_mark_ties): the words of the "≈" before its rank, and the paired comparison.
    tie_explanation: str = ""
    tie_compare_url: str = ""
    # The head-to-head rating over all games (leaderboard.boards.ratings), None when the
    # submission has none.
    rating: PlayerRating | None = None
    # The protocol its runs were played under (arena.protocol): a submission's runs under
    # its suites' paper presets and its custom runs make two rows, on two tables.
    protocol: RowProtocol | None = None

    @property
    def columns_played(self) -> int:
        return sum(1 for cell in self.cells if not cell.column.summary and cell.figure.episodes)

    @property
    def suite_cells(self) -> list[SuiteCell]:
        return suite_cells(self.cells)


@dataclasses.dataclass
class Board:
    tab: str
    strategy: str
    columns: list[Column]
    rows: list[Row]  # played under the papers' presets (and baselines): ranked
    shared_suites: list[Suite]  # the suites the average progress is taken over
    # Rows of runs played with custom settings: listed apart, never ranked against `rows`.
    custom_rows: list[Row] = dataclasses.field(default_factory=list)

    @property
    def suites(self) -> list[Suite]:
        seen: dict[str, Suite] = {}
        for column in self.columns:
            seen.setdefault(column.suite.id, column.suite)
        return list(seen.values())

    @property
    def groups(self) -> list[tuple[Suite, int]]:
        """(suite, number of its columns), for the header row naming the suites."""
        spans: list[tuple[Suite, int]] = []
        for column in self.columns:
            if spans and spans[-1][0].id == column.suite.id:
                spans[-1] = (column.suite, spans[-1][1] + 1)
            else:
                spans.append((column.suite, 1))
        return spans

    @property
    def suite_columns(self) -> list[tuple[Suite, Column | None]]:
        """The compact table's columns: (suite, the column holding its own figure, or
        None when its cells count the columns played)."""
        own: dict[str, Column | None] = {}
        for suite, span in self.groups:
            columns = [column for column in self.columns if column.suite.id == suite.id]
            summary = next((column for column in columns if column.summary), None)
            own[suite.id] = summary or (columns[0] if span == 1 else None)
        return [(suite, own[suite.id]) for suite in self.suites]

    @property
    def has_ratings(self) -> bool:
        """Some row has a head-to-head rating: the rating column is shown."""
        return any(row.rating is not None for row in self.rows)

    @property
    def shared_titles(self) -> str:
        return " and ".join(suite.title for suite in self.shared_suites)


def suite_columns(suite: Suite) -> list[Column]:
    """The suite's columns on the overall leaderboard, its summary column last."""
    overall = suite.overall
    if overall.columns:
        columns = [Column(suite, key, title) for key, title in overall.columns]
    else:
        # A task's column is keyed by its name ("gridworld"); the suite's title, which
        # the header row above already shows, is not repeated in each.
        columns = [
            Column(suite, task_id.split("/", 1)[1], _short_title(cls.title, suite))
            for task_id, cls in tasks_of(suite.id).items()
        ]
    if overall.summary_label:
        columns.append(Column(suite, "summary", overall.summary_label, summary=True))
    return columns


def _short_title(title: str, suite: Suite) -> str:
    short = title.removeprefix(f"{suite.title}: ")
    return short[:1].upper() + short[1:]


def column_key(suite: Suite, run: Run) -> str | None:
    if suite.overall.column_of is None:
        return run.task.split("/", 1)[1]
    return suite.overall.column_of(run.task, run.options)


def _suite_cells(
    suite: Suite, columns: list[Column], runs: list[Run], keys: dict[int, str | None], script_prefix: str,
) -> list[Cell]:
    """The row's cells of one suite's `columns` from its `runs`, placed by `keys` (each
    run's column_key, by run id); `script_prefix` the request's, for the cells' links."""
    by_column = grouped(runs, lambda run: keys[run.id])
    cells = []
    for column in columns:
        if column.summary:
            continue
        figure, behind = cell_figure(by_column.get(column.key, []), suite)
        cells.append(Cell(column, figure, behind, episodes_url(suite, behind, script_prefix) if behind else ""))
    return cells


def suite_figure(suite: Suite, cells: list[Cell], runs: list[Run], keys: dict[int, str | None] | None = None) -> tuple[Figure, bool]:
    """The suite's own figure for a row and whether it is complete: the mean over its
    tasks (MEAN_OVER_TASKS) or over its columns, with the √(Σ SE²)/n rule; complete
    only when every column has a figure (BALROG's average needs all six environments).
    `keys`: the runs' column keys by run id, when already known."""
    played = [cell for cell in cells if not cell.column.summary and cell.figure.episodes]
    complete = bool(played) and len(played) == sum(1 for cell in cells if not cell.column.summary)
    if suite.overall.cell == MEAN_OVER_TASKS:
        key_of = (lambda run: keys[run.id]) if keys is not None else (lambda run: column_key(suite, run))
        counted = [run for run in runs if key_of(run) is not None]
        return mean_over_tasks(counted, suite), complete
    return mean_of(cell.figure for cell in played), complete


def _summary_cell(column: Column, cells: list[Cell], figure: Figure, complete: bool) -> Cell:
    played = [run for cell in cells for run in cell.runs]
    if not complete:
        return Cell(column, NO_EPISODES, played, "", partial=bool(played))
    return Cell(column, figure, played, "")


def _row(
    submission: Submission, runs: list[Run], by_suite: dict[str, list[Run]], columns: dict[str, list[Column]],
    shared: list[Suite], keys: dict[int, str | None], script_prefix: str,
) -> Row:
    """A submission's row from its `runs` (`by_suite`: the same, by suite id) over the
    board's `columns` (by suite id, in the board's order)."""
    cells: list[Cell] = []
    shared_figures, shared_played = [], 0
    for suite_columns in columns.values():
        suite = suite_columns[0].suite
        suite_runs = by_suite.get(suite.id, [])
        suite_cells = _suite_cells(suite, suite_columns, suite_runs, keys, script_prefix)
        summary = next((column for column in suite_columns if column.summary), None)
        if summary is not None or suite.overall.shared_scale:
            # The suite's own figure, once for its summary cell and the average.
            figure, complete = suite_figure(suite, suite_cells, suite_runs, keys)
        if summary is not None:
            suite_cells.append(_summary_cell(summary, suite_cells, figure, complete))
        cells += suite_cells
        if suite.overall.shared_scale:
            shared_played += figure.mean is not None
            if complete:
                shared_figures.append(figure)
    all_shared = bool(shared) and len(shared_figures) == len(shared)
    costs = [run.cost_at(submission) for run in runs]  # the runs of `submission`
    return Row(
        submission=submission,
        protocol=row_protocol(runs),
        cells=cells,
        average=mean_of(shared_figures) if all_shared else NO_EPISODES,
        average_partial=not all_shared and shared_played > 0,
        tokens_in=sum(run.tokens_spent_in for run in runs),
        tokens_out=sum(run.tokens_spent_out for run in runs),
        cost_usd=None if all(cost is None for cost in costs) else math.fsum(cost or 0.0 for cost in costs),
    )


def _order(rows: list[Row], *, ranked: bool = True) -> list[Row]:
    """Rows with the average progress first, the higher first; then the others by the
    number of columns they have figures in. Only model submissions with an average
    progress are ranked, and only when `ranked` (custom rows are ordered, not ranked): a
    row without one ("partial", or none of the shared-scale suites played) has nothing
    the ranked rows are ordered by, so it is listed after them without a rank."""
    rows.sort(key=lambda row: (
        row.average.mean is None, -(row.average.mean or 0.0), -row.columns_played, row.submission.name,
        row.submission.pk,
    ))
    if not ranked:
        return rows
    rank = 0
    for row in rows:
        if row.submission.kind == Submission.KIND_MODEL and row.average.mean is not None:
            rank += 1
            row.rank = rank
    _mark_ties([row for row in rows if row.rank is not None])
    return rows


def _mark_ties(ranked: list[Row]) -> None:
    """Marks each ranked row whose average progress is within 1.96 combined standard
    errors of the row ranked just above it: the order of the two is not supported by
    the data (the averages pool different tasks, so there is no shared seed to pair on;
    the paired comparison linked from the mark pairs them task by task)."""
    for upper, lower in zip(ranked, ranked[1:]):
        a, b = upper.average, lower.average
        if a.mean is None or b.mean is None or a.stderr is None or b.stderr is None:
            continue
        difference = a.mean - b.mean
        half = Z_95 * math.sqrt(a.stderr**2 + b.stderr**2)
        if abs(difference) <= half:
            lower.tie_explanation = (
                f"Not distinguishable from rank {upper.rank}: the difference of the average progress, "
                f"{difference:.1f} ± {half:.1f} (1.96 combined standard errors), contains 0."
            )
            lower.tie_compare_url = f"{_compare_path(get_script_prefix())}?a={upper.submission.pk}&b={lower.submission.pk}"


@functools.lru_cache(maxsize=8)
def _compare_path(script_prefix: str) -> str:
    # Reversed once per script prefix (reverse puts it in front), not once per tie.
    return reverse("leaderboard:compare-submissions")


def board(tab: str = "llm", strategy: str = "", runs: list[Run] | None = None) -> Board:
    """The overall leaderboard of one tab ("llm" or "vlm"), for the model runs of one
    strategy filter (leaderboard.selectors.runs.STRATEGY_FILTERS; "" for all): of
    `runs` when given (read under that filter, by id, as the front page reads them
    once for both of its boards)."""
    if tab not in TABS:
        raise ValueError(f"unknown tab {tab!r}")
    suites = [suite for suite in all_suites().values() if suite.overall is not None]
    columns = [column for suite in suites for column in suite_columns(suite)]
    shared = [suite for suite in suites if suite.overall.shared_scale]
    if runs is None:
        runs = scored_runs_by_id(Filters(mode=tab, strategy=strategy))
    by_column: dict[str, list[Column]] = {}
    for column in columns:
        by_column.setdefault(column.suite.id, []).append(column)
    # Each run's suite and column worked out once (the cells, the suite's figure and the
    # average each asked for them before).
    by_submission: dict[tuple[int, bool], list[Run]] = {}
    by_suite: dict[tuple[int, bool], dict[str, list[Run]]] = {}
    keys: dict[int, str | None] = {}
    # A column key depends on the task and the variant alone, and a board's thousand runs
    # share a few hundred such pairs (lean runs share one decoded variant per variant
    # text): each pair's key worked out once, by the variant's identity (the variant kept
    # alive in the entry, so that its id stays its own).
    placed: dict[tuple[str, int], tuple[object, str | None]] = {}
    for run in without_superseded(runs):
        # A submission's comparable and custom runs are two rows (arena.protocol).
        task, submission_id = run.task, (run.submission_id, is_comparable(run))
        suite_id = task.split("/", 1)[0]
        by_submission.setdefault(submission_id, []).append(run)
        if suite_id in by_column:
            by_suite.setdefault(submission_id, {}).setdefault(suite_id, []).append(run)
            variant = run.variant
            entry = placed.get((task, id(variant)))
            if entry is None:
                entry = placed[task, id(variant)] = (variant, column_key(by_column[suite_id][0].suite, run))
            keys[run.id] = entry[1]
    script_prefix = get_script_prefix()
    rows, custom = [], []
    for (submission_id, comparable), group in by_submission.items():
        row = _row(group[0].submission, group, by_suite.get((submission_id, comparable), {}), by_column, shared, keys, script_prefix)
        (rows if comparable else custom).append(row)
    ratings = overall_ratings()
    for row in rows + custom:
        row.rating = ratings.get(row.submission.pk)
    return Board(tab, strategy, columns, _order(rows), shared, _order(custom, ranked=False))
