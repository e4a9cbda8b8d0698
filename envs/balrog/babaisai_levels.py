"""The 40 puzzle families of Baba Is AI that BALROG plays (BALROG App. D: "Agents are
tested on 40 different puzzle levels"), drawn as the package BALROG wraps
(nacloos/baba-is-ai) draws them.

BALROG seeds numpy's global generator with the episode's seed before it resets the
environment, and baba-is-ai lays every level out from that generator. `generate(family,
seed)` makes the same draws, in the same order, from a `numpy.random.RandomState(seed)`:
the level of a (family, seed) is the reference package's level for that seed
(`tests/envs/balrog/test_reference_babaisai.py` compares 200 of them whole). A level that
starts again because nothing is YOU any more is the next draw of the same generator
(`draw`), as in BALROG's wrapper.

The layouts (x to the right, y down, the border included in the sizes):

- One room (8×8): BABA IS YOU along the bottom row, OBJECT IS WIN in the top-left
  corner. `goto_win`: walk to the win object. `make_win`: the rule's noun has been moved
  into the room; push it back.
- Two rooms (13×9): a wall at x = 6 splits the grid; WALL IS STOP keeps baba in the left
  room. `two_room-goto_win` and `-make_win`: WALL IS STOP is already broken and the
  objects are on baba's side. `-break_stop-…`: the rule holds and the objects are across
  the wall; `-maybe_break_stop-…`: the objects may be on either side.
  `two_room-make_you`: the wall cannot be broken, so the player must make the object
  across it YOU. `two_room-make_wall_win`: the win object's noun is stuck against the
  border; the way out is WALL IS WIN.
- Distractors: `distr_obj` adds a second object, `distr_rule` a loose noun block for it,
  `distr_obj_rule` both, `distr_obj-irrelevant_rule` a second object and the noun of a
  third kind, `distr_win_rule` an active WIN rule for a third kind.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.balrog.babaisai_engine import IS, STOP, WIN, YOU, Level, Thing, block, obj

# baba-is-ai's kinds and colours, in its order (the draws index these lists).
OBJECT_KINDS = ("ball", "key", "door")
OBJECT_COLOURS = ("red", "blue", "green")
BABA_COLOUR = "white"
WALL_COLOUR = "grey"

ONE_ROOM, TWO_ROOMS, MAKE_YOU, MAKE_WALL_WIN = "one room", "two rooms", "make you", "make wall win"
# Where objects are placed, as (left, top, width, height) of the area draws come from;
# draws landing on something already there are drawn again.
_ONE_ROOM_FLOOR = (1, 2, 8, 8)
_WIN_NOUN_AREA = (2, 2, 4, 4)
_AREAS = {
    "left_pushable": (2, 3, 4, 3),
    "right_pushable": (7, 3, 4, 3),
    "left_anywhere": (1, 1, 4, 7),
    "right_anywhere": (7, 2, 4, 7),
    "anywhere": (1, 2, 11, 7),
}
# The narrower rooms of make_you and make_wall_win.
_NARROW_AREAS = {**_AREAS, "left_pushable": (2, 3, 3, 3), "right_pushable": (8, 3, 3, 3)}
# The cells a loose distractor noun may be put on in one room (some twice: the draw is
# uniform over the list): from there it can never complete a usable rule.
_ONE_ROOM_EDGE = [(4, 6), (5, 6), (6, 6), (4, 1), (5, 1), (6, 1), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5), (6, 6)]
# Against the right border and along the bottom row of the right room: a block there only
# slides along that edge.
_RIGHT_EDGE = [(11, 2), (11, 3), (11, 4), (11, 5), (11, 6), (11, 7), (10, 7), (9, 7), (8, 7)]


@dataclasses.dataclass(frozen=True)
class Family:
    name: str
    layout: str
    win_rule_broken: bool = False
    stop_rule_broken: bool = False
    objects_area: str = "left_anywhere"
    distractor_object: bool = True
    distractor_block: bool = True
    irrelevant_block: bool = False
    distractor_win_rule: bool = False


# Distractor suffixes: (second object, loose noun block, the block names a third kind).
_VARIANTS = {
    "": (False, False, False),
    "-distr_obj": (True, False, False),
    "-distr_rule": (False, True, False),
    "-distr_obj_rule": (True, True, False),
    "-distr_obj-irrelevant_rule": (True, True, True),
}
_BASES = {
    "goto_win": dict(layout=ONE_ROOM),
    "make_win": dict(layout=ONE_ROOM, win_rule_broken=True),
    "two_room-goto_win": dict(layout=TWO_ROOMS, stop_rule_broken=True),
    "two_room-make_win": dict(layout=TWO_ROOMS, stop_rule_broken=True, win_rule_broken=True),
    "two_room-break_stop-goto_win": dict(layout=TWO_ROOMS, objects_area="right_anywhere"),
    "two_room-break_stop-make_win": dict(layout=TWO_ROOMS, win_rule_broken=True, objects_area="right_anywhere"),
    "two_room-maybe_break_stop-goto_win": dict(layout=TWO_ROOMS, objects_area="anywhere"),
}
_SPECIAL = (
    Family("two_room-goto_win-distr_win_rule", TWO_ROOMS, stop_rule_broken=True, distractor_win_rule=True),
    Family("two_room-make_win-distr_win_rule", TWO_ROOMS, win_rule_broken=True, stop_rule_broken=True,
           distractor_win_rule=True),
    Family("two_room-make_you", MAKE_YOU, objects_area="right_anywhere"),
    Family("two_room-make_you-make_win", MAKE_YOU, win_rule_broken=True, objects_area="right_anywhere"),
    Family("two_room-make_wall_win", MAKE_WALL_WIN, objects_area="right_anywhere", irrelevant_block=True),
)
FAMILIES: dict[str, Family] = {
    family.name: family
    for family in sorted(
        [
            Family(base + suffix, distractor_object=with_object, distractor_block=loose, irrelevant_block=third,
                   **options)
            for base, options in _BASES.items()
            for suffix, (with_object, loose, third) in _VARIANTS.items()
        ]
        + list(_SPECIAL),
        key=lambda family: family.name,
    )
}
FAMILY_NAMES: tuple[str, ...] = tuple(FAMILIES)


@dataclasses.dataclass(frozen=True)
class Puzzle:
    family: str
    seed: int
    level: Level


def family_of_seed(seed: int) -> str:
    """The family an unrestricted run plays for `seed`: the seed modulo 40 over the sorted
    names, so N×40 consecutive seeds play every family N times."""
    return FAMILY_NAMES[seed % len(FAMILY_NAMES)]


def seeded(seed: int) -> np.random.RandomState:
    """The generator BALROG's `np.random.seed(seed)` sets (numpy takes seeds below 2**32)."""
    return np.random.RandomState(seed % 2**32)


