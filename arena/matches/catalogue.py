"""The head-to-head games as data apart from the games themselves: what the match list,
the match page, its live channel and the rating pages need to know of a game (its title,
the seats' names, the board the replay draws) and the illegal-move rule every match is
played under. The rules of play live in arena.matches.games, which loads PettingZoo and
the engines; keeping these rows here keeps the engines out of the web processes."""

from __future__ import annotations

import dataclasses

# Answers a seat may give to one move: each illegal one is answered with feedback and
# asked again; after the last, the seat forfeits (the rule of Kaggle's Game Arena).
MAX_ATTEMPTS = 3


@dataclasses.dataclass(frozen=True)
class GameSpec:
    slug: str
    title: str
    # The seat names a reader sees, and the model is told which it plays.
    seat_names: tuple[str, str]
    # The episode player's renderer that draws the board (static/js/renderers/).
    renderer: str


GAME_SPECS: dict[str, GameSpec] = {
    spec.slug: spec
    for spec in (
        GameSpec("chess", "Chess", ("White", "Black"), "chess"),
        GameSpec("tictactoe", "Tic-tac-toe", ("X", "O"), "tictactoe"),
        GameSpec("connect_four", "Connect Four", ("X", "O"), "connect_four"),
    )
}

GAME_TITLES: dict[str, str] = {slug: spec.title for slug, spec in GAME_SPECS.items()}
