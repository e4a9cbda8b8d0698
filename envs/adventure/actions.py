"""Actions: preconditions, effects and labels (AdventureGame §3.2, Table 5).

`resolve(world, state, command)` checks an action's preconditions in order and
either returns the first failure or the facts the action removes and adds. It never
mutates anything, so the engine and the planner share it.

    action   precondition                                          effect
    go R     R is a room, not the current one, a passage leads there   at(player) and at(carried) → R
    take X   X movable, here and not inside a closed container,     in/on(X, _) → in(X, inventory)
             not carried, inventory below its limit
    put X p Y   X carried; Y here, a receptacle; p fits Y           in(X, inventory) → p(X, Y)
             (in: container, on: support); a container is open
    open C   C here, a container, closed                           closed(C) → open(C)
    close C  C here, a container, open                             open(C) → closed(C)
    examine X   X here (or carried, the inventory, the room)       none (describes X)
    look     -                                                     none (describes the room)
    done     -                                                     ends the episode
    verb X   (synthetic state verbs) X here, of a kind the verb    state(X, from) → state(X, to)
             acts on, X in the verb's from-state (or, for a
             one-state kind, not yet in its state)
"""

from __future__ import annotations

import dataclasses

from envs.adventure.domain import INVENTORY, PLAYER
from envs.adventure.facts import Fact, State, View, World
from envs.adventure.parser import Command


@dataclasses.dataclass(frozen=True)
class ActionType:
    id: str
    epistemic: bool
    pragmatic: bool
    replaceable: bool
    summary: str


# Table 5, with the state-changing verbs of the hard synthetic-word level added.
ACTION_TYPES: dict[str, ActionType] = {
    "open": ActionType("open", True, True, True, "opens a closed container, showing what is inside"),
    "close": ActionType("close", False, True, True, "closes an open container"),
    "take": ActionType("take", False, True, True, "moves a movable object into the inventory"),
    "put": ActionType("put", False, True, True, "moves a carried object in or on a receptacle"),
    "go": ActionType("go", True, True, False, "moves the player and what it carries to a connected room"),
    "done": ActionType("done", False, True, False, "ends the episode"),
    "examine": ActionType("examine", True, False, False, "describes an entity's state"),
    "look": ActionType("look", False, False, False, "describes the current room"),
}
STATE_VERB = ActionType("state verb", False, True, False, "changes an object's state (synthetic words, hard)")


def action_type(action: str) -> ActionType:
    return ACTION_TYPES.get(action, STATE_VERB)


@dataclasses.dataclass(frozen=True)
class Outcome:
    success: bool
    action: str
    args: tuple[str, ...] = ()  # resolved entity ids
    prep: str | None = None
    removed: frozenset[Fact] = frozenset()
    added: frozenset[Fact] = frozenset()
    failure: str | None = None
    detail: dict = dataclasses.field(default_factory=dict)

    @property
    def ends(self) -> bool:
        return self.success and self.action == "done"

    def apply(self, state: State) -> State:
        if not (self.removed or self.added):
            return state
        return (state - self.removed) | self.added


def _fail(command: Command, failure: str, **detail) -> Outcome:
    return Outcome(False, command.action, failure=failure, detail=detail)


def _pick(view: View, candidates: tuple[str, ...]) -> str:
    """Of the entities a name may mean, the one the player can see (else the first)."""
    for entity in candidates:
        if view.visible(entity):
            return entity
    return candidates[0]


def _present(view: View, command: Command, entity: str, known: frozenset[Fact]) -> Outcome | None:
    """A failure if the entity is not within the player's reach, else None."""
    if view.visible(entity):
        return None
    if view.hidden(entity) and view.room_of.get(entity) == view.player_room:
        holder = view.holder[entity][1]
        if ("in", entity, holder) in known:
            return _fail(command, "not_reachable", entity=entity, holder=holder)
    return _fail(command, "entity_not_here", entity=entity)


