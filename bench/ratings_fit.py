"""What a head-to-head rating costs (docs/ratings.md): one Bradley–Terry fit with its
bootstrap, for arenas of growing size, against the same bootstrap fitted one resample
at a time (the baseline: the straightforward loop the batched Newton replaces).

Each arena has `players` scripted players of spread-out strengths (the first one is the
anchor) and `games` games between random pairs, drawn with a seeded generator. Printed
per arena: the CPU seconds (time.process_time) of `rate` with 1000 resamples, of the
loop over the same resamples, their ratio, and of `pairs_for_round` over every player.

    nice .venv/bin/python bench/ratings_fit.py [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.matches.ratings import pairs_for_round, rate  # noqa: E402
from arena.matches.ratings.bradley_terry import fit_strengths  # noqa: E402

ARENAS = ((5, 400), (10, 2000), (20, 5000), (40, 10000))


def scripted_games(players: int, games: int, seed: int = 0) -> list[tuple[int, int, float]]:
    rng = np.random.default_rng(seed)
    truth = np.linspace(0.0, 3.0, players)  # log-odds: the strongest 520 Elo points above the anchor
    found = []
    for _ in range(games):
        a, b = rng.choice(players, 2, replace=False)
        expected = 1 / (1 + np.exp(truth[b] - truth[a]))
        found.append((int(a), int(b), float(rng.random() < expected)))
    return found


def looped_bootstrap(games, players: int, resamples: int) -> None:
    """The same fits, one resample after another."""
    first = np.array([g[0] for g in games])
    second = np.array([g[1] for g in games])
    score = np.array([g[2] for g in games])
    rng = np.random.default_rng(0)
    for _ in range(resamples):
        drawn = rng.integers(0, len(games), len(games))
        counts, points = {}, {}
        for a, b, s in zip(first[drawn], second[drawn], score[drawn]):
            low, high, low_points = (a, b, s) if a < b else (b, a, 1 - s)
            counts[(low, high)] = counts.get((low, high), 0) + 1
            points[(low, high)] = points.get((low, high), 0) + low_points
        keys = list(counts)
        fit_strengths(players, np.array([k[0] for k in keys]), np.array([k[1] for k in keys]),
                      np.array([counts[k] for k in keys], dtype=float), np.array([points[k] for k in keys]))


def cpu(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}; resamples: {args.resamples}")
    print(f"{'players':>7} {'games':>6} {'rate (s CPU)':>13} {'loop (s CPU)':>13} {'loop/rate':>9} {'pairs (s CPU)':>14}")
    for players, count in ARENAS:
        games = scripted_games(players, count)
        batched = cpu(lambda: rate(games, anchor=0, resamples=args.resamples, seed="bench"))
        looped = cpu(lambda: looped_bootstrap(games, players, args.resamples))
        pairing = cpu(lambda: pairs_for_round("bench", list(range(players)), games))
        print(f"{players:>7} {count:>6} {batched:>13.3f} {looped:>13.3f} {looped / batched:>9.1f} {pairing:>14.4f}")


if __name__ == "__main__":
    main()
