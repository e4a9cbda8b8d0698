"""Runs ranked into leaderboard rows: a metric's value from a run's aggregates
(envs.suite.Metric), the rank order, and the rows and boards the pages show."""

from __future__ import annotations
import dataclasses
import math
from arena.protocol import is_comparable
from arena.metrics import summary
from arena.models import Run
from envs.suite import MEAN_OF_EPISODE_METRIC_OVER, Metric, Suite


@dataclasses.dataclass(frozen=True)
class MetricValue:
    """One metric of one run, as shown: scaled mean, its standard error (None with
    fewer than two values), how many episodes have a value and how many have none."""

    metric: Metric
    mean: float | None
    stderr: float | None
    episodes: int
    missing: int

    def __init__(self, metric: Metric, mean: float | None, stderr: float | None, episodes: int, missing: int):
        # The fields set in the instance's dictionary, as the generated __init__ sets them
        # through object.__setattr__ one call each (frozen): a front page builds some two
        # thousand values, and those calls were a tenth of its boards (bench/read_pages.py).
        fields = self.__dict__
        fields["metric"], fields["mean"], fields["stderr"] = metric, mean, stderr
        fields["episodes"], fields["missing"] = episodes, missing

    @property
    def missing_share(self) -> float:
        """The share of episodes without a value; 1 when no episode has one."""
        total = self.episodes + self.missing
        return self.missing / total if self.episodes else 1.0


def metric_value(run: Run, metric: Metric) -> MetricValue:
    """A metric of a run, folded as its descriptor says, from the run's aggregates."""
    if metric.is_summed_reward:
        mean, stderr, n, missing = run.score_mean, run.score_stderr, run.episodes_done, 0
    else:
        sums = run.metric_sums
        entry = sums.get(metric.episode_metric, _NO_SUMS)
        if metric.fold == MEAN_OF_EPISODE_METRIC_OVER:
            # The metric is 0 on the other episodes (envs.suite), so its sums over all
            # episodes are its sums over the selected ones, and those are counted by
            # the sum of the 0/1 condition.
            selected = int(sums.get(metric.over, _NO_SUMS).get("sum", 0))
            entry = {"n": selected, "sum": entry.get("sum", 0.0), "sumsq": entry.get("sumsq", 0.0)}
        # arena.metrics.summary's mean and standard error, worked out here without its
        # dictionary: a board asks for some ten thousand values (bench/read_pages.py).
        n, missing, mean, stderr = entry.get("n", 0), entry.get("missing", 0), None, None
        if n:
            mean = entry["sum"] / n
            if n > 1:
                variance = max(0.0, (entry["sumsq"] - n * mean * mean) / (n - 1))
                stderr = math.sqrt(variance / n)
    scale = metric.scale
    return MetricValue(
        metric, None if mean is None else mean * scale, None if stderr is None else stderr * scale, n, missing,
    )


# What metric_value reads for a metric no episode of the run reported.
_NO_SUMS: dict = {}


def rank_key(run: Run, metric: Metric) -> tuple:
    """Orders runs best first by a metric (envs.suite.Metric): fewest episodes without a
    value first, then the mean in the metric's direction; ties go to more episodes."""
    return rank_key_of(run, metric_value(run, metric))


def rank_key_of(run: Run, value: MetricValue) -> tuple:
    """`rank_key` from the run's value of the metric, already computed."""
    metric = value.metric
    if value.mean is None:
        by_mean = math.inf
    else:
        by_mean = -value.mean if metric.higher_is_better else value.mean
    return (value.missing_share, by_mean, -run.episodes_done, run.id)


@dataclasses.dataclass
class LeaderboardRow:
    rank: int | None
    run: Run
    # The suite's metrics of the run, the primary metric first.
    metrics: list[MetricValue] = dataclasses.field(default_factory=list)
    # Set when this row cannot be told apart from the ranked row above it
    # (leaderboard.boards.neighbours.NeighbourMark).
    neighbour_mark: object = None

    @property
    def submission(self):
        return self.run.submission

    @property
    def primary(self) -> MetricValue | None:
        return self.metrics[0] if self.metrics else None


