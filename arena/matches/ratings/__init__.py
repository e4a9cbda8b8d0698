"""Ratings of head-to-head play (docs/ratings.md): Bradley–Terry on Elo's scale anchored
on the random player, with bootstrap intervals (`rate`), and the choice of the next
round's pairs (`pairs_for_round`). Pure computation over finished games; the read side
(leaderboard.boards.ratings) and the scheduler read the games and call these."""

from arena.matches.ratings.pairing import pair_gains, pairs_for_round
from arena.matches.ratings.table import ANCHOR_RATING, Game, PlayerRating, Ratings, Record, games_of, rate

__all__ = [
    "ANCHOR_RATING", "Game", "PlayerRating", "Ratings", "Record", "games_of", "pair_gains", "pairs_for_round", "rate",
]
