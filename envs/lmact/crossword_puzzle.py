"""The LMAct crossword's puzzles (envs.lmact.crossword): generated from a seed, and
written out as the grid and clue text the agent reads.

Each episode is a 7×7 crossword made by our own generator from the episode's seed,
with words and clues from `envs.lmact.crossword_words` (WordNet). Rows and columns
are counted from 0 at the top left.

The generator places words one at a time, freeform like genxword (the generator the
paper used): every word after the first crosses at least one placed word; a word never
touches another except where they cross (the cells just before and after it are black
or outside the grid, and each of its new letters has black or outside cells on both
sides across its direction), so every run of two or more letters in a row or a column
is exactly one placed word and every letter cell belongs to a word. Each round it takes
the slots that cross the most placed letters first, in seeded random order, and fills
the first one for which an unused dictionary word fits, choosing that word at random;
it stops at `MAX_WORDS` words or when nothing fits. `TRIES` grids are built and the
fullest is kept (the first of equals); if it has fewer than `MIN_WORDS` words, more
are built, up to `ATTEMPTS` in all. Over seeds 0–199 this gives 8–12 words, about 10
on average (the paper: about 10).
"""

from __future__ import annotations

import dataclasses
import functools
import random

from envs.lmact import crossword_words
from envs.lmact.crossword_words import words_by_length

SIZE = 7
MIN_LENGTH = crossword_words.MIN_LENGTH
MAX_WORDS = 12
MIN_WORDS = 8
TRIES = 10
ATTEMPTS = 40
ACROSS, DOWN = "A", "D"
_STEP = {ACROSS: (0, 1), DOWN: (1, 0)}


# -- puzzles -------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Entry:
    direction: str  # "A" (across) or "D" (down)
    number: int
    row: int
    col: int
    answer: str  # upper case
    clue: str

    @property
    def label(self) -> str:
        return f"{self.direction}{self.number}"

    def cells(self) -> list[tuple[int, int]]:
        d_row, d_col = _STEP[self.direction]
        return [(self.row + d_row * k, self.col + d_col * k) for k in range(len(self.answer))]


@dataclasses.dataclass(frozen=True)
class Puzzle:
    size: int
    entries: tuple[Entry, ...]  # across entries by number, then down entries by number

    @functools.cached_property
    def solution(self) -> tuple[str, ...]:
        """The solved grid, one string per row, '#' for a black cell."""
        grid = [["#"] * self.size for _ in range(self.size)]
        for entry in self.entries:
            for (row, col), letter in zip(entry.cells(), entry.answer):
                grid[row][col] = letter
        return tuple("".join(row) for row in grid)

    @functools.cached_property
    def numbers(self) -> dict[tuple[int, int], int]:
        return {(entry.row, entry.col): entry.number for entry in self.entries}

    def entry(self, label: str) -> Entry | None:
        for entry in self.entries:
            if entry.label == label:
                return entry
        return None


@functools.lru_cache(maxsize=None)
def _pattern_index() -> dict[tuple[int, int, str], frozenset[str]]:
    """(length, position, letter) -> the dictionary words with that letter there."""
    index: dict[tuple[int, int, str], set[str]] = {}
    for length, words in words_by_length().items():
        for word in words:
            for position, letter in enumerate(word):
                index.setdefault((length, position, letter), set()).add(word)
    return {key: frozenset(value) for key, value in index.items()}


@functools.lru_cache(maxsize=None)
def _slots(size: int) -> tuple[tuple[str, int, int, int], ...]:
    """Every (direction, row, col, length) a word could occupy, in a fixed order."""
    slots = []
    for direction in (ACROSS, DOWN):
        for length in range(MIN_LENGTH, size + 1):
            for fixed in range(size):
                for start in range(size - length + 1):
                    row, col = (fixed, start) if direction == ACROSS else (start, fixed)
                    slots.append((direction, row, col, length))
    return tuple(slots)


class _Grid:
    """The grid while a puzzle is built: letters, and which cells belong to a word of each direction."""

    def __init__(self, size: int):
        self.size = size
        self.letters: list[list[str | None]] = [[None] * size for _ in range(size)]
        self.covered = {ACROSS: [[False] * size for _ in range(size)], DOWN: [[False] * size for _ in range(size)]}
        self.words: list[tuple[str, int, int, str]] = []  # (direction, row, col, word)

    def _free(self, row: int, col: int) -> bool:
        return not (0 <= row < self.size and 0 <= col < self.size) or self.letters[row][col] is None

    def pattern(self, direction: str, row: int, col: int, length: int) -> list[str | None] | None:
        """The letters already in a slot (None where empty) if a new word may go there, else None."""
        d_row, d_col = _STEP[direction]
        if not self._free(row - d_row, col - d_col) or not self._free(row + d_row * length, col + d_col * length):
            return None
        pattern: list[str | None] = []
        crossings = 0
        for k in range(length):
            r, c = row + d_row * k, col + d_col * k
            letter = self.letters[r][c]
            if letter is not None:
                if self.covered[direction][r][c]:
                    return None
                crossings += 1
            elif not (self._free(r + d_col, c + d_row) and self._free(r - d_col, c - d_row)):
                return None
            pattern.append(letter)
        if crossings == 0 or crossings == length:
            return None
        return pattern

    def place(self, direction: str, row: int, col: int, word: str) -> None:
        d_row, d_col = _STEP[direction]
        for k, letter in enumerate(word):
            r, c = row + d_row * k, col + d_col * k
            self.letters[r][c] = letter
            self.covered[direction][r][c] = True
        self.words.append((direction, row, col, word))


