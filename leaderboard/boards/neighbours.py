"""Marks between neighbouring ranked rows of a leaderboard whose difference the data do
not support: a rank order is only as good as the evidence behind it.

Two runs that share at least two seeds with values are compared on those seeds (paired
percentile bootstrap of the mean difference, leaderboard.compare.paired); otherwise by their
means and standard errors (the difference within 1.96 combined standard errors, a
Welch-style normal test). Bounded for hot pages: one query for every ranked run's
episode values, and intervals only between neighbours, with MARK_RESAMPLES resamples
(the normal interval of the paired differences past MARK_MAX_DRAWS index draws).

The intervals are kept in Django's cache under a key made of the ranked runs' identity,
order and folded aggregates (episodes done, the score's and the primary metric's sums):
an episode finishing, a run hidden or re-ranked changes the key, so a page never shows
a mark of data it no longer lists, and between such changes no visitor pays for reading
every episode (1,500 per run cost a task page about 315 ms, bench/read_pages.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math

from django.core.cache import cache
from django.urls import reverse

from leaderboard.compare.paired import MARK_MAX_DRAWS, MARK_RESAMPLES, Z_95, episode_values, pair_runs

logger = logging.getLogger(__name__)

# Content-addressed keys are never stale; the timeout only lets unused ones go.
MARKS_CACHE_SECONDS = 24 * 3600
# Part of every key: a change of how marks are computed retires the old entries.
MARKS_CACHE_VERSION = f"1:{MARK_RESAMPLES}:{MARK_MAX_DRAWS}"


@dataclasses.dataclass(frozen=True)
class NeighbourMark:
    upper: object  # leaderboard.selectors.ranking.LeaderboardRow, ranked just above
    lower: object
    paired: bool  # compared on shared seeds
    shared_seeds: int
    low: float | None  # the 95 % interval of upper − lower (None: too few episodes)
    high: float | None

    @property
    def compare_url(self) -> str:
        """The paired comparison of the two submissions ("" for two runs of one)."""
        a, b = self.upper.run.submission_id, self.lower.run.submission_id
        return f"{reverse('leaderboard:compare-submissions')}?a={a}&b={b}" if a != b else ""

    @property
    def explanation(self) -> str:
        digits = self.upper.primary.metric.digits
        rank = self.upper.rank
        if self.low is None:
            return f"Not distinguishable from rank {rank}: too few episodes to estimate the spread of the difference."
        interval = f"[{self.low:.{digits}f}, {self.high:.{digits}f}]"
        if self.paired:
            how = f"on their {self.shared_seeds} shared seeds, the paired bootstrap 95 % interval of the difference is {interval}"
        else:
            how = f"they share fewer than two seeds; mean ± 1.96 combined standard errors gives {interval}"
        return f"Not distinguishable from rank {rank}: {how}, which contains 0."


def _unpaired(upper, lower) -> tuple[float | None, float | None]:
    a, b = upper.primary, lower.primary
    if a.stderr is None or b.stderr is None:
        return None, None
    half = Z_95 * math.sqrt(a.stderr**2 + b.stderr**2)
    return a.mean - b.mean - half, a.mean - b.mean + half


def indistinguishable_neighbours(rows) -> list[NeighbourMark]:
    """For each pair of consecutive ranked rows (baseline rows are skipped) whose
    primary metrics both have a value: a mark when their difference is not
    distinguishable from 0 at 95 %."""
    ranked = [row for row in rows if row.rank is not None and row.primary and row.primary.mean is not None]
    if len(ranked) < 2:
        return []
    key = _marks_key(ranked)
    found = _cached(key)
    if found is None:
        found = _neighbour_intervals(ranked)
        _keep(key, found)
    by_run = {row.run.pk: row for row in ranked}
    return [
        NeighbourMark(by_run[upper], by_run[lower], paired, shared, low, high)
        for upper, lower, paired, shared, low, high in found
    ]


def _cached(key: str):
    # The cache only saves work: a cache that cannot answer (Redis down, SQLite busy
    # with the workers' writes) costs the page its speed, never the page.
    try:
        return cache.get(key)
    except Exception:
        logger.warning("tie marks: the cache could not be read; computing them", exc_info=True)
        return None


def _keep(key: str, found) -> None:
    try:
        cache.set(key, found, MARKS_CACHE_SECONDS)
    except Exception:
        logger.warning("tie marks: the cache could not be written", exc_info=True)


def _marks_key(ranked) -> str:
    """The cache key of the marks between `ranked` rows: what the intervals depend on."""
    metric = ranked[0].primary.metric
    state = [
        [row.rank, row.run.pk, row.run.episodes_done, row.run.score_sum, row.run.score_sq_sum,
         row.run.metric_sums.get(metric.episode_metric), row.run.metric_sums.get(metric.over)]
        for row in ranked
    ]
    fingerprint = json.dumps([MARKS_CACHE_VERSION, metric.name, state], sort_keys=True, default=str)
    return "neighbour-marks:" + hashlib.sha256(fingerprint.encode()).hexdigest()


def _neighbour_intervals(ranked) -> list[tuple]:
    """(upper run id, lower run id, paired, shared seeds, low, high) of each mark,
    computed from every ranked run's episode values."""
    metric = ranked[0].primary.metric
    values = episode_values([row.run.pk for row in ranked], metric)
    found = []
    for upper, lower in zip(ranked, ranked[1:]):
        if lower.rank != upper.rank + 1:
            continue  # a row without a value sits between them
        pairing = pair_runs(metric, values.get(upper.run.pk, {}), values.get(lower.run.pk, {}),
                            resamples=MARK_RESAMPLES, max_draws=MARK_MAX_DRAWS)
        paired = len(pairing.differences) >= 2
        low, high = pairing.interval if paired else _unpaired(upper, lower)
        if low is None or low <= 0 <= high:
            found.append((upper.run.pk, lower.run.pk, paired, len(pairing.differences), low, high))
    return found


def mark_rows(rows) -> list:
    """Sets each lower row's `neighbour_mark` (for the leaderboard table) and returns
    the rows."""
    for mark in indistinguishable_neighbours(rows):
        mark.lower.neighbour_mark = mark
    return rows
