"""Ratings of the players of a set of finished games: Bradley–Terry strengths on Elo's
scale anchored on one player, bootstrap 95 % intervals, records and the pairwise score
matrix (docs/ratings.md). Pure computation: the caller reads the games.

A game is (first, second, score): two player keys (submission ids) and the first seat's
score, 1 for a win, ½ for a draw, 0 for a loss.

Only the players whose games connect them to the anchor, directly or through others, are
rated: the games say nothing about how anyone else compares with the anchor, so the
others are listed without a rating, not given one the prior made up.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Hashable, Iterable

import numpy as np

from arena.matches.ratings.bradley_terry import ELO_PER_NATURAL_UNIT, fit_strengths

ANCHOR_RATING = 1000.0  # the anchor's rating, fixed (the random player's by default)
BOOTSTRAP_RESAMPLES = 1000
INTERVAL = (2.5, 97.5)  # percentiles of the bootstrap: a 95 % interval
GAME_SCORES = (0.0, 0.5, 1.0)


@dataclasses.dataclass(frozen=True)
class Game:
    first: Hashable
    second: Hashable
    score: float  # the first seat's: 1, 0.5 or 0


def games_of(results: Iterable) -> list[Game]:
    """`results` as Games: each a Game, a finished Match (first_id, second_id, result)
    or a (first, second, score) triple. ValueError names the first one that is not a
    game between two players with a game score."""
    found = []
    for item in results:
        if isinstance(item, Game):
            game = item
        elif hasattr(item, "first_id") and hasattr(item, "result"):
            game = Game(item.first_id, item.second_id, item.result)
        else:
            first, second, score = item
            game = Game(first, second, score)
        if game.first == game.second:
            raise ValueError(f"a game of {game.first!r} against itself")
        if game.score is None or float(game.score) not in GAME_SCORES:
            raise ValueError(f"score {game.score!r} of {game.first!r} against {game.second!r} is not 1, 0.5 or 0")
        found.append(Game(game.first, game.second, float(game.score)))
    return found


@dataclasses.dataclass
class Record:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score_rate(self) -> float | None:
        return self.points / self.games if self.games else None

    def add(self, score: float) -> None:
        self.games += 1
        if score == 1.0:
            self.wins += 1
        elif score == 0.5:
            self.draws += 1
        else:
            self.losses += 1


@dataclasses.dataclass
class PlayerRating:
    player: Hashable
    record: Record
    # On Elo's scale, the anchor at `Ratings.anchor_rating`; None when not rated.
    rating: float | None = None
    low: float | None = None  # the bootstrap interval
    high: float | None = None
    rank: int | None = None
    # The rank range: the 2.5th and 97.5th percentiles of the player's rank among the
    # rated over the bootstrap resamples (its best and worst plausible rank).
    rank_best: int | None = None
    rank_worst: int | None = None

    @property
    def rated(self) -> bool:
        return self.rating is not None

    @property
    def unbeaten_or_winless(self) -> bool:
        """Won every game or lost every game: the likelihood alone would put this player
        at ±infinity; its rating is where the prior holds it (docs/ratings.md)."""
        return self.record.games > 0 and self.record.points in (0.0, float(self.record.games))


@dataclasses.dataclass
class Ratings:
    anchor: Hashable
    anchor_rating: float
    players: list[PlayerRating]  # the rated ones by rating (highest first), then the others
    # (a, b) → a's record against b, for every pair that met.
    pairs: dict[tuple[Hashable, Hashable], Record]
    games: int
    resamples: int

    @property
    def anchor_played(self) -> bool:
        return any(p.player == self.anchor and p.record.games for p in self.players)

    @property
    def rated(self) -> list[PlayerRating]:
        return [p for p in self.players if p.rated]

    @property
    def unrated(self) -> list[PlayerRating]:
        return [p for p in self.players if not p.rated]

    def of(self, player: Hashable) -> PlayerRating | None:
        return next((p for p in self.players if p.player == player), None)


def connected_to(start: Hashable, games: list[Game]) -> set:
    """The players whose games connect them to `start` (start included, if it played)."""
    neighbours: dict[Hashable, set] = {}
    for game in games:
        neighbours.setdefault(game.first, set()).add(game.second)
        neighbours.setdefault(game.second, set()).add(game.first)
    if start not in neighbours:
        return set()
    seen, frontier = {start}, [start]
    while frontier:
        for other in neighbours[frontier.pop()]:
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    return seen


def _records(games: list[Game], players: Iterable[Hashable]):
    records = {player: Record() for player in players}
    pairs: dict[tuple, Record] = {}
    for game in games:
        records.setdefault(game.first, Record()).add(game.score)
        records.setdefault(game.second, Record()).add(1.0 - game.score)
        pairs.setdefault((game.first, game.second), Record()).add(game.score)
        pairs.setdefault((game.second, game.first), Record()).add(1.0 - game.score)
    return records, pairs


def rate(
    results: Iterable,
    anchor: Hashable,
    players: Iterable[Hashable] = (),
    anchor_rating: float = ANCHOR_RATING,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int | str = 0,
) -> Ratings:
    """Ratings from finished games (see games_of for what `results` may hold), anchored
    so that `anchor` has `anchor_rating`. `players` adds players without games (listed,
    unrated). The bootstrap resamples the games `resamples` times with a generator seeded
    by `seed`: the same games always give the same intervals."""
    games = games_of(results)
    records, pairs = _records(games, players)
    rated = sorted(connected_to(anchor, games), key=_order_key)
    by_player = {player: PlayerRating(player, record) for player, record in records.items()}
    rank_ranges = None
    if len(rated) >= 2:
        estimate, low, high, rank_ranges = _fit_with_intervals(games, rated, anchor, resamples, seed)
        for index, player in enumerate(rated):
            entry = by_player[player]
            entry.rating = anchor_rating + float(estimate[index])
            entry.low, entry.high = anchor_rating + float(low[index]), anchor_rating + float(high[index])
    # The rated by rating; the others by how much they played.
    ordered = sorted(by_player.values(), key=lambda p: (
        not p.rated, -(p.rating or 0.0), -p.record.games, _order_key(p.player),
    ))
    for rank, entry in enumerate((p for p in ordered if p.rated), start=1):
        entry.rank = rank
        ranks = (rank, rank) if rank_ranges is None else rank_ranges[rated.index(entry.player)]
        entry.rank_best, entry.rank_worst = ranks
    return Ratings(anchor, anchor_rating, ordered, pairs, len(games), resamples if len(rated) >= 2 else 0)


def _order_key(player: Hashable):
    return (str(type(player)), str(player))


def _fit_with_intervals(games: list[Game], players: list, anchor, resamples: int, seed):
    """The anchored Elo-scale estimates of `players` and their bootstrap percentiles."""
    index = {player: i for i, player in enumerate(players)}
    counted = [game for game in games if game.first in index]  # the anchor's component only
    first = np.array([index[g.first] for g in counted])
    second = np.array([index[g.second] for g in counted])
    score = np.array([g.score for g in counted])
    low_player, high_player = np.minimum(first, second), np.maximum(first, second)
    low_points = np.where(first < second, score, 1.0 - score)  # the lower-index player's
    pair_keys, pair_of_game = np.unique(low_player * len(players) + high_player, return_inverse=True)
    low, high = pair_keys // len(players), pair_keys % len(players)
    anchor_index = index[anchor]

    def anchored(strengths):
        return ELO_PER_NATURAL_UNIT * (strengths - strengths[..., anchor_index, None])

    # Resampling the games with replacement is drawing, for each kind of game (a pair and
    # the lower-index player's points: at most three kinds per pair), how many of it the
    # resample holds: a multinomial over the kinds, in proportion to how often each
    # happened. The cost is then per kind, not per game.
    kind_keys, kind_counts = np.unique(pair_of_game * 3 + np.rint(2 * low_points).astype(int), return_counts=True)
    kind_pair, kind_points = kind_keys // 3, (kind_keys % 3) / 2.0
    starts = np.searchsorted(kind_pair, np.arange(len(low)))  # every pair has a kind: the kinds are sorted by pair

    def per_pair(counts):
        return np.add.reduceat(counts, starts, axis=-1), np.add.reduceat(counts * kind_points, starts, axis=-1)

    estimate = anchored(fit_strengths(len(players), low, high, *per_pair(kind_counts.astype(float))))
    if resamples <= 0:
        return estimate, estimate, estimate, None
    generator = np.random.default_rng(_seed(seed))
    drawn = generator.multinomial(len(counted), kind_counts / len(counted), size=resamples).astype(float)
    boot = anchored(fit_strengths(len(players), low, high, *per_pair(drawn)))
    lower, upper = np.percentile(boot, INTERVAL, axis=0)
    return estimate, lower, upper, _rank_ranges(boot)


def _rank_ranges(boot: np.ndarray) -> list[tuple[int, int]]:
    """Each player's (best, worst) rank: the percentiles INTERVAL of its rank over the
    resamples, a rank being 1 + the number of players rated strictly higher in that
    resample (ties share the better rank)."""
    ranks = 1 + (boot[:, None, :] > boot[:, :, None]).sum(axis=2)  # [resample, player]
    best = np.percentile(ranks, INTERVAL[0], axis=0, method="lower")
    worst = np.percentile(ranks, INTERVAL[1], axis=0, method="higher")
    return [(int(b), int(w)) for b, w in zip(best, worst)]


def _seed(seed: int | str) -> int:
    return seed if isinstance(seed, int) else zlib.crc32(seed.encode())
