"""The head-to-head games' names by slug, as data apart from the games themselves (their
rules live in arena.matches.games, which loads PettingZoo): one table for the games,
the rating pages and the match list."""

GAME_TITLES: dict[str, str] = {
    "chess": "Chess",
    "tictactoe": "Tic-tac-toe",
    "connect_four": "Connect Four",
}
