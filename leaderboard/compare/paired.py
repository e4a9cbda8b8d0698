"""Paired statistics on shared seeds: the same seed is the same game for every
submission (docs/design.md §3), so two runs of one task can be compared episode by episode.

The value compared is the per-episode value the suite's primary metric folds
(envs.suite.Metric), scaled as the leaderboard shows it, so a mean of paired
differences agrees with the difference of the leaderboard's means when every seed is
shared. An episode without a value (None) is missing, never a number.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from envs.suite import MEAN_OF_EPISODE_METRIC_OVER, Metric
from leaderboard.selectors.episodes import finished_values

# A fixed seed for the resampling, so a page shows the same interval on every visit.
BOOTSTRAP_SEED = 20240917
BOOTSTRAP_RESAMPLES = 10_000
# The leaderboard's marks are computed on hot pages: fewer resamples, and beyond this
# many index draws per interval the normal approximation (which the bootstrap agrees
# with at such sizes) replaces resampling.
MARK_RESAMPLES = 2_000
MAX_BOOTSTRAP_DRAWS = 4_000_000
# A task page computes one mark per pair of neighbours (16 for 17 ranked runs): its
# intervals resample up to 100 shared seeds, the normal approximation beyond (at 1,500
# seeds the resampling took 50 ms a pair on a 2-core machine, most of the page).
MARK_MAX_DRAWS = MARK_RESAMPLES * 100
# Index draws per numpy block: bounds the memory of one block of resamples.
BLOCK_DRAWS = 1_000_000
Z_95 = 1.959963984540054


@dataclasses.dataclass(frozen=True)
class EpisodeValue:
    episode_id: int
    value: float | None  # None: the episode has no value of the metric


def _number(value) -> float | None:
    if isinstance(value, bool | int | float) and not (isinstance(value, float) and math.isnan(value)):
        return float(value)
    return None


def episode_values(run_ids, metric: Metric) -> dict[int, dict[int, EpisodeValue]]:
    """Per run, per seed: the finished episode's value of `metric` (one query; only the
    metric's own keys of the episodes' metrics are read, never the whole JSON)."""
    fields = ["run_id", "id", "seed", "score"]
    if not metric.is_summed_reward:
        fields.append(f"metrics__{metric.episode_metric}")
    if metric.fold == MEAN_OF_EPISODE_METRIC_OVER:
        fields.append(f"metrics__{metric.over}")
    result: dict[int, dict[int, EpisodeValue]] = {}
    for row in finished_values(run_ids, fields):
        run_id, episode_id, seed, score = row[:4]
        if metric.is_summed_reward:
            value = _number(score)
        else:
            value = _number(row[4])
            if metric.fold == MEAN_OF_EPISODE_METRIC_OVER and not row[5]:
                value = None  # not one of the episodes the metric is averaged over
        if value is not None:
            value *= metric.scale
        # A run plays each seed once; should one repeat, its first episode counts.
        result.setdefault(run_id, {}).setdefault(seed, EpisodeValue(episode_id, value))
    return result


def bootstrap_interval(
    differences: list[float], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
    max_draws: int = MAX_BOOTSTRAP_DRAWS,
) -> tuple[float, float] | None:
    """Percentile bootstrap 95 % interval of the mean; None with fewer than two values
    (one difference says nothing about its spread)."""
    n = len(differences)
    if n < 2:
        return None
    values = np.asarray(differences, dtype=float)
    if n * resamples > max_draws:
        half = Z_95 * values.std(ddof=1) / math.sqrt(n)
        mean = float(values.mean())
        return mean - half, mean + half
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    block = max(1, BLOCK_DRAWS // n)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        means[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


@dataclasses.dataclass(frozen=True)
class SeedPair:
    seed: int
    a: EpisodeValue
    b: EpisodeValue

    @property
    def difference(self) -> float | None:
        if self.a.value is None or self.b.value is None:
            return None
        return self.a.value - self.b.value


@dataclasses.dataclass(frozen=True)
class Pairing:
    """Two runs of one task matched on the seeds both finished."""

    metric: Metric
    pairs: list[SeedPair]  # by seed
    only_a: int  # seeds only the first run finished
    only_b: int
    interval: tuple[float, float] | None

    @property
    def differences(self) -> list[float]:
        return [d for d in (p.difference for p in self.pairs) if d is not None]

    @property
    def missing(self) -> int:
        """Shared seeds where either episode has no value: not counted as numbers."""
        return sum(1 for p in self.pairs if p.difference is None)

    @property
    def mean_difference(self) -> float | None:
        values = self.differences
        return sum(values) / len(values) if values else None

    def outcome(self, difference: float | None) -> str:
        """"win" when the first run did better on the seed (in the metric's direction)."""
        if difference is None:
            return "missing"
        if difference == 0:
            return "tie"
        return "win" if (difference > 0) == self.metric.higher_is_better else "loss"

    @property
    def counts(self) -> dict[str, int]:
        counts = {"win": 0, "tie": 0, "loss": 0}
        for difference in self.differences:
            counts[self.outcome(difference)] += 1
        return counts

    @property
    def distinguishable(self) -> bool:
        return self.interval is not None and (self.interval[0] > 0 or self.interval[1] < 0)

    @property
    def better(self) -> str:
        """"a" or "b" when the interval excludes 0, else ""."""
        if not self.distinguishable:
            return ""
        return "a" if (self.interval[0] > 0) == self.metric.higher_is_better else "b"


def pair_runs(
    metric: Metric, a: dict[int, EpisodeValue], b: dict[int, EpisodeValue], *, resamples: int = BOOTSTRAP_RESAMPLES,
    max_draws: int = MAX_BOOTSTRAP_DRAWS, interval: bool = True,
) -> Pairing:
    """Pair two runs' episodes (seed → value, from `episode_values`) on shared seeds; with
    `interval` False, no bootstrap (the caller has the interval already)."""
    shared = sorted(set(a) & set(b))
    pairs = [SeedPair(seed, a[seed], b[seed]) for seed in shared]
    differences = [d for d in (p.difference for p in pairs) if d is not None]
    return Pairing(
        metric=metric, pairs=pairs, only_a=len(set(a) - set(b)), only_b=len(set(b) - set(a)),
        interval=bootstrap_interval(differences, resamples=resamples, max_draws=max_draws) if interval else None,
    )
