"""BabyAI-Text's MixedTrainLocal level on minigrid 3.2.0 (BALROG App. A.1).

BALROG plays five tasks of the level BabyAI-Text introduced (Carta et al. 2023,
package babyai-text, level "MixedTrainLocal"): one mission kind each. That level is not
part of minigrid's releases, so it is written here on minigrid's `RoomGridLevel` and
its instruction classes. Facts taken from BabyAI-Text's level:

- one 8×8 room (6×6 floor) for every kind except "open", which has two rooms side by
  side joined by a locked door whose key lies in the agent's room;
- as many distractors (keys, balls, boxes of random colours, repeats allowed) as the
  level is built with, plus the one or two objects a mission needs; every object must be
  reachable without moving another one. BabyAI-Text's default is eight, but BALROG's
  harness builds the level with `num_dists: 0` (its config), so BALROG's games hold only
  the mission's objects (and, for "open", the key): that is the default here;
- "go to" and "pick up" name one of the objects, "put next to" two, and "pick up then
  go to" a pick-up followed by a go-to, phrased either as "A, then B" or "B after you A";
- "open" names the locked door, with its colour or without; that door is never red
  or grey;
- missions naming a yellow box, a red key, a red door, a green ball or a grey door are
  held out for BabyAI-Text's test level and never drawn here;
- the step limit is minigrid's rule for BabyAI levels: 64 steps per room per
  navigation the mission needs (64 for go to and pick up, 128 for the others).

Everything random is drawn from minigrid's generator, which `reset(seed=...)` seeds, in
the order BabyAI-Text's level draws it (minigrid 3.2.0's rooms, placements and
instructions draw as the fork's do): a seed gives the game BALROG's code gives it — the
same mission, grid and agent for seeds 0–9 of all five kinds
(tests/envs/balrog/test_reference_babyai.py). BALROG builds its level object until it
holds the wanted kind (the kind is drawn, unseeded, when the level is built); here the
kind is chosen directly, which leaves every seeded draw unchanged.
"""

from __future__ import annotations

from minigrid.core.roomgrid import RoomGrid
from minigrid.core.world_object import WorldObj
from minigrid.envs.babyai.core.roomgrid_level import RejectSampling, RoomGridLevel
from minigrid.envs.babyai.core.verifier import (
    AfterInstr,
    BeforeInstr,
    GoToInstr,
    ObjDesc,
    OpenInstr,
    PickupInstr,
    PutNextInstr,
)

GOTO = "goto"
PICKUP = "pickup"
OPEN = "open"
PUTNEXT = "putnext"
PICKUP_THEN_GOTO = "pick up seq go to"
KINDS = (GOTO, PICKUP, OPEN, PUTNEXT, PICKUP_THEN_GOTO)

ROOM_SIZE = 8
# BALROG's config (`envs.babyai_kwargs.num_dists: 0`) passes no distractors to the level;
# the real leaderboard submissions' first views hold one or two objects.
DISTRACTORS = 0
# The colours a locked door may have: red and grey doors are kept for the test level.
LOCKED_DOOR_COLOURS = ("yellow", "green", "blue", "purple")
# Object descriptions BabyAI-Text keeps out of its training missions.
HELD_OUT_PHRASES = ("yellow box", "red key", "red door", "green ball", "grey door")
# Objects besides the distractors each single-room kind adds: the mission's targets.
TARGETS = {GOTO: 1, PICKUP: 1, PUTNEXT: 2, PICKUP_THEN_GOTO: 2}


def same_description(a: WorldObj, b: WorldObj) -> bool:
    return a.type == b.type and a.color == b.color


