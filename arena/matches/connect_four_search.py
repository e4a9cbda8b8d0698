"""A Connect Four searcher: depth-limited negamax with alpha–beta pruning over a
bitboard, moves tried centre first (the classic ordering of Connect Four solvers,
Allis's "A Knowledge-based Approach of Connect-Four", 1988, §3), and a static
evaluation of the positions where the search stops.

The board is PettingZoo's connect_four_v3 grid (six rows of seven, row-major, top row
first; 0 empty, 1 the first player, 2 the second). Each player's pieces are one integer
with one bit per cell, column-major with a sentinel bit on top of each column
(bit = column × 7 + height), so four in a row is four shifts and three ANDs.

The evaluation counts, for every window of four cells in a line, the windows only one
side occupies: three of a side's pieces with the fourth cell empty weigh 50, two weigh
5, and a piece in the centre column 3 (a centre piece lies in the most lines). A win
found by the search scores more than any evaluation, and a sooner win more than a
later one.
"""

from __future__ import annotations

import random

ROWS, COLUMNS = 6, 7
HEIGHT = ROWS + 1  # bits per column: the rows and a sentinel
CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
WIN_SCORE = 1_000_000
THREE, TWO, CENTRE = 50, 5, 3


def _bit(row_from_bottom: int, column: int) -> int:
    return 1 << (column * HEIGHT + row_from_bottom)


BOTTOM = sum(_bit(0, column) for column in range(COLUMNS))
FULL = sum(_bit(row, column) for column in range(COLUMNS) for row in range(ROWS))
CENTRE_MASK = sum(_bit(row, 3) for row in range(ROWS))
# Every window of four cells in a row, a column or a diagonal, as a mask.
WINDOWS = tuple(
    sum(_bit(row + k * d_row, column + k * d_column) for k in range(4))
    for d_row, d_column in ((0, 1), (1, 0), (1, 1), (-1, 1))
    for row in range(ROWS)
    for column in range(COLUMNS)
    if 0 <= row + 3 * d_row < ROWS and 0 <= column + 3 * d_column < COLUMNS
)


def has_four(pieces: int) -> bool:
    for shift in (1, HEIGHT, HEIGHT - 1, HEIGHT + 1):  # vertical, horizontal, two diagonals
        pairs = pieces & (pieces >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


class Position:
    """A position as two bitboards: the pieces of the side to move and all pieces."""

    __slots__ = ("mine", "occupied")

    def __init__(self, mine: int, occupied: int):
        self.mine, self.occupied = mine, occupied

    @classmethod
    def from_grid(cls, grid, to_move: int) -> "Position":
        """From PettingZoo's row-major grid (top row first; 1 and 2 the players) and
        the player to move (1 or 2)."""
        mine = occupied = 0
        for index, cell in enumerate(grid):
            if cell:
                row_from_top, column = divmod(index, COLUMNS)
                bit = _bit(ROWS - 1 - row_from_top, column)
                occupied |= bit
                if cell == to_move:
                    mine |= bit
        return cls(mine, occupied)

    def playable(self, column: int) -> bool:
        return not self.occupied & _bit(ROWS - 1, column)

    def after(self, column: int) -> "Position":
        """The position after the side to move drops a piece into `column`, seen from
        the other side (who moves next)."""
        occupied = self.occupied | (self.occupied + _bit(0, column))
        return Position(self.mine ^ self.occupied, occupied)  # the opponent's pieces

    def wins_with(self, column: int) -> bool:
        dropped = (self.occupied + _bit(0, column)) & ~self.occupied & (0x7F << (column * HEIGHT))
        return has_four(self.mine | dropped)

    def evaluation(self) -> int:
        """The static value for the side to move (module docstring)."""
        theirs = self.mine ^ self.occupied
        score = CENTRE * (bin(self.mine & CENTRE_MASK).count("1") - bin(theirs & CENTRE_MASK).count("1"))
        for window in WINDOWS:
            own, other = self.mine & window, theirs & window
            if own and not other:
                score += {3: THREE, 2: TWO}.get(bin(own).count("1"), 0)
            elif other and not own:
                score -= {3: THREE, 2: TWO}.get(bin(other).count("1"), 0)
        return score


def negamax(position: Position, depth: int, alpha: int, beta: int) -> int:
    """The value of `position` for the side to move, searched `depth` plies deep."""
    moves = [column for column in CENTRE_FIRST if position.playable(column)]
    if not moves:
        return 0  # a full board is a draw
    for column in moves:
        if position.wins_with(column):
            return WIN_SCORE + depth  # a sooner win (more depth left) is worth more
    if depth <= 1:
        return position.evaluation()
    best = -WIN_SCORE - depth
    for column in moves:
        value = -negamax(position.after(column), depth - 1, -beta, -alpha)
        if value > best:
            best = value
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    return best


def best_columns(position: Position, depth: int) -> list[int]:
    """Every column (0–6) whose searched value is the best, in centre-first order."""
    values = {}
    for column in CENTRE_FIRST:
        if not position.playable(column):
            continue
        if position.wins_with(column):
            values[column] = WIN_SCORE + depth
        elif depth <= 1:
            values[column] = -position.after(column).evaluation()
        else:
            values[column] = -negamax(position.after(column), depth - 1, -WIN_SCORE - depth, WIN_SCORE + depth)
    if not values:
        raise ValueError("the board is full")
    top = max(values.values())
    return [column for column, value in values.items() if value == top]


def choose_column(grid, to_move: int, depth: int, dice: random.Random) -> int:
    """The searcher's column (0–6): one of the best at `depth` plies, equal ones drawn
    with `dice` (seeded by the caller, so a resumed match plays on as it would have)."""
    return dice.choice(best_columns(Position.from_grid(grid, to_move), depth))
