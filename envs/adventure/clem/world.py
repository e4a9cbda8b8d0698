"""The world state (AdventureGame §3.2), on clembench's terms.

The state is a set of fact tuples such as ("at", "apple1", "kitchen1"), completed at the
start as clembench completes it; the world answers what the player perceives, carries and
can reach. What an action does to it, the resolution phase, is envs.adventure.clem.resolution.
"""

from __future__ import annotations

from envs.adventure.clem import data
from envs.adventure.clem.data import DIGITS, INVENTORY, PLAYER
from envs.adventure.clem.resolution import Resolving


def fact_from_text(text: str) -> tuple:
    """"on(apple1,table1)" → ("on", "apple1", "table1") (split at the first comma)."""
    predicate, rest = text.split("(", 1)
    rest = rest[:-1]
    if "," in rest:
        first, second = rest.split(",", 1)
        return (predicate, first, second)
    return (predicate, rest)


def fact_text(fact: tuple) -> str:
    return f"{fact[0]}({','.join(str(v) for v in fact[1:])})"


class World(Resolving):
    """One instance's world: its facts, what the player perceives, and (Resolving) what an
    action does to it."""

    def __init__(self, experiment: str, index: int):
        self.experiment = experiment
        self.index = index
        self.definitions = data.definitions(experiment, index)
        raw = data.instance(experiment, index)
        self.state: set[tuple] = set()
        self._initialise(raw["initial_state"])
        self.goals: frozenset[tuple] = frozenset(fact_from_text(g) for g in raw["goal_state"])

    # -- the initial state, completed as clembench completes it ------------------------
    def _initialise(self, facts: list[str]) -> None:
        entities = self.definitions.entities
        state = {fact_from_text(f) for f in facts}
        extra: set[tuple] = set()
        for fact in state:
            if fact[0] == "type":
                for trait in entities[fact[2]].get("traits", ()):
                    extra.add((trait, fact[1]))
            if fact[0] == "room":
                extra.add(("type", f"{fact[1]}floor1", "floor"))
                extra.add(("at", f"{fact[1]}floor1", fact[1]))
        state |= extra
        self.type_of = {f[1]: f[2] for f in state if f[0] == "type"}
        instances: dict[str, list[str]] = {}
        for fact in state:
            if fact[0] in ("room", "type"):
                instances.setdefault(fact[2], []).append(fact[1])
        # entity and room types never change during an episode
        self.instances_of = {kind: sorted(found) for kind, found in instances.items()}
        self.room_type_of = {f[1]: f[2] for f in state if f[0] == "room"}
        for fact in list(state):
            if fact[0] == "at" and ("needs_support", fact[1]) in state:
                if not any(f[0] in ("on", "in") and f[1] == fact[1] for f in state):
                    # clembench names this floor without its instance number
                    extra.add(("on", fact[1], f"{fact[2]}floor"))
        for fact in state:
            if fact[0] == "in" and ("container", fact[2]) in state and ("open", fact[2]) in state:
                extra.add(("accessible", fact[1]))
            if fact[0] == "in" and fact[2] == INVENTORY:
                extra.add(("accessible", fact[1]))
            if fact[0] == "on" and ("support", fact[2]) in state:
                extra.add(("accessible", fact[1]))
            if fact[0] == "type" and ("needs_support", fact[1]) not in state and fact[2] not in ("floor", "player"):
                extra.add(("accessible", fact[1]))
        extra.add(("accessible", INVENTORY))
        state |= extra
        for predicate, kind in self.definitions.functions:
            for fact in [f for f in state if f[0] == predicate]:
                state.discard(fact)
                state.add((fact[0], fact[1], float(fact[2]) if "." in str(fact[2]) else int(fact[2])))
            holders = [f[1] for f in state if f[0] == "type" and f[2] == kind]
            if kind == INVENTORY:
                holders.append(INVENTORY)
            for holder in holders:
                if not any(f[0] == predicate and f[1] == holder for f in state):
                    state.add((predicate, holder, 0))
        self.state = state

    def clone(self) -> "World":
        """A copy sharing the definitions, with its own state (for search)."""
        twin = object.__new__(World)
        twin.__dict__.update(self.__dict__)
        twin.state = set(self.state)
        return twin

    # -- reading the state ---------------------------------------------------------------
    def player_room(self) -> str:
        return next(f[2] for f in self.state if f[0] == "at" and f[1] == PLAYER)

    def room_type(self, room: str) -> str:
        return self.room_type_of[room]

    def kind(self, instance: str) -> str:
        """The type name of an entity or room instance."""
        if instance in self.type_of:
            return self.type_of[instance]
        if instance in self.room_type_of:
            return self.room_type_of[instance]
        stripped = instance
        while stripped.endswith(DIGITS):
            stripped = stripped[:-1]
        return stripped

    def words(self, instance: str) -> str:
        """What the player reads for an instance: its adjectives, then its type's words."""
        adjectives = sorted(f[2] for f in self.state if f[0] == "adj" and f[1] == instance)
        kind = self.kind(instance)
        if kind in self.definitions.entities:
            name = self.definitions.entities[kind]["repr_str"]
        elif kind in self.definitions.rooms:
            name = self.definitions.rooms[kind]["repr_str"]
        else:
            name = kind
        return " ".join([*adjectives, name])

    def type_words(self, kind: str) -> str:
        entry = self.definitions.entities.get(kind) or self.definitions.rooms.get(kind)
        return entry["repr_str"] if entry else kind

    def carried(self) -> list[str]:
        return sorted(f[1] for f in self.state if f[0] == "in" and f[2] == INVENTORY)

    def carried_types(self) -> set[str]:
        return {self.type_of.get(item) for item in self.carried()}

    def exits(self) -> list[str]:
        here = self.player_room()
        return sorted(f[2] for f in self.state if f[0] == "exit" and f[1] == here)

    def hidden_kind(self, instance: str) -> bool:
        return bool(self.definitions.entities.get(self.kind(instance), {}).get("hidden"))

    def visible_here(self) -> list[str]:
        """What a room description lists: everything at the player's room but the player,
        hidden kinds (floors, the inventory) and what the player carries. Objects inside a
        closed container are listed too: that is what clembench's interpreter shows in
        almost every run (docs/fidelity/adventure.md, "room descriptions")."""
        here = self.player_room()
        carried = set(self.carried())
        return sorted(
            f[1]
            for f in self.state
            if f[0] == "at" and f[2] == here and f[1] != PLAYER and not self.hidden_kind(f[1]) and f[1] not in carried
        )

    def goals_met(self) -> frozenset[tuple]:
        return frozenset(self.goals & self.state)

    def perceived(self) -> set[tuple]:
        """What the player perceives now (clembench's exploration tracking): its place,
        the place and holder of what it sees and carries, open/closed states, the exits."""
        here = self.player_room()
        seen = {("at", PLAYER, here)}
        visible = set(self.visible_here())
        carried = set(self.carried())
        for fact in self.state:
            if fact[1] in visible and fact[0] in ("open", "closed", "at", "in", "on"):
                seen.add(fact)
            if fact[1] in carried and fact[0] in ("at", "in"):
                seen.add(fact)
            if fact[1] == INVENTORY and fact[0] == "itemcount":
                seen.add(fact)
            if fact[0] == "exit" and fact[1] == here:
                seen.add(fact)
        return seen
