"""The head-to-head games: PettingZoo's classic two-player environments, wrapped.

The rules are PettingZoo's (chess_v6 over python-chess, tictactoe_v3, connect_four_v3):
every move, the opening plies included, goes through the environment's `step`, the
legal moves come from its action mask and the result from its rewards. This module only
translates: an action index to the text a model answers ("Nf3", "b2", "4") and back,
and the board to the text a model is shown, in LMAct's layouts (envs.lmact).

Seat 0 is the player who moves first in the game (White, X, the first Connect Four
player): a match's `first` submission. The opening plies are shared: both games of a
pair start from the same position, one with each submission in seat 0.
"""

from __future__ import annotations

import abc
import dataclasses
import random
from importlib.metadata import version

import chess
from pettingzoo.classic import chess_v6, connect_four_v3, tictactoe_v3
from pettingzoo.classic.chess import chess_utils

from arena.matches.catalogue import GAME_SPECS
from envs.lmact import chess as lmact_chess
from envs.lmact import tictactoe as lmact_tictactoe
# Stored on every match (Match.harness_version): the room's protocol and the rules' package.
HARNESS_VERSION = f"h2h-1 (PettingZoo {version('pettingzoo')})"


@dataclasses.dataclass(frozen=True)
class Ending:
    """A finished game: the first seat's score (1, 0.5, 0) and why it ended."""

    first_score: float
    reason: str


class TwoPlayerGame(abc.ABC):
    """One game in progress on a PettingZoo AEC environment."""

    slug = ""
    title = ""
    # The seat names a reader sees, and the model is told which it plays.
    seat_names = ("first", "second")
    # A game still going after this many plies (opening excluded) is a draw.
    max_plies = 0
    # The episode player's renderer that draws the board (static/js/renderers/).
    renderer = "text"

    def __init__(self):
        self.env = self._make_env()
        self.env.reset()
        self.plies = 0
        self.opening_moves: list[str] = []
        self.opening_name = ""

    # -- what subclasses provide ---------------------------------------------------
    @abc.abstractmethod
    def _make_env(self):
        ...

    @abc.abstractmethod
    def _move_text(self, action: int) -> str:
        ...

    @abc.abstractmethod
    def observation(self, seat: int) -> str:
        """The board as the model in `seat` is shown it."""
        ...

    @abc.abstractmethod
    def position_text(self) -> str:
        """The position after the latest move, as stored with it (FEN for chess)."""
        ...

    @abc.abstractmethod
    def _opening_actions(self, seed: int):
        """The opening's action indices, each read after the previous one is played."""
        ...

    @abc.abstractmethod
    def answer_hint(self) -> str:
        """What a legal answer looks like, for the feedback after an illegal one."""
        ...

    def draw_reason(self) -> str:
        return "draw"

    # -- shared ------------------------------------------------------------------
    @property
    def seat_to_move(self) -> int:
        return self.env.possible_agents.index(self.env.agent_selection)

    def _legal_actions(self) -> list[int]:
        mask = self.env.observe(self.env.agent_selection)["action_mask"]
        return [int(action) for action in mask.nonzero()[0]]

    def legal_moves(self) -> dict[str, int]:
        """Each legal move's text, mapped to its action index, in a stable order."""
        return dict(sorted((self._move_text(action), action) for action in self._legal_actions()))

    def play(self, move_text: str) -> None:
        """Play a legal move (its text as `legal_moves` writes it)."""
        self.env.step(self.legal_moves()[move_text])
        self.plies += 1

    def start(self, seed: int) -> None:
        """Play the seed's opening plies (shared by both games of a pair)."""
        for action in self._opening_actions(seed):
            self.opening_moves.append(self._move_text(action))
            self.env.step(action)
        if self.ending() is not None:
            raise ValueError(f"the opening of seed {seed} already ends the game")

    def ending(self) -> Ending | None:
        """The result once the environment has ended the game (or the ply limit has)."""
        if all(self.env.terminations.values()):
            reward = self.env.unwrapped.rewards[self.env.possible_agents[0]]
            if reward > 0:
                return Ending(1.0, f"{self.seat_names[0]} wins")
            if reward < 0:
                return Ending(0.0, f"{self.seat_names[1]} wins")
            return Ending(0.5, self.draw_reason())
        if self.max_plies and self.plies >= self.max_plies:
            return Ending(0.5, f"draw (no result after {self.max_plies} half-moves)")
        return None

    def close(self) -> None:
        self.env.close()


