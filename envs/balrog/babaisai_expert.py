"""The Baba Is AI expert: a best-first search over the engine's states for a way to win.

Most moves only walk: the one YOU object steps onto an empty cell (or over something that
is neither STOP nor PUSH) and nothing else changes, not even the rules. The search
therefore treats walking as free movement inside a region, as Sokoban solvers do, and
branches on pushes only: a node is a state whose YOU object may stand anywhere in the
region it can walk to; its successors are the pushes from that region and the walks onto
a WIN object, each costing the moves of the walk plus the push. While several objects
are YOU at once (they move together) a node branches on the four single moves instead.
A state without anything YOU is a dead end: the game restarts the level.

Nodes are expanded in the order of moves so far plus twice an estimate of the moves left
(weighted A*): the distance from YOU to the nearest WIN object, or, with nothing WIN,
the pushes that would bring a noun of an object in the level next to an IS WIN pair and
the walk to that object. The plans are short (BALROG allows 100 moves), not always the
shortest. The search gives up after `budget` nodes; a level it cannot solve within that
is reported unsolved.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque

from envs.balrog.babaisai_engine import DIRECTIONS, IS, WIN, Level

DEFAULT_BUDGET = 20_000
# How much the estimate of the moves left weighs against the moves made.
ESTIMATE_WEIGHT = 2
# The estimate when no rule can make anything WIN: worse than any real distance.
NO_WIN_IN_SIGHT = 60


def plan(level: Level, state: tuple[int, ...], budget: int = DEFAULT_BUDGET) -> list[str] | None:
    """The moves from `state` to a win, or None when none is found within `budget`
    nodes (an unsolvable level, or one past the budget)."""
    return _Search(level).run(state, budget)


class _Search:
    def __init__(self, level: Level):
        self.level = level
        self.offsets = {name: dx + dy * level.width for name, (dx, dy) in DIRECTIONS.items()}
        things = level.things
        self.blocks = [i for i, thing in enumerate(things) if thing.block]
        # Each noun block naming a kind of object in the level, with those objects.
        self.nouns_of_objects = [
            (i, [j for j, other in enumerate(things) if not other.block and other.name == thing.name])
            for i, thing in enumerate(things)
            if thing.block and any(not other.block and other.name == thing.name for other in things)
        ]
        self.slots_of: dict[tuple[int, ...], list[int]] = {}

    def run(self, start: tuple[int, ...], budget: int) -> list[str] | None:
        if self.level.is_won(start):
            return []
        if not self.level.you(start) or not self.can_ever_win():
            return None
        tie = itertools.count()
        # The moves found so far, as (entry they continue, moves) — entry -1 is the start.
        entries: list[tuple[int, tuple[str, ...]]] = []
        cost_of = {start: 0}
        frontier = [(self.estimate(start), next(tie), 0, start, -1)]
        # The cells already searched from, for each arrangement of everything but the one
        # YOU object: a state whose YOU object stands in one of them is a node met before.
        searched: dict[tuple, set[int]] = {}
        expanded = 0
        while frontier and expanded < budget:
            _, _, cost, state, entry = heapq.heappop(frontier)
            if cost > cost_of[state]:
                continue  # reached more cheaply since it was queued
            if self.level.is_won(state):
                return self.moves_to(entry, entries)
            you = self.level.you(state)
            came_from = None
            if len(you) == 1:
                mover = you[0]
                rest = self.level.put_on_top(state, mover, -1)
                region = searched.setdefault(rest, set())
                if state[mover] in region:
                    continue
                came_from = self.walk(state, mover)
                region.update(came_from)
            expanded += 1
            for moves, successor in self.successors(state, you, came_from):
                successor_cost = cost + len(moves)
                if not self.level.you(successor) or successor_cost >= cost_of.get(successor, successor_cost + 1):
                    continue
                cost_of[successor] = successor_cost
                entries.append((entry, moves))
                priority = successor_cost + ESTIMATE_WEIGHT * self.estimate(successor)
                heapq.heappush(frontier, (priority, next(tie), successor_cost, successor, len(entries) - 1))
        return None

    def can_ever_win(self) -> bool:
        """Whether the level holds the blocks a WIN rule needs at all."""
        words = {thing.name for thing in self.level.things if thing.block}
        return IS in words and WIN in words

    @staticmethod
    def moves_to(entry: int, entries: list[tuple[int, tuple[str, ...]]]) -> list[str]:
        moves: list[str] = []
        while entry >= 0:
            entry, taken = entries[entry]
            moves[:0] = taken
        return moves

    # -- nodes ----------------------------------------------------------------------------
    def walk(self, state: tuple[int, ...], mover: int) -> dict[int, tuple[int, str] | None]:
        """The cells `mover` can reach without pushing anything, each with the cell and the
        move it is reached from (breadth first, so the paths are shortest)."""
        blocked = self.level.blocks_walk(state)
        came_from: dict[int, tuple[int, str] | None] = {state[mover]: None}
        queue = deque([state[mover]])
        while queue:
            cell = queue.popleft()
            for move, offset in self.offsets.items():
                target = cell + offset
                if target not in came_from and target not in blocked:
                    came_from[target] = (cell, move)
                    queue.append(target)
        return came_from

    def successors(self, state: tuple[int, ...], you: list[int], came_from: dict | None):
        """(moves, state after them) for every way out of the node of `state`."""
        if came_from is None:
            for move in DIRECTIONS:
                after = self.level.step(state, move)
                if after != state:
                    yield (move,), after
            return
        mover = you[0]

        def standing_at(cell: int) -> tuple[int, ...]:
            return self.level.put_on_top(state, mover, cell)

        for i in self.level.win_objects(state):
            if state[i] in came_from:
                yield _path(came_from, state[i]), standing_at(state[i])
        for cell in self.push_cells(came_from):
            for move, offset in self.offsets.items():
                if cell + offset not in came_from and cell + offset not in self.level.border:
                    standing = standing_at(cell)
                    after = self.level.step(standing, move)
                    if after != standing:
                        yield _path(came_from, cell) + (move,), after

    def push_cells(self, came_from: dict) -> list[int]:
        """The cells of the region next to something it cannot walk onto: the only
        places a push can start from."""
        return [
            cell for cell in came_from if any(cell + offset not in came_from for offset in self.offsets.values())
        ]

    # -- the estimate -----------------------------------------------------------------------
    def estimate(self, state: tuple[int, ...]) -> int:
        level = self.level
        you_cells = [state[i] for i in level.you(state)]
        win_cells = [state[i] for i in level.win_objects(state)]
        if win_cells:
            return min(self.distance(a, b) for a in you_cells for b in win_cells)
        best = NO_WIN_IN_SIGHT
        for slot in self.win_rule_slots(state):
            for noun, objects in self.nouns_of_objects:
                to_objects = min(self.distance(slot, state[j]) for j in objects)
                to_noun = min(self.distance(cell, state[noun]) for cell in you_cells)
                best = min(best, 2 * self.distance(state[noun], slot) + to_noun + to_objects)
        return best

    def win_rule_slots(self, state: tuple[int, ...]) -> list[int]:
        """The cells where a noun would complete NOUN IS WIN with blocks already in line."""
        key = tuple(state[i] for i in self.blocks)
        if key not in self.slots_of:
            words_at: dict[int, set[str]] = {}
            for i, cell in zip(self.blocks, key):
                words_at.setdefault(cell, set()).add(self.level.things[i].name)
            self.slots_of[key] = [
                cell - step
                for cell, words in words_at.items()
                if IS in words
                for step in (1, self.level.width)
                if WIN in words_at.get(cell + step, ()) and cell - step not in self.level.border
            ]
        return self.slots_of[key]

    def distance(self, a: int, b: int) -> int:
        width = self.level.width
        return abs(a % width - b % width) + abs(a // width - b // width)


def _path(came_from: dict, cell: int) -> tuple[str, ...]:
    moves: list[str] = []
    while came_from[cell] is not None:
        cell, move = came_from[cell]
        moves.append(move)
    return tuple(reversed(moves))