def _matches(length: int, pattern: list[str | None], used: set[str]) -> list[str]:
    index = _pattern_index()
    sets = [index.get((length, k, letter), frozenset()) for k, letter in enumerate(pattern) if letter is not None]
    sets.sort(key=len)
    found = set(sets[0])
    for other in sets[1:]:
        found &= other
        if not found:
            return []
    return sorted(found - used)


def _build(rng: random.Random, size: int) -> _Grid:
    words = words_by_length()
    grid = _Grid(size)
    first_lengths = [length for length in range(5, size + 1) if words.get(length)]
    length = rng.choice(first_lengths)
    first = rng.choice(words[length])
    direction = rng.choice((ACROSS, DOWN))
    fixed, start = rng.randrange(size), rng.randrange(size - length + 1)
    row, col = (fixed, start) if direction == ACROSS else (start, fixed)
    grid.place(direction, row, col, first)
    used = {first}
    while len(grid.words) < MAX_WORDS:
        by_crossings: dict[int, list[tuple[str, int, int, int, list]]] = {}
        for direction, row, col, length in _slots(size):
            pattern = grid.pattern(direction, row, col, length)
            if pattern is not None:
                crossings = sum(letter is not None for letter in pattern)
                by_crossings.setdefault(crossings, []).append((direction, row, col, length, pattern))
        placed = False
        for crossings in sorted(by_crossings, reverse=True):
            group = by_crossings[crossings]
            rng.shuffle(group)
            for direction, row, col, length, pattern in group:
                candidates = _matches(length, pattern, used)
                if candidates:
                    word = rng.choice(candidates)
                    grid.place(direction, row, col, word)
                    used.add(word)
                    placed = True
                    break
            if placed:
                break
        if not placed:
            break
    return grid


def _number(grid: _Grid) -> Puzzle:
    """Standard numbering: cells that start a word get 1, 2, ... in reading order."""
    clue_of = crossword_words.clues()
    starts = sorted({(row, col) for _, row, col, _ in grid.words})
    number_of = {cell: k + 1 for k, cell in enumerate(starts)}
    entries = [
        Entry(direction, number_of[(row, col)], row, col, word, clue_of[word])
        for direction, row, col, word in grid.words
    ]
    entries.sort(key=lambda entry: (entry.direction != ACROSS, entry.number))
    return Puzzle(size=grid.size, entries=tuple(entries))


@functools.lru_cache(maxsize=256)
def generate(seed: int, size: int = SIZE) -> Puzzle:
    """The crossword of `seed` (see the module docstring for how it is built)."""
    rng = random.Random(f"lmact/crossword/grid:{seed}")
    best: _Grid | None = None
    for attempt in range(1, ATTEMPTS + 1):
        grid = _build(rng, size)
        if best is None or len(grid.words) > len(best.words):
            best = grid
        if attempt >= TRIES and len(best.words) >= MIN_WORDS:
            break
    return _number(best)


# -- text ----------------------------------------------------------------------
def grid_text(puzzle: Puzzle, filled: set[str]) -> str:
    letters = [["#"] * puzzle.size for _ in range(puzzle.size)]
    for entry in puzzle.entries:
        for row, col in entry.cells():
            if letters[row][col] == "#":
                letters[row][col] = "_"
        if entry.label in filled:
            for (row, col), letter in zip(entry.cells(), entry.answer):
                letters[row][col] = letter
    border = "+" + "----+" * puzzle.size
    lines = [border]
    for row in range(puzzle.size):
        cells = []
        for col in range(puzzle.size):
            if letters[row][col] == "#":
                cells.append("####")
            else:
                number = puzzle.numbers.get((row, col))
                cells.append(f"{number if number else '':<2}{letters[row][col]} ")
        lines.append("|" + "|".join(cells) + "|")
    lines.append(border)
    return "\n".join(lines)


def clues_text(puzzle: Puzzle) -> str:
    lines = []
    for direction, heading in ((ACROSS, "Across:"), (DOWN, "Down:")):
        lines.append(heading)
        for entry in puzzle.entries:
            if entry.direction == direction:
                lines.append(f"{entry.number}. {entry.clue} ({len(entry.answer)})")
    return "\n".join(lines)


def puzzle_text(puzzle: Puzzle, filled: set[str]) -> str:
    return (
        "Crossword ('#' black cell, '_' empty cell; a number marks the first cell of a word):\n"
        + grid_text(puzzle, filled)
        + "\n\n"
        + clues_text(puzzle)
    )