class ChessGame(TwoPlayerGame):
    """Chess: LMAct's annotated ASCII board and SAN answers (envs.lmact.chess); the
    opening is one of LMAct's named openings (the lichess chess-openings list, CC0)."""

    slug = "chess"
    title, seat_names, renderer = GAME_SPECS[slug].title, GAME_SPECS[slug].seat_names, GAME_SPECS[slug].renderer
    max_plies = 200

    def _make_env(self):
        return chess_v6.env()

    @property
    def board(self) -> chess.Board:
        return self.env.unwrapped.board

    def _move_text(self, action: int) -> str:
        move = chess_utils.action_to_move(self.board, action, self.seat_to_move)
        return self.board.san(move)

    def _opening_actions(self, seed: int):
        opening = lmact_chess.opening_for_seed(seed)
        self.opening_name = f"{opening.eco} {opening.name}"
        for san in opening.moves:
            # A generator: `start` has the environment play each move before the next is read.
            yield self.legal_moves()[self.board.san(self.board.parse_san(san))]

    def observation(self, seat: int) -> str:
        colour = chess.WHITE if seat == 0 else chess.BLACK
        return lmact_chess.board_ascii(self.board, colour, annotated=True)

    def position_text(self) -> str:
        return self.board.fen()

    def answer_hint(self) -> str:
        return "a legal move in standard algebraic notation, e.g. Nf3"

    def draw_reason(self) -> str:
        end = lmact_chess.game_end(self.board)
        if end is not None:
            return f"draw ({end[1]})"
        if self.board.can_claim_draw():
            return "draw (threefold repetition or fifty-move rule)"
        return "draw"


class TicTacToeGame(TwoPlayerGame):
    """Tic-tac-toe: LMAct's annotated grid and cell names (a1 … c3, envs.lmact.tictactoe).
    PettingZoo numbers its cells down the columns; the names are LMAct's, by row."""

    slug = "tictactoe"
    title, seat_names, renderer = GAME_SPECS[slug].title, GAME_SPECS[slug].seat_names, GAME_SPECS[slug].renderer
    opening_plies = 1

    def _make_env(self):
        return tictactoe_v3.env()

    def _move_text(self, action: int) -> str:
        row, column = action % 3, action // 3
        return "abc"[row] + str(column + 1)

    def row_major(self) -> str:
        """The nine cells row by row from a1 ("x", "o", "."), LMAct's board string."""
        squares = self.env.unwrapped.board.squares
        marks = {0: ".", 1: "x", 2: "o"}
        return "".join(marks[squares[column * 3 + row]] for row in range(3) for column in range(3))

    def _opening_actions(self, seed: int) -> list[int]:
        return random.Random(f"h2h/tictactoe/opening:{seed}").sample(range(9), self.opening_plies)

    def observation(self, seat: int) -> str:
        return lmact_tictactoe.board_text(self.row_major(), "x" if seat == 0 else "o", annotated=True)

    def position_text(self) -> str:
        return lmact_tictactoe.board_text(self.row_major(), "x")

    def answer_hint(self) -> str:
        return "an empty cell, a row letter a-c and a column digit 1-3, e.g. b2"


class ConnectFourGame(TwoPlayerGame):
    """Connect Four: six rows of seven, X for the first player, O for the second, '.'
    empty, columns numbered 1–7 under the board; an answer is a column number."""

    slug = "connect_four"
    title, seat_names, renderer = GAME_SPECS[slug].title, GAME_SPECS[slug].seat_names, GAME_SPECS[slug].renderer
    opening_plies = 2
    ROWS, COLUMNS = 6, 7

    def _make_env(self):
        return connect_four_v3.env()

    def _move_text(self, action: int) -> str:
        return str(action + 1)

    def _opening_actions(self, seed: int) -> list[int]:
        dice = random.Random(f"h2h/connect_four/opening:{seed}")
        return [dice.randrange(self.COLUMNS) for _ in range(self.opening_plies)]

    def _grid(self) -> str:
        board = self.env.unwrapped.board  # row-major, top row first
        marks = {0: ".", 1: "X", 2: "O"}
        rows = [
            " ".join(marks[board[row * self.COLUMNS + column]] for column in range(self.COLUMNS))
            for row in range(self.ROWS)
        ]
        return "\n".join(rows + [" ".join(str(c + 1) for c in range(self.COLUMNS))])

    def observation(self, seat: int) -> str:
        mine, other = ("X", "O") if seat == 0 else ("O", "X")
        return (
            f"You play {mine}; your opponent plays {other}. Empty cells are shown as '.'. "
            "A piece dropped into a column falls to the lowest empty cell.\n" + self._grid()
        )

    def position_text(self) -> str:
        return self._grid()

    def answer_hint(self) -> str:
        return "the number (1-7) of a column that is not full, e.g. 4"


GAMES: dict[str, type[TwoPlayerGame]] = {game.slug: game for game in (ChessGame, TicTacToeGame, ConnectFourGame)}


def new_game(slug: str, opening_seed: int) -> TwoPlayerGame:
    """A game of `slug` at the opening of `opening_seed`, ready for its first move."""
    try:
        game = GAMES[slug]()
    except KeyError:
        raise ValueError(f"unknown head-to-head game {slug!r}; known: {', '.join(GAMES)}") from None
    game.start(opening_seed)
    return game
