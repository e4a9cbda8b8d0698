"""Read side of the head-to-head ratings (/ratings/, /ratings/<game>/, /api/ratings/):
per game, and over all games at once, the Bradley–Terry ratings of arena.matches.ratings
from the finished matches, with the submissions they belong to, their records and the
pairwise score matrix (docs/ratings.md).

The rating pages are per game first. The overall rating ("all games") is one
Bradley–Terry fit over the matches of every game together, one strength per submission,
as if it were the same player in every game; so it is only over the players who have
played every game (and their matches with each other): a Stockfish that plays chess
alone is no rival of a model over all games. The scale is anchored on the random
baseline, which plays every game.

A fit with its 1000 bootstrap resamples costs tens of milliseconds; it is kept per set
of finished matches (in the process's memory), so a page read twice between two matches
fits once.
"""

from __future__ import annotations

import dataclasses
import functools

from django.urls import reverse

from arena.matches.catalogue import GAME_TITLES
from arena.matches.ratings import ANCHOR_RATING, PlayerRating, Ratings, Record, rate
from arena.models import Submission
from leaderboard.selectors.matches import baseline_id_of_policy, baseline_of_policy, finished_results, games_played, head_to_head_entrants
from leaderboard.selectors.submissions import submissions_by_id

# The two-player games of head-to-head play, by slug, as Match.game names them.
GAMES = GAME_TITLES  # slug -> title, from the head-to-head catalogue
ALL_GAMES = "all"  # the overall rating's key in URLs, the API and the downloads
ANCHOR_POLICY = "random"
ANCHOR_TITLE = "the random player"
FITS_KEPT = 16


@dataclasses.dataclass
class RatingRow:
    submission: Submission
    entry: PlayerRating

    @property
    def record(self) -> Record:
        return self.entry.record


@dataclasses.dataclass
class MatrixRow:
    row: RatingRow
    # One per column of the board (its rows, same order): the row's record against it,
    # None where they never met or on the diagonal.
    cells: list[Record | None]


@dataclasses.dataclass
class RatingBoard:
    game: str  # a slug of GAMES, or ALL_GAMES
    title: str
    anchor: Submission | None
    anchor_rating: float
    ratings: Ratings | None  # None without an anchor to rate against
    rows: list[RatingRow]  # the rated ones by rating, then the others
    # All games only: how many players are left out for not having played every game.
    left_out: int = 0

    @property
    def rated_rows(self) -> list[RatingRow]:
        return [row for row in self.rows if row.entry.rated]

    @property
    def unrated_rows(self) -> list[RatingRow]:
        return [row for row in self.rows if not row.entry.rated]

    @property
    def games(self) -> int:
        return self.ratings.games if self.ratings else 0

    @property
    def resamples(self) -> int:
        return self.ratings.resamples if self.ratings else 0

    @property
    def matrix(self) -> list[MatrixRow]:
        """Each listed submission that played, against each: its score against the other."""
        played = [row for row in self.rows if row.record.games]
        pairs = self.ratings.pairs if self.ratings else {}
        return [
            MatrixRow(row, [pairs.get((row.submission.pk, other.submission.pk)) for other in played])
            for row in played
        ]

    def of(self, submission_id: int) -> RatingRow | None:
        return next((row for row in self.rows if row.submission.pk == submission_id), None)


def game_title(game: str) -> str:
    """"Chess", …; "All games" for ALL_GAMES; a game the table does not name, by its slug."""
    return "All games" if game == ALL_GAMES else GAMES.get(game, game)


def rated_games() -> list[str]:
    """The games of the rating pages: the arena's, and any other a finished match names."""
    return list(dict.fromkeys([*GAMES, *games_played()]))


def all_games_results() -> tuple[tuple, frozenset, int]:
    """The matches of the overall fit: every game's, between players who have each played
    every game of the arena; those players; how many others played some game only."""
    per_game = [finished_results(game) for game in GAMES]
    players_of = [{player for result in results for player in result[:2]} for results in per_game]
    everyone = frozenset(set.intersection(*players_of)) if players_of else frozenset()
    results = tuple(
        result for results in per_game for result in results if result[0] in everyone and result[1] in everyone
    )
    return results, everyone, len(set().union(*players_of) - everyone)


def board(game: str) -> RatingBoard:
    """The ratings of one game (a slug of rated_games()) or of all (ALL_GAMES)."""
    title = game_title(game)
    anchor = baseline_of_policy(ANCHOR_POLICY)
    entrants = tuple(entrant.pk for entrant in head_to_head_entrants())
    left_out = 0
    if game == ALL_GAMES:
        results, everyone, left_out = all_games_results()
        # An opted-in model listed before its first match only until it has played some
        # game and not yet every one.
        played = {player for result in finished_results() for player in result[:2]}
        entrants = tuple(pk for pk in entrants if pk in everyone or pk not in played)
    else:
        results = tuple(finished_results(game))
    if anchor is None:
        return RatingBoard(game, title, None, ANCHOR_RATING, None, [])
    ratings = _fitted(results, anchor.pk, entrants, game)
    submissions = submissions_by_id([entry.player for entry in ratings.players])
    rows = [RatingRow(submissions[entry.player], entry) for entry in ratings.players if entry.player in submissions]
    return RatingBoard(game, title, anchor, ratings.anchor_rating, ratings, rows, left_out)


@functools.lru_cache(maxsize=FITS_KEPT)
def _fitted(results: tuple, anchor_id: int, entrant_ids: tuple, seed: str) -> Ratings:
    # The bootstrap is seeded by the game: the same matches always give the same page.
    return rate(results, anchor=anchor_id, players=entrant_ids, seed=seed)


def overall_ratings() -> dict[int, PlayerRating]:
    """Each rated submission's rating over all games, by submission id (for the overall
    leaderboard's column); empty before the first finished match."""
    # The matches first: without any, the anchor is not read (every front page asks).
    results, _everyone, _left_out = all_games_results()
    if not results:
        return {}
    anchor_id = baseline_id_of_policy(ANCHOR_POLICY)
    if anchor_id is None:
        return {}
    ratings = _fitted(results, anchor_id, (), ALL_GAMES)
    return {entry.player: entry for entry in ratings.rated}


def default_game() -> str:
    """The game /ratings/ shows: the first of the arena's."""
    return next(iter(GAMES))


def page_url(game: str) -> str:
    return reverse("leaderboard:ratings-game", args=[game])


def method_url() -> str:
    return reverse("leaderboard:ratings-method")
