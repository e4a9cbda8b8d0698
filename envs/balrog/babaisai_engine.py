"""The rules engine of Baba Is AI (Cloos et al. 2024; BALROG App. D), move for move as the
package BALROG wraps (nacloos/baba-is-ai) plays it; `tests/envs/balrog/test_reference_babaisai.py`
replays the package's recorded episodes through it.

- A level is a grid ringed by a border that nothing crosses. On it stand *objects*
  (baba, ball, door, key, wall) and *rule blocks*: nouns (BABA, BALL, DOOR, KEY, WALL),
  IS, and properties (YOU, WIN, STOP, PUSH).
- Things on one cell form a stack: whatever arrived last lies on top, and only the top
  thing of a cell counts — it is what a mover pushes or is stopped by, what the rules are
  read from, and what the player's observation names.
- Three blocks aligned left to right or top to bottom, NOUN IS PROPERTY, make a rule that
  gives every object of that noun the property. The rules are read again after every move
  (not after "idle"), IS blocks in reading order, the rule across an IS before the one down
  through it; a rule found twice counts twice.
- On a move, the cells are visited in reading order and the top thing of each, when it is
  YOU and has not moved yet, moves: what it faces is pushed first when it can be (rule
  blocks always, PUSH objects), then it steps forward unless the top thing there is the
  border, a rule block, or a STOP object. A thing buried under another never moves.
- The move wins when the top thing of the cell a YOU object ends on was WIN under the
  rules before the move (the last YOU object to move decides).

A state is a tuple: the cell of every thing, in the level's order of things, then the
height of each in its cell's stack (0 at the bottom); a cell is `y * width + x`. States are
plain tuples so that the expert's search can hash and store them.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

NOUNS = ("baba", "ball", "door", "key", "wall")
IS = "is"
YOU, WIN, STOP, PUSH = "you", "win", "stop", "push"
PROPERTIES = (YOU, WIN, STOP, PUSH)
# Moves in BALROG's order of actions (App. D.3), as (dx, dy) with y growing downwards.
DIRECTIONS = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}
_BORDER = -1  # stands for the border's wall as the top thing of a border cell


@dataclasses.dataclass(frozen=True)
class Thing:
    """What can stand on a cell: an object (`block` False) or a rule block, whose `name`
    is its word ("baba", "is", "win")."""

    name: str
    block: bool = False
    colour: str = ""

    def __post_init__(self):
        words = NOUNS + (IS,) + PROPERTIES if self.block else NOUNS
        if self.name not in words:
            raise ValueError(f"no {'rule block' if self.block else 'object'} is called {self.name!r}")


@dataclasses.dataclass(frozen=True)
class Rule:
    noun: str
    property: str

    def __str__(self) -> str:
        return f"{self.noun} is {self.property}"


def obj(name: str, colour: str = "") -> Thing:
    return Thing(name, block=False, colour=colour)


def block(word: str) -> Thing:
    return Thing(word, block=True)


class Level:
    """A level's fixed part (its size and its things) and the game's rules on its states.

    `placed` lists the things in the order they arrived: on a shared cell the later one
    lies on top. `start` is the state the level begins in. Every method takes a state and
    leaves it unchanged; `step` returns the next one.
    """

    def __init__(self, width: int, height: int, placed: list[tuple[Thing, tuple[int, int]]]):
        if width < 3 or height < 3:
            raise ValueError("a level needs room inside its border")
        self.width = width
        self.height = height
        self.things: tuple[Thing, ...] = tuple(thing for thing, _ in placed)
        for thing, (x, y) in placed:
            if not (0 < x < width - 1 and 0 < y < height - 1):
                raise ValueError(f"{thing.name} at {(x, y)} is not inside the border")
        cells = [self.cell(x, y) for _, (x, y) in placed]
        heights = [cells[:i].count(cell) for i, cell in enumerate(cells)]
        self.start: tuple[int, ...] = tuple(cells) + tuple(heights)
        self.border = frozenset(
            self.cell(x, y) for x in range(width) for y in range(height) if x in (0, width - 1) or y in (0, height - 1)
        )
        self._offsets = {name: dx + dy * width for name, (dx, dy) in DIRECTIONS.items()}
        self._blocks = tuple(i for i, thing in enumerate(self.things) if thing.block)
        self._roles_of: dict[tuple[int, ...], _Roles] = {}

    # -- cells --------------------------------------------------------------------------
    def cell(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def stacks(self, state: tuple[int, ...]) -> dict[int, list[int]]:
        """The things on each occupied cell, bottom first."""
        count = len(self.things)
        stacks: dict[int, list[int]] = defaultdict(list)
        for i in sorted(range(count), key=lambda i: state[count + i]):
            stacks[state[i]].append(i)
        return stacks

    def tops(self, state: tuple[int, ...]) -> list[tuple[int, int]]:
        """(cell, thing) for the top thing of every occupied cell, in reading order."""
        return sorted((cell, stack[-1]) for cell, stack in self.stacks(state).items())

    def put_on_top(self, state: tuple[int, ...], i: int, cell: int) -> tuple[int, ...]:
        """`state` with thing `i`, the top of its cell, moved onto the top of `cell`."""
        count = len(self.things)
        height = sum(1 for j in range(count) if j != i and state[j] == cell)
        return state[:i] + (cell,) + state[i + 1 : count + i] + (height,) + state[count + i + 1 :]

    # -- rules --------------------------------------------------------------------------
    def rules(self, state: tuple[int, ...]) -> tuple[Rule, ...]:
        """The active rules in the order the reference finds them (see the module's doc)."""
        return self._roles(state).rules

    def properties(self, state: tuple[int, ...]) -> dict[str, frozenset[str]]:
        """Each noun's properties under the active rules (nouns without any are absent)."""
        return self._roles(state).properties

    def you(self, state: tuple[int, ...]) -> list[int]:
        """The things that are YOU, in reading order (then in the level's order)."""
        return sorted(self._roles(state).you, key=lambda i: (state[i], i))

    def win_objects(self, state: tuple[int, ...]) -> frozenset[int]:
        return self._roles(state).win

    def observer(self, state: tuple[int, ...]) -> int | None:
        """The thing the observation counts offsets from, as BALROG's wrapper picks it:
        the first top thing in reading order whose kind the *last* YOU rule names; None
        when there is none (the wrapper then starts a new level)."""
        nouns = [rule.noun for rule in self.rules(state) if rule.property == YOU]
        if not nouns:
            return None
        for _, i in self.tops(state):
            if not self.things[i].block and self.things[i].name == nouns[-1]:
                return i
        return None

    def is_won(self, state: tuple[int, ...]) -> bool:
        """Whether a YOU object lies on top of a WIN object, as after a winning move. The
        game itself decides a win during the move (`move`); the expert plans with this."""
        roles = self._roles(state)
        for stack in self.stacks(state).values():
            if len(stack) > 1 and stack[-1] in roles.you and stack[-2] in roles.win:
                return True
            if stack[-1] in roles.you and stack[-1] in roles.win:
                return True
        return False

    def _roles(self, state: tuple[int, ...]) -> "_Roles":
        # Rule blocks always lie on top (nothing can move onto one), so the rules depend
        # on the blocks' cells only, and a search meets the same few arrangements of
        # blocks under many positions of the objects.
        key = tuple(state[i] for i in self._blocks)
        roles = self._roles_of.get(key)
        if roles is None:
            roles = _Roles.of(self.things, self._read_rules(key))
            self._roles_of[key] = roles
        return roles

    def _read_rules(self, block_cells: tuple[int, ...]) -> tuple[Rule, ...]:
        word_at = {cell: self.things[i].name for i, cell in zip(self._blocks, block_cells)}
        found: list[Rule] = []
        for cell in sorted(word_at):
            if word_at[cell] != IS:
                continue
            # Every IS sits inside the border, so its four neighbours are on the grid.
            for before, after in ((cell - 1, cell + 1), (cell - self.width, cell + self.width)):
                noun, prop = word_at.get(before), word_at.get(after)
                if noun in NOUNS and prop in PROPERTIES:
                    found.append(Rule(noun, prop))
        return tuple(found)

    # -- moves --------------------------------------------------------------------------
    def step(self, state: tuple[int, ...], direction: str) -> tuple[int, ...]:
        """The state after the YOU objects try to move one cell towards `direction`."""
        return self.move(state, direction)[0]

    def move(self, state: tuple[int, ...], direction: str) -> tuple[tuple[int, ...], bool]:
        """(the state after the move, whether the move won)."""
        roles = self._roles(state)
        offset = self._offsets[direction]
        stacks = self.stacks(state)

        def top(cell: int) -> int | None:
            if cell in self.border:
                return _BORDER
            stack = stacks.get(cell)
            return stack[-1] if stack else None

        def shift(cell: int) -> tuple[int, bool]:
            """Move the top thing of `cell` forward if it can: (its cell after, won)."""
            ahead = cell + offset
            if top(ahead) in roles.pushable:
                shift(ahead)
            facing = top(ahead)
            landing = ahead if facing is None or facing in roles.overlappable else cell
            won = top(landing) in roles.win
            if landing != cell:
                stacks[landing].append(stacks[cell].pop())
            return landing, won

        moved: set[int] = set()
        won = False
        for cell in range(self.width * self.height):
            mover = top(cell)
            if mover in roles.you and mover not in moved:
                _, won = shift(cell)
                moved.add(mover)
        if not moved:
            return state, False
        cells, heights = list(state[: len(self.things)]), list(state[len(self.things) :])
        for cell, stack in stacks.items():
            for height, i in enumerate(stack):
                cells[i], heights[i] = cell, height
        return tuple(cells) + tuple(heights), won

    def blocks_walk(self, state: tuple[int, ...]) -> set[int]:
        """The cells a lone YOU object cannot simply step onto: the border and the cells
        whose top thing is STOP or pushable (a step there is a push, or no move at all)."""
        roles = self._roles(state)
        return set(self.border) | {cell for cell, i in self.tops(state) if i not in roles.overlappable}


@dataclasses.dataclass(frozen=True)
class _Roles:
    """What the rules of one arrangement of blocks make of each thing (by index)."""

    rules: tuple[Rule, ...]
    properties: dict[str, frozenset[str]]
    you: frozenset[int]
    win: frozenset[int]
    pushable: frozenset[int]
    # What a mover may step onto: objects that are not STOP (never a block, nor the border).
    overlappable: frozenset[int]

    @classmethod
    def of(cls, things: tuple[Thing, ...], rules: tuple[Rule, ...]) -> "_Roles":
        given: dict[str, set[str]] = defaultdict(set)
        for rule in rules:
            given[rule.noun].add(rule.property)

        def having(prop: str) -> frozenset[int]:
            return frozenset(i for i, thing in enumerate(things) if not thing.block and prop in given[thing.name])

        return cls(
            rules=rules,
            properties={noun: frozenset(props) for noun, props in given.items()},
            you=having(YOU),
            win=having(WIN),
            # Rule blocks can always be pushed.
            pushable=having(PUSH) | {i for i, thing in enumerate(things) if thing.block},
            overlappable=frozenset(i for i, thing in enumerate(things) if not thing.block) - having(STOP),
        )