class MixedTrainLocalLevel(RoomGridLevel):
    """One mission kind of BabyAI-Text's MixedTrainLocal level."""

    def __init__(self, kind: str, num_dists: int = DISTRACTORS, **kwargs):
        if kind not in KINDS:
            raise ValueError(f"unknown mission kind {kind!r}; choose one of {', '.join(KINDS)}")
        if num_dists < 0:
            raise ValueError("the number of distractors cannot be negative")
        self.kind = kind
        # BALROG tells the tasks apart by this attribute of BabyAI-Text's level.
        self.action_kinds = [kind]
        self.num_dists = num_dists
        self.locked_room = None
        super().__init__(room_size=ROOM_SIZE, num_rows=1, num_cols=2 if kind == OPEN else 1, **kwargs)

    def _gen_grid(self, width, height):
        # RoomGridLevel's own loop prints every rejected draw; this one retries quietly.
        # A rejection rebuilds the rooms from scratch, so no draw leaks into the next.
        while True:
            RoomGrid._gen_grid(self, width, height)
            try:
                self.gen_mission()
                self.validate_instrs(self.instrs)
            except (RejectSampling, RecursionError):
                continue
            break
        self.surface = self.instrs.surface(self)
        self.mission = self.surface

    def gen_mission(self):
        self.locked_room = None
        if self.kind == OPEN:
            self.instrs = self._locked_door_mission()
        else:
            # The agent is placed first so that no object lands next to it.
            self.place_agent()
            objs = self.add_distractors(num_distractors=self.num_dists + TARGETS[self.kind], all_unique=False)
            reachable = self.check_objs_reachable(raise_exc=False)
            # The mission is drawn even from a layout about to be rejected: BabyAI-Text's
            # level draws it before looking at either test, and the next attempt must
            # start from the same point of the random stream for a seed to give its game.
            self.instrs = self._single_room_mission(objs)
            if not reachable:
                raise RejectSampling("an object can only be reached by moving another one")
        if self._names_held_out_object(self.instrs):
            raise RejectSampling("the mission names an object held out for the test level")

    def _names_held_out_object(self, instrs) -> bool:
        return any(phrase in instrs.surface(self) for phrase in HELD_OUT_PHRASES)

    # -- the kinds ----------------------------------------------------------------------
    def _single_room_mission(self, objs: list[WorldObj]):
        first = self._rand_elem(objs)
        if self.kind == GOTO:
            return GoToInstr(ObjDesc(first.type, first.color))
        if self.kind == PICKUP:
            return PickupInstr(ObjDesc(first.type, first.color))
        second = self._second_object(first, objs)
        if self.kind == PUTNEXT:
            return PutNextInstr(ObjDesc(first.type, first.color), ObjDesc(second.type, second.color))
        pick_up = PickupInstr(ObjDesc(first.type, first.color))
        go_to = GoToInstr(ObjDesc(second.type, second.color))
        if self._rand_elem(("then", "after")) == "then":
            return BeforeInstr(pick_up, go_to)
        return AfterInstr(go_to, pick_up)

    def _second_object(self, first: WorldObj, objs: list[WorldObj]) -> WorldObj:
        """The second object of a two-object mission. When the first is the only object
        of its description, a second of the same description would be the same object,
        so another is drawn; other clashes are left to `validate_instrs`, which rejects
        a put-next whose two descriptions share an object."""
        second = self._rand_elem(objs)
        first_is_unique = sum(same_description(first, obj) for obj in objs) < 2
        while first_is_unique and same_description(first, second):
            second = self._rand_elem(objs)
        return second

    def _locked_door_mission(self):
        """Two rooms joined by a locked door, its key in the other room, the agent
        anywhere but the locked room. The attempts are repeated here rather than by
        rejection: BabyAI-Text's level rebuilds only the rooms between its attempts,
        and the random draws must follow its order (rooms, door colour, locked room and
        wall, key room, agent room, whether the mission names the colour) for a seed to
        give the game BALROG's code gives it."""
        while True:
            RoomGrid._gen_grid(self, self.width, self.height)
            colour = self._rand_elem(LOCKED_DOOR_COLOURS)
            self._lock_a_room(colour)
            self.connect_all()
            for column in range(self.num_cols):
                if self.get_room(column, 0) is not self.locked_room:
                    self.add_distractors(column, 0, num_distractors=self.num_dists, all_unique=False)
            self._place_agent_outside_locked_room()
            reachable = self.check_objs_reachable(raise_exc=False)
            instrs = OpenInstr(ObjDesc("door", self._rand_elem((None, colour))))
            if reachable and not self._names_held_out_object(instrs):
                return instrs

    def _lock_a_room(self, colour: str) -> None:
        """A locked door of `colour` on an inner wall of a random room, then its key in
        a random other room (minigrid's `add_locked_room` has no colour parameter)."""
        while True:
            column, row, wall = self._rand_int(0, self.num_cols), self._rand_int(0, self.num_rows), self._rand_int(0, 4)
            room = self.get_room(column, row)
            if room.neighbors[wall] is not None:
                break
        self.locked_room = room
        self.add_door(column, row, wall, color=colour, locked=True)
        while True:
            column, row = self._rand_int(0, self.num_cols), self._rand_int(0, self.num_rows)
            if self.get_room(column, row) is not self.locked_room:
                break
        self.add_object(column, row, "key", colour)

    def _place_agent_outside_locked_room(self) -> None:
        while True:
            self.place_agent()
            if self.room_from_pos(*self.agent_pos) is not self.locked_room:
                return
