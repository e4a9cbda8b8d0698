"""What the front page shows of the overall board (leaderboard.boards.overall), so that
it reads in a screen or two: the ranked rows (the first FRONT_PAGE_RANKED_ROWS unless
the visitor asks for all) with the baselines as reference rows, the model rows without
an average progress listed apart and unranked, and each suite's leaders. Every task's
table is on its task page and its suite's page."""

from __future__ import annotations

import dataclasses

from arena.models import Submission
from envs.suite import Suite
from leaderboard.boards.overall import Board, Row
from leaderboard.selectors.ranking import SuiteBoard
from leaderboard.templatetags.arena_format import figure

# Ranked rows on the front page by default; ?rows=all lists every one.
FRONT_PAGE_RANKED_ROWS = 10
# Rows listed apart (no average progress yet) shown before "and N more".
FRONT_PAGE_APART_ROWS = 5
LEADERS_PER_SUITE = 3


@dataclasses.dataclass(frozen=True)
class FrontRows:
    """The board's rows as the front page splits them."""

    ranked: list[Row]  # the ranked rows shown, then the baselines (reference rows)
    ranked_total: int
    apart: list[Row]  # model rows without an average progress, shown
    apart_total: int
    custom: list[Row]  # rows of runs with custom settings (arena.protocol), shown under the ranked ones
    custom_total: int

    @property
    def ranked_shown(self) -> int:
        return sum(1 for row in self.ranked if row.rank is not None)

    @property
    def ranked_cut(self) -> int:
        return self.ranked_total - self.ranked_shown

    @property
    def apart_cut(self) -> int:
        return self.apart_total - len(self.apart)

    @property
    def custom_cut(self) -> int:
        return self.custom_total - len(self.custom)


def front_rows(board: Board, *, all_rows: bool = False) -> FrontRows:
    """`board`'s rows split: the ranked ones (the first FRONT_PAGE_RANKED_ROWS unless
    `all_rows`) and the baselines in the board's order, and the model rows without a
    rank (leaderboard.boards.overall ranks only rows with an average progress), and the
    rows of custom settings (the first FRONT_PAGE_APART_ROWS)."""
    ranked = [row for row in board.rows if row.rank is not None]
    baselines = [row for row in board.rows if row.submission.kind != Submission.KIND_MODEL]
    apart = [row for row in board.rows if row.rank is None and row.submission.kind == Submission.KIND_MODEL]
    shown = ranked if all_rows else ranked[:FRONT_PAGE_RANKED_ROWS]
    kept = {id(row) for row in shown + baselines}
    return FrontRows(
        ranked=[row for row in board.rows if id(row) in kept],
        ranked_total=len(ranked),
        apart=apart if all_rows else apart[:FRONT_PAGE_APART_ROWS],
        apart_total=len(apart),
        custom=board.custom_rows if all_rows else board.custom_rows[:FRONT_PAGE_APART_ROWS],
        custom_total=len(board.custom_rows),
    )


@dataclasses.dataclass(frozen=True)
class Leader:
    submission: Submission
    text: str  # "45.2 ± 1.3 %", or "leads 4 of 6 tasks"
    url: str  # the episodes behind the figure ("" for none)


@dataclasses.dataclass(frozen=True)
class SuiteLeaders:
    suite: Suite
    measure: str  # what the leaders are ordered by
    leaders: list[Leader]


def suite_leaders(board: Board, task_boards: list[SuiteBoard]) -> list[SuiteLeaders]:
    """Each suite's first LEADERS_PER_SUITE model submissions: by the suite's own figure
    on the overall board where it has one (BALROG's average progress, TextAtari's mean
    normalised score…), else by the number of its tasks they rank first on (LMAct's and
    information gathering's tasks share no scale). `task_boards`: every task's board,
    its first ranked row at least (leaderboard.selectors.runs.leaderboard_by_suite)."""
    own = dict((suite.id, column) for suite, column in board.suite_columns)
    result = []
    for suite_board in task_boards:
        suite = suite_board.suite
        if not suite.page:
            continue
        column = own.get(suite.id)
        if column is not None:
            result.append(_by_figure(board, suite, column))
        else:
            result.append(_by_tasks_led(suite_board))
    return result


def _by_figure(board: Board, suite: Suite, column) -> SuiteLeaders:
    valued = []
    for row in board.rows:
        if row.submission.kind != Submission.KIND_MODEL:
            continue
        cell = next((cell for cell in row.cells if cell.column.id == column.id), None)
        if cell is not None and cell.figure.mean is not None:
            valued.append((row, cell))
    sign = -1 if column.higher_is_better else 1
    valued.sort(key=lambda item: (sign * item[1].figure.mean, item[0].submission.name, item[0].submission.pk))
    unit = f" {column.unit}" if column.unit else ""
    leaders = [
        Leader(row.submission, f"{figure(cell.figure, column.digits)}{unit}", cell.url)
        for row, cell in valued[:LEADERS_PER_SUITE]
    ]
    return SuiteLeaders(suite, f"the overall table's {suite.title} column", leaders)


def _by_tasks_led(suite_board: SuiteBoard) -> SuiteLeaders:
    led: dict[int, list] = {}
    for task_board in suite_board.tasks:
        first = next((row for row in task_board.rows if row.rank == 1), None)
        if first is not None:
            led.setdefault(first.submission.pk, [first.submission, 0])[1] += 1
    total = len(suite_board.tasks)
    ordered = sorted(led.values(), key=lambda item: (-item[1], item[0].name, item[0].pk))
    leaders = [
        Leader(submission, f"first on {count} of {total} task{'s' if total != 1 else ''}", "")
        for submission, count in ordered[:LEADERS_PER_SUITE]
    ]
    return SuiteLeaders(suite_board.suite, "tasks ranked first on", leaders)
