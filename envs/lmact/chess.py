"""LMAct chess (LMAct §2.2 "Chess", App. B.2, Fig. A3).

The agent plays against a very weak Stockfish from a named opening position. The
openings come from fixtures/lmact/chess_openings.tsv, a copy of the lichess
chess-openings list (ECO code, name, moves; CC0, see chess_openings.COPYING.txt).
The engine wrapper, and why the opponent and the expert are driven the way they
are, is in `envs.lmact.stockfish`.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import pathlib
import random

import chess

from envs import render
from envs.core import Observation, StepResult, Task, two_player_result
from envs.lmact.chess_picture import board_image
from envs.lmact.stockfish import EXPERT_NODES, Stockfish

OPENINGS_PATH = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "lmact" / "chess_openings.tsv"
OPPONENT_LEVEL = 0
AGENT_NAME = "Agent"
OPPONENT_NAME = "Stockfish"


# -- openings ------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Opening:
    eco: str
    name: str
    moves: tuple[str, ...]  # SAN, from the initial position

    def board(self) -> chess.Board:
        board = chess.Board()
        for san in self.moves:
            board.push_san(san)
        return board


def _movetext_moves(movetext: str) -> tuple[str, ...]:
    """The SAN moves of PGN movetext such as "1. e4 e5 2. Nf3" (move numbers dropped)."""
    return tuple(token for token in movetext.split() if not token[0].isdigit())


@functools.lru_cache(maxsize=None)
def openings(path: pathlib.Path = OPENINGS_PATH) -> tuple[Opening, ...]:
    """Every opening an episode may start from, in file order.

    The two lines of the list that end in checkmate (Fool's Mate, Sea-Cadet Mate)
    leave nothing to play and are left out. No two of the others reach the same
    position (tests/envs/lmact/test_chess.py checks this), so distinct openings give
    distinct initial states.
    """
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    result = []
    for row in rows:
        moves = _movetext_moves(row["pgn"])
        if moves and moves[-1].endswith("#"):
            continue
        result.append(Opening(eco=row["eco"], name=row["name"], moves=moves))
    return tuple(result)


@functools.lru_cache(maxsize=None)
def _opening_order(count: int) -> tuple[int, ...]:
    order = list(range(count))
    random.Random("lmact/chess/opening-order").shuffle(order)
    return tuple(order)


def opening_for_seed(seed: int) -> Opening:
    """Seed s plays the opening at position s (mod the list size) of a fixed shuffle of the list.

    So seeds 0, 1, 2, ... draw openings without replacement until the list (3,805
    openings) is used up.
    """
    pool = openings()
    return pool[_opening_order(len(pool))[seed % len(pool)]]


# -- rules ---------------------------------------------------------------------
_DRAW_NAMES = {
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
    chess.Termination.SEVENTYFIVE_MOVES: "seventy-five-move rule",
}


def game_end(board: chess.Board) -> tuple[bool | None, str] | None:
    """(winner, reason) if the game is over, else None; winner None means a draw.

    Besides the automatic endings (mate, stalemate, insufficient material, fivefold
    repetition, seventy-five-move rule), a threefold repetition or a hundred half-moves
    without capture or pawn move end the game as a draw at once, as if claimed.
    """
    outcome = board.outcome()
    if outcome is not None:
        if outcome.termination == chess.Termination.CHECKMATE:
            return outcome.winner, "checkmate"
        return None, _DRAW_NAMES.get(outcome.termination, outcome.termination.name.lower().replace("_", " "))
    if board.is_repetition(3):
        return None, "threefold repetition"
    if board.halfmove_clock >= 100:
        return None, "fifty-move rule"
    return None


def legal_sans(board: chess.Board) -> list[str]:
    """The legal moves in standard algebraic notation, sorted."""
    return sorted(board.san(move) for move in board.legal_moves)


def _result_token(board: chess.Board, end: tuple[bool | None, str] | None) -> str:
    if end is None:
        return "*"
    winner = end[0]
    if winner is None:
        return "1/2-1/2"
    return "1-0" if winner == chess.WHITE else "0-1"


# -- text formats --------------------------------------------------------------
def _colour_name(colour: chess.Color) -> str:
    return "White" if colour == chess.WHITE else "Black"


def board_ascii(board: chess.Board, agent: chess.Color, annotated: bool = False) -> str:
    """python-chess's board text (upper case White, lower case Black, '.' empty): LMAct's
    ASCII format (LMAct Fig. A3a). `annotated` adds a line naming the agent's colour
    and rank and file labels ('ascii-annotated')."""
    if not annotated:
        return str(board)
    lines = [f"You play {_colour_name(agent)}."]
    for rank_label, row in zip("87654321", str(board).splitlines()):
        lines.append(f"{rank_label} {row}")
    lines.append("  a b c d e f g h")
    return "\n".join(lines)


def board_pgn(board: chess.Board, agent: chess.Color, end: tuple[bool | None, str] | None) -> str:
    """The game from the initial position, opening included, as PGN: three tags and the movetext."""
    white, black = (AGENT_NAME, OPPONENT_NAME) if agent == chess.WHITE else (OPPONENT_NAME, AGENT_NAME)
    result = _result_token(board, end)
    start = board.root()
    movetext = start.variation_san(board.move_stack) if board.move_stack else ""
    movetext = f"{movetext} {result}".strip()
    return f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n{movetext}'


# -- the task ------------------------------------------------------------------
class Chess(Task):
    renderer = "chess"  # the replay player draws the board (static/js/renderers/chess.js)
    score_range = (-1.0, 1.0)
    blocking = True  # every step waits for a Stockfish search
    baseline_episodes = 20
    description = (
        "Chess against the weakest Stockfish, skill level 0 limited to a single node "
        "(protocol: LMAct §2.2, App. B.2). Each episode starts from a named opening of "
        "the Encyclopaedia of Chess Openings, taken from the lichess chess-openings list "
        "(3,805 openings with ECO code, name and moves; public domain, CC0); episode seeds "
        "walk through a fixed shuffle of the list, so openings are drawn without replacement. "
        "The agent plays the side to move after the opening moves. An action is a legal move "
        "in standard algebraic notation exactly as python-chess writes it (e.g. 'Nf3', "
        "'exd5', 'O-O', 'e8=Q+', 'Qh5#'); anything else is replaced by a random legal move "
        "and counted as illegal (LMAct §2.4). A win scores +1, a loss -1, a draw 0; a "
        "threefold repetition or the fifty-move rule ends the game as a draw at once, as if "
        "claimed. The episode stops with 0 after 100 agent moves. Formats: 'ascii' (the "
        "paper's, Fig. A3a), the python-chess board text (upper case White, lower case "
        "Black, '.' empty) and nothing else; 'ascii-annotated', the same board with rank "
        "and file labels under a line naming the agent's colour (our addition, to compare "
        "against the paper's format); 'fen', the Forsyth–Edwards "
        "Notation string; 'pgn', the whole game from the initial position (opening moves "
        "included) as PGN with White, Black and Result tags; 'rgb', a 256×256 diagram from "
        "White's side with drawn piece silhouettes and coordinates. The expert is "
        "full-strength Stockfish (skill 20). Deviations: the engine is Debian's Stockfish "
        "15.1, not 16. Stockfish's own weakening at level 0 draws its random numbers from "
        "the clock, so it is not reproducible; the opponent therefore runs the same depth-1, "
        "four-line search that a one-node limit yields and applies Stockfish's level-0 "
        "selection rule with a generator seeded from the episode, which makes the same seed "
        "and the same moves give the same game. The expert searches a fixed 30,000 nodes "
        "per move (about the paper's 50 ms on our machine) so that its moves are "
        "reproducible too."
    )

    def __init__(self, format: str | None = None, engine: Stockfish | None = None):
        super().__init__(format)
        self._board: chess.Board | None = None
        # One engine process per task, started on first use (reset does not need it).
        self._engine = engine if engine is not None else Stockfish()
        self._end: tuple[bool | None, str] | None = None
        # Where the next reset starts when `reset_to` chose it (None: the seed's opening).
        self._next_opening: Opening | chess.Board | None = None

    # -- lifetime ----------------------------------------------------------------
    def episode_metrics(self) -> dict:
        """The game as PGN, for the replay page's download link."""
        if self._board is None:
            return {}
        return {"pgn": board_pgn(self._board, self._agent, self._end)}

    def close(self) -> None:
        """Stop the engine process; safe to call twice (it also stops when the task is collected)."""
        self._engine.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- protocol ----------------------------------------------------------------
    def reset_to(self, seed: int, opening: Opening | chess.Board) -> Observation:
        """Start an episode from an opening, or (for tests and tools) from any position with its move history.
        Goes through `reset`, which keeps the episode's bookkeeping."""
        self._next_opening = opening
        try:
            return self.reset(seed)
        finally:
            self._next_opening = None

    def _reset(self, seed: int) -> Observation:
        opening = self._next_opening if self._next_opening is not None else opening_for_seed(seed)
        self.seed = seed
        if isinstance(opening, Opening):
            self.opening = opening
            board = opening.board()
        else:
            self.opening = None
            board = opening.copy()
        if game_end(board) is not None:
            raise ValueError("the starting position is already decided")
        self._board = board
        self._start_fen = board.fen()
        self._agent = board.turn
        self._end = None
        return self._observe()

    def _step(self, action_text: str) -> StepResult:
        legal_now = legal_sans(self._board)
        action = action_text.strip()
        legal = action in legal_now
        if legal:
            executed = action
        else:
            # A generator per step (not one per episode) so that replaying the stored,
            # executed actions of an interrupted episode reproduces it exactly. Seeded
            # with the step's index (steps_taken already counts this step).
            step_index = self.steps_taken - 1
            executed = random.Random(f"{self.id}/illegal:{self.seed}:{step_index}").choice(legal_now)
        self._board.push_san(executed)

        opponent_action = None
        end = game_end(self._board)
        if end is None:
            dice = random.Random(f"{self.id}/opponent:{self.seed}:{len(self._board.move_stack)}")
            reply = self._engine.weakened_move(self._board, OPPONENT_LEVEL, dice)
            opponent_action = self._board.san(reply)
            self._board.push(reply)
            end = game_end(self._board)

        reward, end_reason = 0.0, None
        terminated = end is not None
        if terminated:
            self._end = end
            winner, why = end
            reward, end_reason = two_player_result(winner, self._agent, draw_reason=f"draw ({why})")
        return StepResult(
            observation=self._observe(),
            reward=reward,
            terminated=terminated,
            truncated=False,
            legal=legal,
            executed_action=executed,
            end_reason=end_reason,
            info={"opponent_action": opponent_action},
        )

    def legal_actions(self) -> list[str]:
        if self._board is None:
            raise RuntimeError("call reset(seed) first")
        if self._end is not None:
            return []
        return legal_sans(self._board)

    def initial_state_key(self) -> str:
        if self._board is None:
            raise RuntimeError("call reset(seed) first")
        return self._start_fen

    def expert_action(self) -> str:
        if self._board is None:
            raise RuntimeError("call reset(seed) first")
        if self._end is not None:
            raise ValueError("the game is over")
        return self._board.san(self._engine.best_move(self._board, nodes=EXPERT_NODES))

    # -- helpers -----------------------------------------------------------------
    @property
    def board(self) -> chess.Board:
        return self._board

    @property
    def agent_colour(self) -> chess.Color:
        return self._agent

    def viewer_png(self) -> bytes | None:
        """The board for the replay of a 'pgn' episode, whose text (a move list) holds no
        position the replay could draw; the other text formats are drawn from their text
        (static/js/renderers/chess.js), 'rgb' is a picture already."""
        if self.format != "pgn" or self._board is None:
            return None
        return render.encode_png(board_image(self._board))

    def _observe(self) -> Observation:
        if self.format == "rgb":
            return Observation(image=board_image(self._board))
        if self.format == "fen":
            return Observation(text=self._board.fen())
        if self.format == "pgn":
            return Observation(text=board_pgn(self._board, self._agent, self._end))
        return Observation(text=board_ascii(self._board, self._agent, annotated=self.format == "ascii-annotated"))
