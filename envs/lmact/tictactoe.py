"""LMAct tic-tac-toe (LMAct §2.2, App. B.2, Fig. A2).

A board is a string of nine characters, row by row from the top left: "x", "o"
or "." for an empty cell. Cell i is named by its row letter (a–c, top to bottom)
and column digit (1–3, left to right): index 0 is "a1", index 8 is "c3".

The expert and the opening set both come from a memoised search of the whole
game tree (5,478 reachable positions, so it takes a fraction of a second the
first time it is needed).
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction

from PIL import Image, ImageDraw

from envs import render
from envs.core import Observation, StepResult, Task, step_random, two_player_result

EMPTY = "."
CELLS: tuple[str, ...] = tuple(f"{row}{col}" for row in "abc" for col in "123")
_INDEX = {name: index for index, name in enumerate(CELLS)}
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip


# -- rules ---------------------------------------------------------------------
def winner(board: str) -> str | None:
    for i, j, k in LINES:
        if board[i] != EMPTY and board[i] == board[j] == board[k]:
            return board[i]
    return None


def is_over(board: str) -> bool:
    return winner(board) is not None or EMPTY not in board


def side_to_move(board: str) -> str:
    """x moves first, so x is to move when both sides have as many marks."""
    return "x" if board.count("x") == board.count("o") else "o"


def empty_cells(board: str) -> list[int]:
    return [index for index, mark in enumerate(board) if mark == EMPTY]


def play(board: str, index: int) -> str:
    """The board after the side to move marks cell `index`."""
    if board[index] != EMPTY:
        raise ValueError(f"cell {CELLS[index]} is taken")
    return board[:index] + side_to_move(board) + board[index + 1 :]


# -- search --------------------------------------------------------------------
def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _move_score(board: str, index: int) -> int:
    """Score, for the side to move, of marking `index` with best play afterwards.

    A win scores 1 + the number of cells still empty when it happens (so a sooner
    win scores higher), a loss the negative of that, a draw 0.
    """
    after = play(board, index)
    if winner(after) is not None:
        return 1 + after.count(EMPTY)
    if EMPTY not in after:
        return 0
    return -_score(after)


@functools.lru_cache(maxsize=None)
def _score(board: str) -> int:
    """Minimax score of a position that is not over, for the side to move."""
    return max(_move_score(board, index) for index in empty_cells(board))


def minimax_value(board: str) -> int:
    """+1, 0 or -1: the result for the side to move when both sides play perfectly."""
    if is_over(board):
        raise ValueError("the game is over")
    return _sign(_score(board))


def _win_chance_after(board: str, index: int) -> Fraction:
    """Chance that the expert wins after marking `index`, against the uniformly random opponent."""
    after = play(board, index)
    if winner(after) is not None:
        return Fraction(1)
    if EMPTY not in after:
        return Fraction(0)
    replies = empty_cells(after)
    total = Fraction(0)
    for reply in replies:
        position = play(after, reply)
        if not is_over(position):  # a reply that ends the game is a loss or a draw
            total += _expert_choice(position)[1]
    return total / len(replies)


@functools.lru_cache(maxsize=None)
def _expert_choice(board: str) -> tuple[int, Fraction]:
    """The expert's cell in a position that is not over, and its chance to win from there.

    Moves are ranked by, in order: the minimax value (never give up the
    worst-case result); the exact chance of winning against the random opponent
    (the expert keeps playing this way); the depth-aware minimax score (a sooner
    win first). A move must rank strictly higher to displace an earlier one, so
    any remaining tie goes to the first cell in legal order (a1, a2, ..., c3).
    """
    best_key, best_index = None, -1
    for index in empty_cells(board):
        score = _move_score(board, index)
        key = (_sign(score), _win_chance_after(board, index), score)
        if best_key is None or key > best_key:
            best_key, best_index = key, index
    return best_index, best_key[1]


def expert_move(board: str) -> str:
    """The expert's move (a cell name) for the side to move."""
    if is_over(board):
        raise ValueError("the game is over")
    return CELLS[_expert_choice(board)[0]]


@functools.lru_cache(maxsize=None)
def openings() -> tuple[str, ...]:
    """Every opening an episode may start from, in a stable order.

    All positions reachable in legal play from the empty board that are not over
    and are not lost for the side to move under perfect play (minimax value >= 0).
    The empty board is the first. Sorted by the number of marks, then by the
    board string.
    """
    seen = {EMPTY * 9}
    frontier = [EMPTY * 9]
    while frontier:
        board = frontier.pop()
        if is_over(board):
            continue
        for index in empty_cells(board):
            after = play(board, index)
            if after not in seen:
                seen.add(after)
                frontier.append(after)
    playable = [board for board in seen if not is_over(board) and minimax_value(board) >= 0]
    return tuple(sorted(playable, key=lambda board: (9 - board.count(EMPTY), board)))


# -- drawing -------------------------------------------------------------------
def board_text(board: str, agent: str, annotated: bool = False) -> str:
    """The 3×3 grid, one row a line ('X', 'O', '.'): LMAct's ASCII format, board text
    only (LMAct §2.3: the task is inferred from the demonstrations). `annotated`
    adds a line naming the agent's mark and row/column labels ('ascii-annotated')."""
    rows = [" ".join(mark.upper() for mark in board[row * 3 : row * 3 + 3]) for row in range(3)]
    if not annotated:
        return "\n".join(rows)
    other = "o" if agent == "x" else "x"
    lines = [f"You play {agent.upper()}; your opponent plays {other.upper()}. Empty cells are shown as '.'.", "  1 2 3"]
    lines += [letter + " " + row for letter, row in zip("abc", rows)]
    return "\n".join(lines)


