"""The baselines of head-to-head play: engines and simple policies of known strength
that sit at a match's seat without a model, so that every game has a ladder to rate
models against from the first minute (docs/head_to_head.md, "The anchors").

- every game: random legal moves (the ratings' anchor, fixed at 1000);
- chess: a greedy capturer (mates when it can, else takes the biggest piece it can), and
  Stockfish (Debian's build) at skill levels 0, 3 and 6, with Stockfish's own handicap
  rule driven by seeded dice (envs.lmact.stockfish);
- tic-tac-toe: a tactician (wins when it can, blocks when it must, else random) and the
  perfect player (LMAct's minimax expert, envs.lmact.tictactoe);
- Connect Four: a negamax searcher at 2 and at 6 plies (arena.matches.connect_four_search).

A baseline's dice are seeded by the match and the ply, so a resumed match plays on as
it would have.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import chess

from arena.matches import connect_four_search
from arena.matches.games import ChessGame, ConnectFourGame, TicTacToeGame, TwoPlayerGame
from envs.lmact import tictactoe as lmact_tictactoe
from envs.lmact.stockfish import Stockfish

RANDOM_POLICY = "random"


@dataclasses.dataclass(frozen=True)
class Anchor:
    policy: str  # the baseline submission's policy (Submission.policy, ≤ 32 characters)
    name: str  # the baseline submission's name, as the pages show it
    games: tuple[str, ...]
    # (game, dice, engines) -> the move's text; `engines` is the seat's cache of engine processes.
    choose: Callable[[TwoPlayerGame, random.Random, dict], str]


def _random(game: TwoPlayerGame, dice: random.Random, engines: dict) -> str:
    return dice.choice(list(game.legal_moves()))


def _stockfish(level: int):
    def choose(game: ChessGame, dice: random.Random, engines: dict) -> str:
        engine = engines.get("stockfish")
        if engine is None:
            engine = engines["stockfish"] = Stockfish()
        return game.board.san(engine.weakened_move(game.board, level, dice))

    return choose


# What a capture takes, in pawns (the usual count); the king is never taken.
PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def _chess_capturer(game: ChessGame, dice: random.Random, engines: dict) -> str:
    """Mates when it can, else takes the most valuable piece it can, else a random move:
    a rung between random moves (which it beats, or draws with when it cannot mate) and
    Stockfish, so the chess ladder is not all perfect records."""
    board = game.board
    moves = list(board.legal_moves)
    for move in moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return board.san(move)
    best = max((_captured_value(board, move) for move in moves), default=0)
    choices = [move for move in moves if _captured_value(board, move) == best]
    return board.san(dice.choice(sorted(choices, key=lambda move: move.uci())))


def _captured_value(board: chess.Board, move: chess.Move) -> int:
    if board.is_en_passant(move):
        return PIECE_VALUES[chess.PAWN]
    piece = board.piece_at(move.to_square)
    return PIECE_VALUES[piece.piece_type] if piece else 0


def _tictactoe_tactician(game: TicTacToeGame, dice: random.Random, engines: dict) -> str:
    """A winning cell if there is one, else a cell that stops the other side's win,
    else a random cell."""
    board = game.row_major()
    me = lmact_tictactoe.side_to_move(board)
    other = "o" if me == "x" else "x"
    empty = lmact_tictactoe.empty_cells(board)
    for mark in (me, other):
        for index in empty:
            if lmact_tictactoe.winner(board[:index] + mark + board[index + 1:]) == mark:
                return lmact_tictactoe.CELLS[index]
    return lmact_tictactoe.CELLS[dice.choice(empty)]


def _tictactoe_perfect(game: TicTacToeGame, dice: random.Random, engines: dict) -> str:
    return lmact_tictactoe.expert_move(game.row_major())


def _connect_four(depth: int):
    def choose(game: ConnectFourGame, dice: random.Random, engines: dict) -> str:
        grid = [int(cell) for cell in game.env.unwrapped.board]
        column = connect_four_search.choose_column(grid, game.seat_to_move + 1, depth, dice)
        return str(column + 1)

    return choose


ALL_GAMES = ("chess", "tictactoe", "connect_four")
ANCHORS: dict[str, Anchor] = {
    anchor.policy: anchor
    for anchor in (
        Anchor(RANDOM_POLICY, "Random legal moves", ALL_GAMES, _random),
        Anchor("chess-capturer", "Greedy capturer (mate, else the biggest capture)", ("chess",), _chess_capturer),
        Anchor("stockfish-level-0", "Stockfish level 0 (one node)", ("chess",), _stockfish(0)),
        Anchor("stockfish-level-3", "Stockfish level 3 (depth 4)", ("chess",), _stockfish(3)),
        Anchor("stockfish-level-6", "Stockfish level 6 (depth 7)", ("chess",), _stockfish(6)),
        Anchor("tictactoe-tactician", "Tic-tac-toe tactician (win, else block)", ("tictactoe",), _tictactoe_tactician),
        Anchor("tictactoe-perfect", "Tic-tac-toe perfect player (minimax)", ("tictactoe",), _tictactoe_perfect),
        Anchor("connect-four-search-2", "Connect Four search, 2 plies", ("connect_four",), _connect_four(2)),
        Anchor("connect-four-search-6", "Connect Four search, 6 plies", ("connect_four",), _connect_four(6)),
    )
}


def anchors_of(game: str) -> list[Anchor]:
    return [anchor for anchor in ANCHORS.values() if game in anchor.games]


def anchor_move(policy: str, game: TwoPlayerGame, dice: random.Random, engines: dict) -> str:
    """The move of the baseline `policy` in `game`; random legal moves for a policy that
    has no engine at this game."""
    anchor = ANCHORS.get(policy)
    if anchor is None or game.slug not in anchor.games:
        return _random(game, dice, engines)
    return anchor.choose(game, dice, engines)
