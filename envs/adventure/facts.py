"""World facts and state (AdventureGame §3.2).

The world state is a frozen set of fact tuples. Mutable facts:

    ("at", entity, room)        where an entity is (player, furniture, objects)
    ("in", object, holder)      inside a container, or ("in", object, "inventory")
    ("on", object, support)     on a support (furniture or a room's floor)
    ("open", container) / ("closed", container)
    ("state", object, adjective)   synthetic-word state adjectives (hard level)

Immutable facts live on the `World`: entity types ("room", "container", "support",
"floor", "movable", "receptacle", "thing"), passages ("exit", room, room) in both
directions, and ("kind", object, kind) for objects whose states change by verbs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from envs.adventure import domain
from envs.adventure.domain import INVENTORY, PLAYER

Fact = tuple[str, ...]
State = frozenset  # frozenset[Fact]

MUTABLE_PREDICATES = ("at", "in", "on", "open", "closed", "state")


@dataclasses.dataclass(frozen=True, eq=False)
class World:
    """Everything about an instance that never changes during an episode."""

    names: Mapping[str, str]  # entity id -> the words that name it
    types: Mapping[str, frozenset[str]]  # entity id -> type labels
    exits: frozenset[tuple[str, str]]  # (from room, to room), both directions present
    verbs: Mapping[str, str]  # action id -> the verb the player types
    adjectives: Mapping[str, str]  # state id -> the adjective shown to the player
    kinds: Mapping[str, Mapping[str, tuple[str | None, str]]]  # kind -> verb id -> (from state, to state)
    kind_of: Mapping[str, str]  # object id -> kind
    inventory_limit: int | None
    goals: tuple[Fact, ...]
    initial: frozenset[Fact]

    # -- derived lookups -----------------------------------------------------------
    def __post_init__(self):
        verb_actions = {word: action for action, word in self.verbs.items()}
        if len(verb_actions) != len(self.verbs):
            raise ValueError("two actions share a verb")
        object.__setattr__(self, "verb_actions", verb_actions)
        neighbours: dict[str, tuple[str, ...]] = {}
        for room in self.rooms:
            neighbours[room] = tuple(sorted(b for a, b in self.exits if a == room))
        object.__setattr__(self, "_neighbours", neighbours)

    @property
    def rooms(self) -> tuple[str, ...]:
        return tuple(sorted(e for e, t in self.types.items() if "room" in t))

    def is_(self, type_label: str, entity: str) -> bool:
        return type_label in self.types.get(entity, ())

    def name(self, entity: str) -> str:
        return self.names[entity]

    def neighbours(self, room: str) -> tuple[str, ...]:
        return self._neighbours.get(room, ())

    def static_facts(self) -> frozenset[Fact]:
        facts: set[Fact] = set()
        for entity, labels in self.types.items():
            facts.update((label, entity) for label in labels)
        facts.update(("exit", a, b) for a, b in self.exits)
        facts.update(("kind", entity, kind) for entity, kind in self.kind_of.items())
        return frozenset(facts)

    def goal_facts_met(self, state: State) -> list[Fact]:
        return [goal for goal in self.goals if goal in state]

    # -- (de)serialisation -----------------------------------------------------------
    def to_json(self, home: bool = False) -> dict:
        """A JSON form; with `home`, the names and types of the home domain are left
        out and only the names that differ from it are kept (under "renamed")."""
        if home:
            defaults = domain.home_names()
            if dict(self.types) != domain.home_types() or set(self.names) != set(defaults):
                raise ValueError("not a home-domain world")
            head = {
                "domain": "home",
                "renamed": {e: n for e, n in sorted(self.names.items()) if defaults[e] != n},
            }
        else:
            head = {
                "names": dict(sorted(self.names.items())),
                "types": {entity: sorted(labels) for entity, labels in sorted(self.types.items())},
            }
        return head | {
            "exits": sorted([a, b] for a, b in self.exits if a < b),
            "verbs": dict(sorted(self.verbs.items())),
            "adjectives": dict(sorted(self.adjectives.items())),
            "kinds": {
                kind: {verb: [change[0], change[1]] for verb, change in sorted(verbs.items())}
                for kind, verbs in sorted(self.kinds.items())
            },
            "kind_of": dict(sorted(self.kind_of.items())),
            "inventory_limit": self.inventory_limit,
            "goals": [list(goal) for goal in self.goals],
            "initial": sorted(list(fact) for fact in self.initial),
        }

    @classmethod
    def from_json(cls, data: Mapping) -> World:
        exits = set()
        for a, b in data["exits"]:
            exits.add((a, b))
            exits.add((b, a))
        if data.get("domain") == "home":
            names = domain.home_names() | dict(data["renamed"])
            types = domain.home_types()
        else:
            names = dict(data["names"])
            types = {entity: frozenset(labels) for entity, labels in data["types"].items()}
        return cls(
            names=names,
            types=types,
            exits=frozenset(exits),
            verbs=dict(data["verbs"]),
            adjectives=dict(data.get("adjectives", {})),
            kinds={
                kind: {verb: (change[0], change[1]) for verb, change in verbs.items()}
                for kind, verbs in data.get("kinds", {}).items()
            },
            kind_of=dict(data.get("kind_of", {})),
            inventory_limit=data.get("inventory_limit"),
            goals=tuple(tuple(goal) for goal in data["goals"]),
            initial=frozenset(tuple(fact) for fact in data["initial"]),
        )


class View:
    """Indexed read access to one state (built once per state, then queried)."""

    __slots__ = ("world", "state", "room_of", "holder", "open", "closed", "states", "player_room", "inventory")

    def __init__(self, world: World, state: State):
        self.world = world
        self.state = state
        self.room_of: dict[str, str] = {}
        self.holder: dict[str, tuple[str, str]] = {}
        self.open: set[str] = set()
        self.closed: set[str] = set()
        self.states: dict[str, set[str]] = {}
        for fact in state:
            predicate = fact[0]
            if predicate == "at":
                self.room_of[fact[1]] = fact[2]
            elif predicate == "in" or predicate == "on":
                self.holder[fact[1]] = (predicate, fact[2])
            elif predicate == "open":
                self.open.add(fact[1])
            elif predicate == "closed":
                self.closed.add(fact[1])
            elif predicate == "state":
                self.states.setdefault(fact[1], set()).add(fact[2])
        self.player_room = self.room_of[PLAYER]
        self.inventory = sorted(x for x, (prep, y) in self.holder.items() if prep == "in" and y == INVENTORY)

    def carried(self, entity: str) -> bool:
        return self.holder.get(entity) == ("in", INVENTORY)

    def hidden(self, entity: str) -> bool:
        """Inside a closed container."""
        prep, holder = self.holder.get(entity, (None, None))
        return prep == "in" and holder in self.closed

    def visible(self, entity: str) -> bool:
        """Whether the player perceives the entity right now."""
        if entity in (PLAYER, INVENTORY):
            return True
        if self.world.is_("room", entity):
            return entity == self.player_room
        if self.carried(entity):
            return True
        return self.room_of.get(entity) == self.player_room and not self.hidden(entity)

    def things_here(self) -> list[str]:
        """Visible entities in the player's room other than rooms, floors and the player."""
        here = self.player_room
        return sorted(
            e
            for e, room in self.room_of.items()
            if room == here
            and e != PLAYER
            and not self.carried(e)
            and not self.hidden(e)
            and not self.world.is_("floor", e)
        )

    def floor_here(self) -> str | None:
        for e, room in self.room_of.items():
            if room == self.player_room and self.world.is_("floor", e):
                return e
        return None

    def contents(self, receptacle: str) -> list[str]:
        return sorted(x for x, (_, y) in self.holder.items() if y == receptacle)


def perceived(world: World, state: State) -> frozenset[Fact]:
    """The facts the player can perceive from where it stands (what a room
    description and the inventory tell): its own place, the passages out, and
    every visible entity's place, holder, open/closed state and adjectives."""
    view = View(world, state)
    here = view.player_room
    facts: set[Fact] = {("at", PLAYER, here)}
    facts.update(("exit", here, other) for other in world.neighbours(here))
    for fact in state:
        subject = fact[1]
        if subject == PLAYER:
            continue
        if view.visible(subject):
            facts.add(fact)
    return frozenset(facts)


def facts_to_lists(facts: Iterable[Fact]) -> list[list[str]]:
    return sorted(list(f) for f in facts)