def resolve(
    world: World, state: State, command: Command, known: frozenset[Fact] = frozenset(), view: View | None = None
) -> Outcome:
    """Check preconditions and compute effects; `known` (facts the player has
    observed) only decides how a failure is worded. `view` may be passed when the
    caller already has one of `state`."""
    view = view if view is not None else View(world, state)
    action = command.action
    args = tuple(_pick(view, c) for c in command.args)

    if action == "look":
        return Outcome(True, action)
    if action == "done":
        return Outcome(True, action)

    if action == "go":
        room = args[0]
        if not world.is_("room", room):
            if not view.visible(room):
                return _fail(command, "entity_not_here", entity=room)
            return _fail(command, "not_a_room", entity=room)
        here = view.player_room
        if room == here:
            return _fail(command, "already_here", entity=room)
        if room not in world.neighbours(here):
            return _fail(command, "no_passage", entity=room, here=here)
        removed = {("at", PLAYER, here)}
        added = {("at", PLAYER, room)}
        for item in view.inventory:
            removed.add(("at", item, here))
            added.add(("at", item, room))
        return Outcome(True, action, (room,), removed=frozenset(removed), added=frozenset(added))

    entity = args[0]
    if action == "examine":
        failure = _present(view, command, entity, known)
        return failure or Outcome(True, action, (entity,))

    if action == "take":
        if view.carried(entity):
            return _fail(command, "already_carried", entity=entity)
        failure = _present(view, command, entity, known)
        if failure:
            return failure
        if not world.is_("movable", entity):
            return _fail(command, "not_takeable", entity=entity)
        limit = world.inventory_limit
        if limit is not None and len(view.inventory) >= limit:
            return _fail(command, "inventory_full", entity=entity, limit=limit)
        prep, holder = view.holder[entity]
        return Outcome(
            True,
            action,
            (entity,),
            removed=frozenset({(prep, entity, holder)}),
            added=frozenset({("in", entity, INVENTORY)}),
        )

    if action == "put":
        target = args[1]
        if not view.carried(entity):
            return _fail(command, "not_carried", entity=entity)
        failure = _present(view, command, target, known)
        if failure:
            return failure
        is_container = world.is_("container", target)
        is_support = world.is_("support", target)
        prep = command.prep or ("in" if is_container else "on")
        if target == entity or not (is_container or is_support) or target == INVENTORY:
            return _fail(command, "not_receptacle", entity=target, prep=prep)
        if (prep == "in" and not is_container) or (prep == "on" and not is_support):
            return _fail(command, "wrong_preposition", entity=target, prep=prep)
        if is_container and target in view.closed:
            return _fail(command, "container_closed", entity=target)
        return Outcome(
            True,
            action,
            (entity, target),
            prep,
            removed=frozenset({("in", entity, INVENTORY)}),
            added=frozenset({(prep, entity, target)}),
        )

    if action in ("open", "close"):
        failure = _present(view, command, entity, known)
        if failure:
            return failure
        if not world.is_("container", entity):
            return _fail(command, "not_openable", entity=entity)
        if action == "open":
            if entity in view.open:
                return _fail(command, "already_open", entity=entity)
            return Outcome(
                True, action, (entity,), removed=frozenset({("closed", entity)}), added=frozenset({("open", entity)})
            )
        if entity in view.closed:
            return _fail(command, "already_closed", entity=entity)
        return Outcome(
            True, action, (entity,), removed=frozenset({("open", entity)}), added=frozenset({("closed", entity)})
        )

    # A state-changing verb (synthetic words, hard level).
    failure = _present(view, command, entity, known)
    if failure:
        return failure
    kind = world.kind_of.get(entity)
    change = world.kinds.get(kind, {}).get(action) if kind else None
    if change is None:
        return _fail(command, "not_applicable", entity=entity, verb=command.verb)
    source, goal = change
    current = view.states.get(entity, set())
    if goal in current:
        return _fail(command, "already_state", entity=entity, state=goal)
    if source is not None and source not in current:
        return _fail(command, "wrong_state", entity=entity, needs=source)
    removed = frozenset({("state", entity, source)}) if source is not None else frozenset()
    return Outcome(True, action, (entity,), removed=removed, added=frozenset({("state", entity, goal)}))


def command_text(world: World, action: str, args: tuple[str, ...] = (), prep: str | None = None) -> str:
    """The words that perform an action in this world (what the oracle types)."""
    verb = world.verbs[action]
    if action == "put":
        return f"{verb} {world.name(args[0])} {prep} {world.name(args[1])}"
    return " ".join([verb] + [world.name(a) for a in args])
