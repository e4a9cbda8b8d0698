"""leaderboard.boards.cells.pooled_runs adds the runs' sums up without a dictionary per
run: its figures are the ones sample_pooled and pooled_figure give for the runs'
run_sums, to the last bit, for every kind of metric and both standard errors."""

from types import SimpleNamespace

import pytest

from arena.models import Run
from envs.balrog.catalog import pooled_figure
from envs.suite import MEAN_OF_EPISODE_METRIC, MEAN_OF_EPISODE_METRIC_OVER, MEAN_SUMMED_REWARD, Metric
from leaderboard.boards.cells import pooled_runs, run_sums, sample_pooled

METRICS = [
    Metric("score", "Score", True, MEAN_SUMMED_REWARD),
    Metric("progress", "Progress", True, MEAN_OF_EPISODE_METRIC, episode_metric="progress", scale=100.0, unit=" %"),
    Metric("steps", "Steps", False, MEAN_OF_EPISODE_METRIC_OVER, episode_metric="steps", over="reached"),
]


def _run(index: int) -> Run:
    # Sums with rounding in them, a run without the metric, strings and floats where
    # older rows hold them, and a run of one episode.
    sums = {
        "progress": {"n": 3 + index, "sum": 0.1 * index + 0.2, "sumsq": 0.3 / (index + 1), "missing": index % 2},
        "steps": {"n": 2, "sum": 7.0 + index / 3, "sumsq": 41.0 + index},
        "reached": {"n": 4, "sum": float(index % 3)},
    }
    if index == 2:
        sums = {}
    if index == 3:
        sums["progress"]["n"] = "5"
    return Run(id=index + 1, episodes_done=index % 4, score_sum=1.5 * index + 0.1, score_sq_sum=2.25 * index + 0.3,
               metric_sums=sums)


@pytest.mark.parametrize("population", [False, True])
@pytest.mark.parametrize("metric", METRICS, ids=lambda metric: metric.name)
@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_the_pooled_figure_is_the_one_of_the_runs_sums(metric, population, count):
    suite = SimpleNamespace(primary_metric=metric, overall=SimpleNamespace(population_stderr=population))
    runs = [_run(index) for index in range(count)]
    entries = [run_sums(run, metric) for run in runs]
    if population:
        figure = pooled_figure(entries)
        expected = (figure.mean, figure.stderr, figure.episodes)
        if figure.mean is not None:
            stderr = None if figure.stderr is None else figure.stderr * metric.scale
            expected = (figure.mean * metric.scale, stderr, figure.episodes)
    else:
        figure = sample_pooled(entries, metric.scale)
        expected = (figure.mean, figure.stderr, figure.episodes)
    pooled = pooled_runs(runs, suite)
    assert repr((pooled.mean, pooled.stderr, pooled.episodes)) == repr(expected)
