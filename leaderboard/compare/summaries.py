"""The figures of one game of a paired comparison (leaderboard.compare.submissions), kept
in Django's cache under a key made of the two runs' identity and folded aggregates.

A game's summary (seeds shared, paired, missing and unpaired; the mean difference, its
percentile bootstrap 95 % interval and the wins, ties and losses) depends only on the two
runs' finished episodes, and any change to those (an episode finishing, a run re-folded)
changes the runs' aggregates, hence the key: a page never shows the figures of episodes it
no longer has. Between such changes no visitor pays for the bootstrap, which resamples
10,000 times per game: two submissions that played every task share 59 games, some 700 ms
of CPU on a 2-core machine at 10^5 episodes (bench/read_pages.py), most of the page.

Nor after a change, for the pairs someone compared: each game computed here is noted
under both runs (`compared_pairs`), and when an episode of either run finishes the write
side's announcement has the game computed again and kept (leaderboard.compare.refresh),
so the next visit finds it. A pair never compared is computed on its first visit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging

from django.core.cache import cache

from arena.models import Run
from envs.suite import Metric
from leaderboard.compare.paired import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Pairing, episode_values, pair_runs

logger = logging.getLogger(__name__)

# Content-addressed keys are never stale; the timeout only lets unused ones go.
SUMMARY_CACHE_SECONDS = 7 * 24 * 3600
# Part of every key: a change of how the figures are computed retires the old entries.
SUMMARY_CACHE_VERSION = f"1:{BOOTSTRAP_RESAMPLES}:{BOOTSTRAP_SEED}"


@dataclasses.dataclass(frozen=True)
class GameSummary:
    """What the comparison's summary table shows of one game."""

    higher_is_better: bool
    shared_seeds: int
    paired: int  # shared seeds where both episodes have a value
    missing: int  # shared seeds where either episode has none
    only_a: int
    only_b: int
    mean_difference: float | None
    interval: tuple[float, float] | None
    win: int
    tie: int
    loss: int

    @property
    def counts(self) -> dict[str, int]:
        return {"win": self.win, "tie": self.tie, "loss": self.loss}

    @property
    def better(self) -> str:
        """"a" or "b" when the interval excludes 0, else ""."""
        if self.interval is None or self.interval[0] <= 0 <= self.interval[1]:
            return ""
        return "a" if (self.interval[0] > 0) == self.higher_is_better else "b"


def summary_of(pairing: Pairing) -> GameSummary:
    counts = pairing.counts
    return GameSummary(
        higher_is_better=pairing.metric.higher_is_better, shared_seeds=len(pairing.pairs),
        paired=len(pairing.differences), missing=pairing.missing, only_a=pairing.only_a, only_b=pairing.only_b,
        mean_difference=pairing.mean_difference, interval=pairing.interval, **counts,
    )


def game_summaries(games: list[tuple[Metric, Run, Run]]) -> list[GameSummary]:
    """The summary of each (metric, run of a, run of b), from the cache where it holds
    one; the others computed (one query per metric for all of them) and kept."""
    keys = [_summary_key(metric, a_run, b_run) for metric, a_run, b_run in games]
    pairs = [(a_run.pk, b_run.pk) for _, a_run, b_run in games]
    pair_keys = sorted({_pairs_key(run_id) for pair in pairs for run_id in pair})
    found = _cached(keys + pair_keys)  # one read for the figures and the pairs noted
    missed: dict[str, list[int]] = {}
    for position, key in enumerate(keys):
        if key not in found:
            missed.setdefault(games[position][0].name, []).append(position)
    computed = {}
    for positions in missed.values():
        metric = games[positions[0]][0]
        values = episode_values([run.pk for position in positions for run in games[position][1:]], metric)
        for position in positions:
            _, a_run, b_run = games[position]
            pairing = pair_runs(metric, values.get(a_run.pk, {}), values.get(b_run.pk, {}))
            computed[keys[position]] = summary_of(pairing)
    _keep({**computed, **_noted(pairs, found)})
    return [found.get(key) or computed[key] for key in keys]


# How many compared pairs each run keeps for the write side to recompute: each costs the
# worker a bootstrap (some 10 ms at 100 seeds) at every episode of the run that ends.
PAIRS_NOTED_PER_RUN = 4


def _pairs_key(run_id: int) -> str:
    return f"paired-pairs-of-run:{run_id}"


def compared_pairs(run_id: int) -> list[tuple[int, int]]:
    """The (run of a, run of b) games someone compared that `run_id` is part of, the
    latest first."""
    return [tuple(pair) for pair in _cached([_pairs_key(run_id)]).get(_pairs_key(run_id), [])]


def _noted(pairs: list[tuple[int, int]], found: dict) -> dict:
    """The runs' lists of compared pairs (`found` holds those kept) that lack one of
    `pairs`, with it put first and the oldest beyond PAIRS_NOTED_PER_RUN let go: what to
    keep. Two processes noting at once may lose one's note: that pair is then noted on
    its next visit."""
    changed: dict[str, list] = {}
    for pair in pairs:
        for run_id in pair:
            key = _pairs_key(run_id)
            known = changed.get(key, found.get(key, []))
            if list(pair) not in known:
                changed[key] = [list(pair), *known][:PAIRS_NOTED_PER_RUN]
    return changed


def _summary_key(metric: Metric, a_run: Run, b_run: Run) -> str:
    """The cache key of a game's summary: what its figures depend on."""
    state = [
        [run.pk, run.episodes_done, run.score_sum, run.score_sq_sum, run.metric_sums.get(metric.episode_metric),
         run.metric_sums.get(metric.over)]
        for run in (a_run, b_run)
    ]
    fingerprint = json.dumps([SUMMARY_CACHE_VERSION, metric.name, metric.scale, state], sort_keys=True, default=str)
    return "paired-game:" + hashlib.sha256(fingerprint.encode()).hexdigest()


def _cached(keys: list[str]) -> dict:
    # The cache only saves work: a cache that cannot answer (Redis down, SQLite busy with
    # the workers' writes) costs the page its speed, never the page.
    try:
        return cache.get_many(keys)
    except Exception:
        logger.warning("paired comparison: the cache could not be read; computing the figures", exc_info=True)
        return {}


def _keep(summaries: dict) -> None:
    if not summaries:
        return
    try:
        cache.set_many(summaries, SUMMARY_CACHE_SECONDS)
    except Exception:
        logger.warning("paired comparison: the cache could not be written", exc_info=True)
