"""One path for a figure made of runs: a cell of the overall leaderboard, an environment
of BALROG's page, a game of TextAtari's. Each reads the runs' folded aggregates
(Run.score_sum, Run.metric_sums), never episodes, and states the suite's rule once:

- pooled episodes (`pooled_runs`): the runs' sums added up, with BALROG's population
  standard error (BALROG §3) where the suite's `Overall.population_stderr` says so, else
  the sample standard error the task pages show;
- the mean over tasks or columns (`mean_of`): the mean of the means with the standard
  error √(Σ SE²) / n, as BALROG averages its environments and TextAtari its games;
- clembench's clemscore (`clemscore_of`): per task the primary metric's mean and the
  share of episodes played, their macro means over the tasks, and their product / 100;
- a column's cell (`cell_figure`): one of those, or the best run, as the suite's
  `Overall.cell` says.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from functools import lru_cache

from django.urls import get_script_prefix, reverse

from arena.metrics import summary
from arena.models import Run
from envs.balrog.catalog import NO_EPISODES, Figure, average_figure, pooled_figure_of
from envs.suite import BEST_RUN, CLEMSCORE, MEAN_OF_EPISODE_METRIC_OVER, MEAN_OVER_TASKS, Metric, Suite
from leaderboard.selectors.ranking import metric_value, rank_key_of

# The mean of several figures' means, with the standard error √(Σ SE²) / n over those
# that have a figure (BALROG's average over environments, TextAtari's over games).
mean_of = average_figure


def run_sums(run: Run, metric: Metric) -> dict:
    """The run's folded sums (n, sum, sumsq) of a metric, unscaled."""
    if metric.is_summed_reward:
        return score_sums(run)
    entry = run.metric_sums.get(metric.episode_metric, {})
    if metric.fold == MEAN_OF_EPISODE_METRIC_OVER:
        # As leaderboard.selectors.ranking.metric_value: counted over the selecting episodes.
        return {**entry, "n": int(run.metric_sums.get(metric.over, {}).get("sum", 0))}
    return entry


def score_sums(run: Run) -> dict:
    """The run's folded summed rewards (the game score)."""
    return {"n": run.episodes_done, "sum": run.score_sum, "sumsq": run.score_sq_sum}


def sample_pooled(entries: Iterable[dict], scale: float = 1.0) -> Figure:
    """Several runs' folded sums pooled, with the sample standard error the runs' own
    pages show (arena.metrics.summary), scaled."""
    total = {"n": 0, "sum": 0.0, "sumsq": 0.0}
    for entry in entries:
        total["n"] += int(entry.get("n", 0))
        total["sum"] += float(entry.get("sum", 0.0))
        total["sumsq"] += float(entry.get("sumsq", 0.0))
    folded = summary(total)
    if folded["mean"] is None:
        return NO_EPISODES
    stderr = None if folded["stderr"] is None else folded["stderr"] * scale
    return Figure(folded["mean"] * scale, stderr, folded["n"])


def pooled_runs(runs: list[Run], suite: Suite) -> Figure:
    """The episodes of `runs` pooled on the suite's primary metric, with the suite's
    standard error, on the metric's scale."""
    metric = suite.primary_metric
    n, total, total_sq = _added_sums(runs, metric)
    if suite.overall is not None and suite.overall.population_stderr:
        figure = pooled_figure_of(n, total, total_sq)
        if figure.mean is None:
            return NO_EPISODES
        stderr = None if figure.stderr is None else figure.stderr * metric.scale
        return Figure(figure.mean * metric.scale, stderr, figure.episodes)
    # sample_pooled's figure of the same sums (arena.metrics.summary's arithmetic).
    if not n:
        return NO_EPISODES
    mean, stderr = total / n, None
    if n > 1:
        variance = max(0.0, (total_sq - n * mean * mean) / (n - 1))
        stderr = math.sqrt(variance / n) * metric.scale
    return Figure(mean * metric.scale, stderr, n)


def _added_sums(runs: list[Run], metric: Metric) -> tuple[int, float, float]:
    """The runs' `run_sums` added up in their order (n, sum, sumsq), as sample_pooled and
    pooled_figure add them, without a dictionary per run: a board pools a thousand."""
    n, total, total_sq = 0, 0.0, 0.0
    if metric.is_summed_reward:
        for run in runs:
            n += int(run.episodes_done)
            total += float(run.score_sum)
            total_sq += float(run.score_sq_sum)
        return n, total, total_sq
    name, over = metric.episode_metric, metric.over if metric.fold == MEAN_OF_EPISODE_METRIC_OVER else None
    for run in runs:
        sums = run.metric_sums
        entry = sums.get(name, _NO_SUMS)
        n += int(entry.get("n", 0) if over is None else int(sums.get(over, _NO_SUMS).get("sum", 0)))
        total += float(entry.get("sum", 0.0))
        total_sq += float(entry.get("sumsq", 0.0))
    return n, total, total_sq