@dataclasses.dataclass
class TaskBoard:
    """One task's leaderboard on the front page: its top ranked rows and every baseline
    (the reference rows), in rank order; the whole table is on the task's page."""

    task: type
    rows: list[LeaderboardRow]
    # Ranked (model) rows the task has in all, shown here or not.
    ranked_total: int = 0

    @property
    def ranked_cut(self) -> int:
        """Ranked rows the front page leaves to the task's page."""
        return self.ranked_total - sum(1 for row in self.rows if row.rank is not None)


@dataclasses.dataclass
class SuiteBoard:
    """One suite's section of the front page: its descriptor and its tasks' leaderboards."""

    suite: Suite
    tasks: list[TaskBoard]


def ranked_rows(suite: Suite, runs: list[Run], *, primary_only: bool = False) -> list[LeaderboardRow]:
    """`runs` (of one task) as leaderboard rows, ranked as `leaderboard_rows` says; each
    run's metrics are computed once, the primary one ranking it. With `primary_only`,
    the rows hold the primary metric alone (`with_all_metrics` adds the others to the
    rows a page keeps)."""
    metrics = suite.metrics[:1] if primary_only else suite.metrics
    valued = [(run, [metric_value(run, metric) for metric in metrics]) for run in runs]
    valued.sort(key=lambda item: rank_key_of(item[0], item[1][0]))
    # Runs with custom settings (arena.protocol) come after the comparable ones, unranked.
    comparable = [is_comparable(run) for run, _ in valued]
    valued = [item for item, ok in zip(valued, comparable) if ok] + [item for item, ok in zip(valued, comparable) if not ok]
    rows, rank = [], 0
    for run, metrics in valued:
        if run.submission.is_baseline or not is_comparable(run):
            rows.append(LeaderboardRow(rank=None, run=run, metrics=metrics))
        else:
            rank += 1
            rows.append(LeaderboardRow(rank=rank, run=run, metrics=metrics))
    return rows


def with_all_metrics(suite: Suite, rows: list[LeaderboardRow]) -> list[LeaderboardRow]:
    """Rows of `ranked_rows(..., primary_only=True)` given the suite's other metrics."""
    for row in rows:
        row.metrics = row.metrics[:1] + [metric_value(row.run, metric) for metric in suite.metrics[1:]]
    return rows


@dataclasses.dataclass
class BreakdownRow:
    row: LeaderboardRow
    rates: list[float | None]  # percentages, in the task's breakdown order


def rate_breakdown_rows(task_cls, rows: list[LeaderboardRow]) -> list[BreakdownRow]:
    """For tasks with a rate breakdown (Task.rate_breakdown): each leaderboard row's
    share of episodes, in percent, where each of the per-episode 0/1 metrics held."""
    if not task_cls.rate_breakdown:
        return []
    result = []
    for row in rows:
        rates = []
        for key, _ in task_cls.rate_breakdown:
            entry = summary(row.run.metric_sums.get(key, {}))
            rates.append(None if entry["mean"] is None else 100.0 * entry["mean"])
        if any(rate is not None for rate in rates):
            result.append(BreakdownRow(row=row, rates=rates))
    return result


def task_board(cls, rows: list[LeaderboardRow], top: int | None) -> TaskBoard:
    """A task's board of its ranked `rows`: the first `top` ranked rows and every
    baseline row, in their order (`top` None: all of them), with the count of ranked rows."""
    ranked_total = sum(1 for row in rows if row.rank is not None)
    if top is not None:
        rows = [row for row in rows if row.rank is None or row.rank <= top]
    return TaskBoard(task=cls, rows=rows, ranked_total=ranked_total)