def generate(family_name: str, seed: int) -> Puzzle:
    return Puzzle(family_name, seed, draw(family_name, seeded(seed)))


def draw(family_name: str, rng: np.random.RandomState) -> Level:
    """The next level of `family_name` from `rng` (advancing it)."""
    family = FAMILIES[family_name]
    lay_out = {ONE_ROOM: _one_room, TWO_ROOMS: _two_rooms, MAKE_YOU: _make_you, MAKE_WALL_WIN: _make_wall_win}
    board = lay_out[family.layout](family, rng)
    return Level(board.width, board.height, board.placed())


class _Board:
    """A level being laid out: a stack of things on each cell, and the draws of cells."""

    def __init__(self, width: int, height: int, rng: np.random.RandomState):
        self.width, self.height, self.rng = width, height, rng
        self.stacks: dict[tuple[int, int], list[Thing]] = {}

    def placed(self) -> list[tuple[Thing, tuple[int, int]]]:
        """The things bottom first on each cell, cells in reading order."""
        return [(thing, (x, y)) for (x, y) in sorted(self.stacks, key=lambda at: (at[1], at[0]))
                for thing in self.stacks[(x, y)]]

    def taken(self, at: tuple[int, int]) -> bool:
        x, y = at
        return bool(self.stacks.get(at)) or x in (0, self.width - 1) or y in (0, self.height - 1)

    def put(self, thing: Thing, at: tuple[int, int]) -> None:
        self.stacks.setdefault(at, []).append(thing)

    def put_rule(self, noun: str, prop: str, left_end: tuple[int, int]) -> list[tuple[int, int]]:
        """NOUN IS PROPERTY left to right from `left_end`; the blocks' cells."""
        x, y = left_end
        cells = [(x + k, y) for k in range(3)]
        for word, at in zip((noun, IS, prop), cells):
            self.put(block(word), at)
        return cells

    def free_cell(self, area: tuple[int, int, int, int]) -> tuple[int, int]:
        """A uniform draw of x then y in the area (clipped to the grid), drawn again while
        the cell is taken: baba-is-ai's rejection sampling."""
        left, top, width, height = area
        while True:
            at = (int(self.rng.randint(left, min(left + width, self.width))),
                  int(self.rng.randint(top, min(top + height, self.height))))
            if not self.taken(at):
                return at

    def place(self, thing: Thing, area: tuple[int, int, int, int]) -> None:
        self.put(thing, self.free_cell(area))

    def pick(self, cells: list[tuple[int, int]]) -> tuple[int, int]:
        return cells[int(self.rng.choice(len(cells)))]

    def move_top(self, source: tuple[int, int], to: tuple[int, int]) -> None:
        """Move the top thing of `source` (breaking its rule) onto `to`."""
        self.put(self.stacks[source].pop(), to)

    def divide(self) -> None:
        for y in range(1, self.height - 1):
            self.put(obj("wall", WALL_COLOUR), (self.width // 2, y))


def _draw_objects(rng: np.random.RandomState) -> list[Thing]:
    """Three objects of three different kinds, each of a random colour: the win object,
    the distractor object and the kind only an irrelevant noun or WIN rule names."""
    kinds = rng.choice(len(OBJECT_KINDS), size=3, replace=False)
    colours = rng.choice(len(OBJECT_COLOURS), size=3, replace=True)
    return [obj(OBJECT_KINDS[k], OBJECT_COLOURS[c]) for k, c in zip(kinds, colours)]


def _one_room(family: Family, rng: np.random.RandomState) -> _Board:
    board = _Board(8, 8, rng)
    win_object, other, third = _draw_objects(rng)
    board.put_rule("baba", YOU, (1, 6))
    win_noun = board.put_rule(win_object.name, WIN, (1, 1))[0]
    if family.win_rule_broken:
        board.move_top(win_noun, board.free_cell(_WIN_NOUN_AREA))
    if family.distractor_block:
        named = third if family.irrelevant_block else other
        board.put(block(named.name), board.pick(_ONE_ROOM_EDGE))
    board.place(obj("baba", BABA_COLOUR), _ONE_ROOM_FLOOR)
    board.place(win_object, _ONE_ROOM_FLOOR)
    if family.distractor_object:
        board.place(other, _ONE_ROOM_FLOOR)
    return board


def _two_rooms(family: Family, rng: np.random.RandomState) -> _Board:
    board = _Board(13, 9, rng)
    board.divide()
    win_object, other, third = _draw_objects(rng)
    board.put_rule("baba", YOU, (1, 7))
    stop_rule = board.put_rule("wall", STOP, (1, 2))
    win_noun = board.put_rule(win_object.name, WIN, (9, 1))[0]
    if family.distractor_block:
        if family.irrelevant_block:
            board.place(block(third.name), _AREAS["right_pushable"])
        elif family.distractor_object:
            # With the object in the level its noun must stay useless: against the edge.
            board.put(block(other.name), board.pick(_RIGHT_EDGE))
        else:
            board.place(block(other.name), _AREAS["right_pushable"])
    if family.stop_rule_broken:
        to = board.free_cell(_AREAS["left_pushable"])
        board.move_top(board.pick(stop_rule[1:]), to)
    if family.win_rule_broken:
        board.move_top(win_noun, board.free_cell(_AREAS["right_pushable"]))
    board.place(obj("baba", BABA_COLOUR), _AREAS["left_pushable"])
    board.place(win_object, _AREAS[family.objects_area])
    if family.distractor_object:
        board.place(other, _AREAS[family.objects_area])
    if family.distractor_win_rule:
        # Laid last, on top of whatever already stands on those cells.
        board.put_rule(third.name, WIN, (9, 4))
    return board


def _make_you(family: Family, rng: np.random.RandomState) -> _Board:
    board = _Board(13, 9, rng)
    board.divide()
    win_object, other, _ = _draw_objects(rng)
    # BABA IS YOU one row above the bottom, so a noun pushed down into its first cell
    # replaces BABA; WALL IS STOP in the top-left corner, where it cannot be broken.
    board.put_rule("baba", YOU, (1, 6))
    board.put_rule("wall", STOP, (1, 1))
    win_noun = board.put_rule(win_object.name, WIN, (9, 1))[0]
    board.place(block(other.name), _NARROW_AREAS["left_pushable"])
    if family.win_rule_broken:
        board.move_top(win_noun, board.free_cell(_NARROW_AREAS["right_pushable"]))
    board.place(obj("baba", BABA_COLOUR), _NARROW_AREAS["left_pushable"])
    board.place(win_object, _NARROW_AREAS[family.objects_area])
    board.place(other, _NARROW_AREAS[family.objects_area])
    return board


def _make_wall_win(family: Family, rng: np.random.RandomState) -> _Board:
    board = _Board(13, 9, rng)
    board.divide()
    win_object, other, third = _draw_objects(rng)
    board.put_rule("baba", YOU, (1, 7))
    board.put_rule("wall", STOP, (2, 2))
    win_noun = board.put_rule(win_object.name, WIN, (9, 1))[0]
    board.place(block(third.name), _NARROW_AREAS["right_pushable"])
    # The win object's noun slides along the edge only: WALL must take its place.
    board.move_top(win_noun, board.pick(_RIGHT_EDGE))
    board.place(obj("baba", BABA_COLOUR), _NARROW_AREAS["left_pushable"])
    board.place(win_object, _NARROW_AREAS[family.objects_area])
    board.place(other, _NARROW_AREAS[family.objects_area])
    return board
