"""Cost against score (HAL's accuracy-against-cost view, for the arena's suites): per
submission, what an episode cost and the figure it earned, with the Pareto frontier of
the submissions no other beats on both at once.

The figures are the overall leaderboard's (leaderboard.overall) of one tab: the average
progress for the overall chart; per suite its own figure where it has one (BALROG's
average, TextAtari's mean, AdventureGame's clemscore), else one chart per column, since
LMAct's and information gathering's tasks share no scale. A figure is drawn only when
the leaderboard shows it complete. The cost is what the runs behind that figure spent,
per episode played (finished or failed: both spent tokens), in USD: at the submission's
own prices, or for a well-known hosted model that gives none at the shipped catalogue's
list price (arena.prices). A submission priced by neither is left out of the chart and
counted, so that the axis stays in dollars; only a chart none of whose submissions has a
price is drawn in tokens (input and output). Baselines call no model and are left out,
as are submissions that recorded no tokens.
"""

from __future__ import annotations

import dataclasses
import math

from arena.models import Run, Submission
from envs.suite import Suite
from leaderboard.boards import overall

USD, TOKENS = "usd", "tokens"


@dataclasses.dataclass
class CostPoint:
    submission: Submission
    score: float
    score_stderr: float | None
    usd_per_episode: float | None  # None: the submission gives no prices
    tokens_per_episode: float
    episodes: int
    dominated: bool = False

    def cost(self, axis: str) -> float:
        return self.usd_per_episode if axis == USD else self.tokens_per_episode


@dataclasses.dataclass
class CostChart:
    key: str  # "overall", a suite id, or "<suite>.<column>"
    title: str
    metric_label: str  # the y axis
    higher_is_better: bool
    digits: int
    axis: str  # USD or TOKENS
    points: list[CostPoint]  # the frontier's and the dominated ones, cheapest first
    left_out: int  # model submissions with a figure but no recorded tokens
    unpriced: int = 0  # model submissions left out of a USD chart: no price given nor listed

    @property
    def frontier(self) -> list[CostPoint]:
        return [point for point in self.points if not point.dominated]

    @property
    def axis_label(self) -> str:
        return "cost per episode (USD)" if self.axis == USD else "tokens per episode (input + output)"

    def point_of(self, submission: Submission) -> CostPoint | None:
        return next((point for point in self.points if point.submission.pk == submission.pk), None)


def dominated_flags(points: list[tuple[float, float]], *, higher_is_better: bool = True) -> list[bool]:
    """For each (cost, score), whether another point is at least as cheap and at least as
    good and better on one of the two (Pareto dominance); equal points dominate neither."""
    sign = 1 if higher_is_better else -1
    flags = []
    for cost, score in points:
        flags.append(any(
            other_cost <= cost and sign * other_score >= sign * score
            and (other_cost < cost or sign * other_score > sign * score)
            for other_cost, other_score in points
        ))
    return flags


def _point(submission: Submission, figure, runs: list[Run]) -> CostPoint | None:
    if figure.mean is None:
        return None
    unique = list({run.pk: run for run in runs}.values())
    episodes = sum(run.episodes_done + run.episodes_failed for run in unique)
    tokens = sum(run.tokens_spent_in + run.tokens_spent_out for run in unique)
    if not episodes or not tokens:
        return None
    costs = [run.cost_usd for run in unique]
    usd = None if any(cost is None for cost in costs) else math.fsum(costs) / episodes
    return CostPoint(submission, figure.mean, figure.stderr, usd, tokens / episodes, episodes)


def _chart(key: str, title: str, metric, candidates: list[CostPoint], left_out: int) -> CostChart:
    priced = [point for point in candidates if point.usd_per_episode is not None]
    axis = USD if priced else TOKENS
    unpriced = len(candidates) - len(priced) if priced else 0
    candidates = priced or candidates
    points = sorted(candidates, key=lambda p: (p.cost(axis), -p.score if metric.higher_is_better else p.score))
    flags = dominated_flags([(p.cost(axis), p.score) for p in points], higher_is_better=metric.higher_is_better)
    for point, dominated in zip(points, flags):
        point.dominated = dominated
    return CostChart(key, title, _label(metric), metric.higher_is_better, metric.digits, axis, points, left_out, unpriced)


def _label(metric) -> str:
    unit = metric.unit.strip()
    return f"{metric.label} ({unit})" if unit else metric.label


@dataclasses.dataclass(frozen=True)
class _Metric:
    label: str
    higher_is_better: bool
    digits: int
    unit: str = ""


AVERAGE_METRIC = _Metric(overall.AVERAGE_LABEL, True, overall.AVERAGE_DIGITS, "%")


def _gather(rows, figure_and_runs) -> tuple[list[CostPoint], int]:
    points, left_out = [], 0
    for row in rows:
        if row.submission.kind != Submission.KIND_MODEL:
            continue
        figure, runs = figure_and_runs(row)
        if figure is None or figure.mean is None:
            continue
        point = _point(row.submission, figure, runs)
        if point is None:
            left_out += 1
        else:
            points.append(point)
    return points, left_out


def _suite_charts(board: overall.Board, suite: Suite) -> list[CostChart]:
    columns = [column for column in board.columns if column.suite.id == suite.id]
    summary = next((column for column in columns if column.summary), None)
    own = summary or (columns[0] if len(columns) == 1 else None)
    metric = suite.primary_metric
    charts = []
    targets = [own] if own is not None else columns
    for column in targets:
        def figure_and_runs(row, column=column):
            cells = [cell for cell in row.cells if cell.column.suite.id == suite.id]
            cell = next(cell for cell in cells if cell.column.id == column.id)
            if column.summary:
                if cell.partial or cell.figure.mean is None:
                    return None, []
                return cell.figure, [run for other in cells for run in other.runs]
            return cell.figure, cell.runs

        points, left_out = _gather(board.rows, figure_and_runs)
        key = suite.id if own is not None else column.id
        title = suite.title if own is not None else f"{suite.title} · {column.title}"
        charts.append(_chart(key, title, metric, points, left_out))
    return charts


def cost_charts(tab: str = "llm", runs: list[Run] | None = None) -> list[CostChart]:
    """The overall chart (average progress), then each suite's, in the leaderboard's order
    (of the tab's `runs` when given, as overall.board reads them)."""
    board = overall.board(tab, runs=runs)

    def average(row):
        if row.average.mean is None:
            return None, []
        shared = [run for cell in row.cells if cell.column.suite.overall.shared_scale for run in cell.runs]
        return row.average, shared

    points, left_out = _gather(board.rows, average)
    charts = [_chart("overall", f"Overall · {overall.AVERAGE_LABEL}", AVERAGE_METRIC, points, left_out)]
    for suite in board.suites:
        charts += _suite_charts(board, suite)
    return charts


def submission_cost_charts(submission: Submission, tab: str = "llm") -> list[tuple[CostChart, CostPoint]]:
    """The charts the submission has a point on, with its point (the model page's "where
    it sits")."""
    placed = []
    for chart in cost_charts(tab):
        point = chart.point_of(submission)
        if point is not None:
            placed.append((chart, point))
    return placed
