"""Which pairs play the next round: those whose result would teach the ratings the most
(docs/ratings.md, "Pair choice").

The criterion is the expected information one game gives about the difference d of the
two strengths, in the Laplace approximation: with the posterior of d approximately
normal with variance v (the inverse Hessian of the Bradley–Terry fit of all games so
far), and one game adding Fisher information p(1 − p) about d (p the predicted score of
the first), the entropy of d falls by ½·log(1 + p(1 − p)·v). It is largest for pairs
whose outcome is closest to a coin toss (p near ½) and whose difference is least known
(v large: few games between them, or none, or none linking their groups).

The round is then filled greedily: the pair with the largest gain first, then the best
pair among the players left, each player at most once. Equal gains (on a new arena,
every pair's) are ordered by a shuffle seeded by the game and the number of games
played, so a round is reproducible and two games do not start with the same pairs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterable

import numpy as np

from arena.matches.ratings.bradley_terry import fit_strengths, sigmoid, strength_covariance
from arena.matches.ratings.table import games_of


def pair_gains(players: list[Hashable], results: Iterable) -> dict[tuple[Hashable, Hashable], float]:
    """The expected information gain (nats) of one more game, for every pair of
    `players`; the fit uses every game of `results`, players outside `players` too."""
    games = games_of(results)
    everyone = list(dict.fromkeys([*players, *(g.first for g in games), *(g.second for g in games)]))
    index = {player: i for i, player in enumerate(everyone)}
    totals: dict[tuple[int, int], list[float]] = {}
    for game in games:
        a, b = index[game.first], index[game.second]
        low, high, points = (a, b, game.score) if a < b else (b, a, 1.0 - game.score)
        entry = totals.setdefault((low, high), [0.0, 0.0])
        entry[0] += 1.0
        entry[1] += points
    low = np.array([key[0] for key in totals], dtype=int)
    high = np.array([key[1] for key in totals], dtype=int)
    counts = np.array([value[0] for value in totals.values()])
    points = np.array([value[1] for value in totals.values()])
    strengths = fit_strengths(len(everyone), low, high, counts, points)
    covariance = strength_covariance(strengths, low, high, counts, points)
    gains = {}
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            x, y = index[a], index[b]
            p = float(sigmoid(strengths[x] - strengths[y]))
            variance = covariance[x, x] + covariance[y, y] - 2 * covariance[x, y]
            gains[(a, b)] = 0.5 * math.log1p(p * (1 - p) * variance)
    return gains


def pairs_for_round(
    game: str, players: Iterable[Hashable], results: Iterable, allowed=None,
) -> list[tuple[Hashable, Hashable]]:
    """The pairs of `players` (submission ids) to play `game` next, best first: each
    player in at most one pair, never a player against itself; with an odd number of
    players one sits out. `results` are the game's finished games so far (Match rows,
    or (first, second, first's score) triples). Who takes the first seat is the
    caller's choice: the pairs carry no colour. `allowed(a, b)`, when given, says which
    pairs may be chosen (the continuous scheduler leaves out pairs already playing, or
    that have played enough)."""
    players = list(dict.fromkeys(players))
    results = games_of(results)
    if len(players) < 2:
        return []
    gains = pair_gains(players, results)
    shuffle = random.Random(f"{game}:{len(results)}")
    tie_break = {pair: shuffle.random() for pair in sorted(gains, key=repr)}
    # Gains equal up to rounding are equal: the shuffle, not float noise, orders them.
    ranked = sorted(gains, key=lambda pair: (-round(gains[pair], 12), tie_break[pair]))
    chosen, busy = [], set()
    for a, b in ranked:
        if a not in busy and b not in busy and (allowed is None or allowed(a, b)):
            chosen.append((a, b))
            busy.update((a, b))
    return chosen
