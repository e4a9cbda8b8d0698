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

Everything random is drawn from minigrid's generator, which `reset(seed=...)` seeds:
the same seed gives the same layout and mission. The rules are BabyAI-Text's, the order
of the random draws is this module's own: a seed does not give the layout BALROG's fork
gives it, so games follow the same rules but are not BALROG's games seed for seed.
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
# The two rooms of "open" are columns 0 and 1 of one row; the wall between them is
# the right wall (index 0) of the left room and the left wall (index 2) of the right one.
WALL_TOWARDS_OTHER_ROOM = {0: 0, 1: 2}


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
            self._require_everything_reachable()
            self.instrs = self._single_room_mission(objs)
        if any(phrase in self.instrs.surface(self) for phrase in HELD_OUT_PHRASES):
            raise RejectSampling("the mission names an object held out for the test level")

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
        """Two rooms joined by a locked door; the key and the distractors lie in the
        room the agent starts in."""
        locked_column = self._rand_int(0, 2)
        open_column = 1 - locked_column
        colour = self._rand_elem(LOCKED_DOOR_COLOURS)
        self.add_door(locked_column, 0, WALL_TOWARDS_OTHER_ROOM[locked_column], color=colour, locked=True)
        self.locked_room = self.get_room(locked_column, 0)
        self.add_object(open_column, 0, "key", colour)
        self.add_distractors(open_column, 0, num_distractors=self.num_dists, all_unique=False)
        # Placed after the objects, facing a wall or free floor.
        self.place_agent(open_column, 0)
        self._require_everything_reachable()
        return OpenInstr(ObjDesc("door", self._rand_elem((None, colour))))

    def _require_everything_reachable(self):
        if not self.check_objs_reachable(raise_exc=False):
            raise RejectSampling("an object can only be reached by moving another one")