_IMAGE_SIZE = 192
_MARGIN = 24  # room for the coordinate labels on every side
_CELL = (_IMAGE_SIZE - 2 * _MARGIN) // 3  # 48 px
_PAPER = (250, 248, 240)
_INK = (40, 40, 40)
_LABEL = (110, 110, 110)
_X_COLOUR = (200, 40, 40)
_O_COLOUR = (30, 80, 200)


@functools.lru_cache(maxsize=1)
def _empty_board_image() -> Image.Image:
    image = Image.new("RGB", (_IMAGE_SIZE, _IMAGE_SIZE), _PAPER)
    draw = ImageDraw.Draw(image)
    low, high = _MARGIN, _MARGIN + 3 * _CELL
    for k in (1, 2):
        at = _MARGIN + k * _CELL
        draw.line((at, low, at, high), fill=_INK, width=3)
        draw.line((low, at, high, at), fill=_INK, width=3)
    for k in range(3):
        centre = _MARGIN + k * _CELL + _CELL // 2
        for label_centre in (_MARGIN // 2, _IMAGE_SIZE - _MARGIN // 2):
            render.draw_text_centered(draw, (centre, label_centre), "123"[k], _LABEL, scale=2)  # columns
            render.draw_text_centered(draw, (label_centre, centre), "abc"[k], _LABEL, scale=2)  # rows
    return image


def board_image(board: str) -> Image.Image:
    image = _empty_board_image().copy()
    draw = ImageDraw.Draw(image)
    pad = 9
    for index, mark in enumerate(board):
        if mark == EMPTY:
            continue
        row, col = divmod(index, 3)
        left, top = _MARGIN + col * _CELL, _MARGIN + row * _CELL
        box = (left + pad, top + pad, left + _CELL - pad, top + _CELL - pad)
        if mark == "x":
            render.draw_cross(draw, box, _X_COLOUR, width=6)
        else:
            render.draw_ring(draw, box, _O_COLOUR, width=5)
    return image


# -- the task ------------------------------------------------------------------
class TicTacToe(Task):
    renderer = "tictactoe"  # the replay player draws the grid (static/js/renderers/grid_games.js)
    score_range = (-1.0, 1.0)
    description = (
        "Tic-tac-toe against an opponent that marks an empty cell uniformly at random "
        "(protocol: LMAct §2.2, App. B.2). Each episode starts from an opening drawn "
        "uniformly from every position reachable in legal play that is not over and that "
        "perfect play cannot lose; the agent plays whichever side is to move there (X when "
        "both sides have as many marks, else O), so the empty board is one of the openings. "
        "An action names an empty cell: a row letter a–c (top to bottom) and a column digit "
        "1–3 (left to right), e.g. 'b2'. Anything else is replaced by a random empty cell and "
        "counted as illegal (LMAct §2.4). The score is +1 for a win, -1 for a loss and 0 "
        "for a draw. Formats: 'ascii' (the paper's), the 3×3 grid as text, one row a line, "
        "'X', 'O' and '.' for empty, with nothing else (LMAct gives no task description: "
        "the model learns the cell names from the demonstrations and the legal actions); "
        "'ascii-annotated', the same grid with row and column labels under a line naming "
        "the agent's mark (our addition, to compare against the paper's format); 'rgb', a 192×192 drawing of the board with the same labels "
        "(which mark is the agent's follows from the counts: X moves first). The expert is a "
        "full minimax search that breaks ties between equally safe moves by the exact chance "
        "of beating the random opponent; it never loses and wins about 84% of the openings "
        "(the paper reports 85%, whose opening set it does not spell out)."
    )

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._board: str | None = None

    # -- protocol ----------------------------------------------------------------
    def _reset(self, seed: int) -> Observation:
        self.seed = seed
        self._opening = random.Random(f"{self.id}/opening:{seed}").choice(openings())
        self._board = self._opening
        self._agent = side_to_move(self._opening)
        self._opponent_rng = random.Random(f"{self.id}/opponent:{seed}")
        return self._observe()

    def _step(self, action_text: str) -> StepResult:
        legal_now = self.legal_actions()
        action = action_text.strip()
        legal = action in legal_now
        executed = action if legal else step_random(self, "illegal").choice(legal_now)
        self._board = play(self._board, _INDEX[executed])

        opponent_action = None
        if not is_over(self._board):
            reply = self._opponent_rng.choice(empty_cells(self._board))
            opponent_action = CELLS[reply]
            self._board = play(self._board, reply)

        reward, end_reason = 0.0, None
        terminated = is_over(self._board)
        if terminated:
            reward, end_reason = two_player_result(winner(self._board), self._agent)
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
        if is_over(self._board):
            return []
        return [CELLS[index] for index in empty_cells(self._board)]

    def initial_state_key(self) -> str:
        if self._board is None:
            raise RuntimeError("call reset(seed) first")
        return f"{self._opening}|{self._agent}"

    def expert_action(self) -> str:
        if self._board is None:
            raise RuntimeError("call reset(seed) first")
        return expert_move(self._board)

    # -- helpers -----------------------------------------------------------------
    @property
    def board(self) -> str:
        return self._board

    @property
    def agent_mark(self) -> str:
        return self._agent

    def _observe(self) -> Observation:
        if self.format == "rgb":
            return Observation(image=board_image(self._board))
        return Observation(text=board_text(self._board, self._agent, annotated=self.format == "ascii-annotated"))