# What _added_sums reads for a metric no episode of a run reported.
_NO_SUMS: dict = {}


def grouped(runs: Iterable[Run], key: Callable[[Run], Hashable]) -> dict:
    """The runs by `key`, in their order; runs whose key is None are left out."""
    groups: dict = {}
    for run in runs:
        value = key(run)
        if value is not None:
            groups.setdefault(value, []).append(run)
    return groups


def mean_over_tasks(runs: list[Run], suite: Suite) -> Figure:
    """The mean over the runs' tasks of each task's pooled figure."""
    return mean_of(pooled_runs(task_runs, suite) for task_runs in grouped(runs, lambda run: run.task).values())


def clemscore_of(runs: list[Run], suite: Suite) -> Figure:
    """clembench's clemscore of `runs` (clemcore's clemeval; AdventureGame §4.2, Table 1):
    macro quality × macro % played / 100 over their tasks, a task's quality being the
    primary metric over all its episodes (an aborted one counts 0, as Tables 2-3 count it).
    The standard error is the macro quality's (√(Σ SE²)/n) times % played / 100, the
    share played held fixed: clembench reports none."""
    qualities, shares = [], []
    for task_runs in grouped(runs, lambda run: run.task).values():
        quality = pooled_runs(task_runs, suite)
        played = sample_pooled([run.metric_sums.get(suite.overall.played_metric, _NO_SUMS) for run in task_runs], 100.0)
        if quality.mean is None or played.mean is None:
            continue
        qualities.append(quality)
        shares.append(played.mean)
    if not qualities:
        return NO_EPISODES
    macro_quality = mean_of(qualities)
    macro_played = math.fsum(shares) / len(shares)
    stderr = None if macro_quality.stderr is None else macro_quality.stderr * macro_played / 100.0
    return Figure(macro_quality.mean * macro_played / 100.0, stderr, macro_quality.episodes)


def cell_figure(runs: list[Run], suite: Suite) -> tuple[Figure, list[Run]]:
    """The figure of one column's runs and the runs behind it, as the suite's
    `Overall.cell` says: the best run, the mean over tasks, or the pooled episodes."""
    if not runs:
        return NO_EPISODES, []
    if suite.overall.cell == BEST_RUN:
        metric = suite.primary_metric
        # Each run's value worked out once, for its rank and for the figure.
        best, value = min(((run, metric_value(run, metric)) for run in runs), key=lambda valued: rank_key_of(*valued))
        return Figure(value.mean, value.stderr, value.episodes), [best]
    if suite.overall.cell == MEAN_OVER_TASKS:
        return mean_over_tasks(runs, suite), runs
    if suite.overall.cell == CLEMSCORE:
        return clemscore_of(runs, suite), runs
    return pooled_runs(runs, suite), runs


def episodes_url(suite: Suite, runs: list[Run], script_prefix: str | None = None) -> str:
    """The episodes behind a figure: the run's page, or a list of the runs' episodes;
    `script_prefix` the request's (get_script_prefix()), when the caller has it: a board
    asks for hundreds of these."""
    if script_prefix is None:
        script_prefix = get_script_prefix()
    if len(runs) == 1:
        head, tail = _run_path(script_prefix)
        return f"{head}{runs[0].id}{tail}"
    ids = ",".join(str(pk) for pk in sorted(run.id for run in runs))
    return f"{_suite_episodes_path(suite.id, script_prefix)}?runs={ids}"


# A primary key no run has, to reverse the run page's address once.
_PLACEHOLDER_PK = 987654321987


@lru_cache(maxsize=8)
def _run_path(script_prefix: str) -> tuple[str, str]:
    # Run.get_absolute_url reversed once (per prefix) and split around the pk: a board
    # has hundreds of one-run cells.
    head, _, tail = reverse("leaderboard:run", args=[_PLACEHOLDER_PK]).partition(str(_PLACEHOLDER_PK))
    return head, tail


@lru_cache(maxsize=64)
def _suite_episodes_path(suite_id: str, script_prefix: str) -> str:
    # Reversed once per suite (and prefix) rather than for each of a board's hundreds of
    # cells; the address depends on nothing else.
    return reverse("leaderboard:suite-episodes", args=[suite_id])
