"""The world state and the resolution phase (AdventureGame §3.2), on clembench's terms.

The state is a set of fact tuples such as ("at", "apple1", "kitchen1"). An action
definition's parameters are filled from the parsed command (object *types*, which the
preconditions turn into the single instance of each type), its precondition is
evaluated atom by atom in written order (every atom, no short cut, so each has a fixed
index), and the first failing atom picks the failure type; a parameter of the wrong type
fails only after the precondition held. Effects are applied in order, `forall` over the
objects that have the named trait, `when` tested first.
"""

from __future__ import annotations

import dataclasses

from envs.adventure.clem import data
from envs.adventure.clem.data import ActionDef
from envs.adventure.clem.pddl import typed_list

DIGITS = tuple("0123456789")
PLAYER = "player1"
INVENTORY = "inventory"


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


@dataclasses.dataclass
class Resolution:
    success: bool
    action: str  # the action definition's name
    fail_type: str | None = None
    detail: dict = dataclasses.field(default_factory=dict)
    names: dict = dataclasses.field(default_factory=dict)  # variable → words, for the feedback
    added: list = dataclasses.field(default_factory=list)
    removed: list = dataclasses.field(default_factory=list)


class World:
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

    # -- the resolution phase ------------------------------------------------------------
    def _instance_of(self, kind: str) -> str | None:
        """The single instance of an entity or room type (clembench assumes one)."""
        matches = self.instances_of.get(kind)
        return matches[0] if matches else None

    def _atom(self, atom: list, variables: dict) -> tuple:
        values = [variables[t[1:]] if t.startswith("?") else t for t in atom[1:]]
        if atom[0] not in ("type", "room"):
            for position, value in enumerate(values):
                if value and not str(value).endswith((*DIGITS, INVENTORY)):
                    instance = self._instance_of(value)
                    for name, bound in list(variables.items()):
                        if bound == value:
                            variables[name] = instance
                    values[position] = instance
        return (atom[0], *values)

    def _holds(self, fact: tuple) -> bool:
        # clembench treats an atom with an unfilled (optional) argument as true
        return None in fact or fact in self.state

    def _function_value(self, term, variables):
        if isinstance(term, list):
            holder = variables[term[1][1:]] if term[1].startswith("?") else term[1]
            for fact in self.state:
                if fact[0] == term[0] and fact[1] == holder:
                    return fact[2], (term[0], holder, fact[2])
            return None, (term[0], holder)
        return (float(term) if "." in term else int(term)), None

    def _evaluate(self, condition: list, variables: dict, counter: list) -> dict:
        head = condition[0]
        if head in ("and", "or"):
            items = [self._evaluate(item, variables, counter) for item in condition[1:]]
            holds = all(i["holds"] for i in items) if head == "and" else any(i["holds"] for i in items)
            return {"kind": head, "items": items, "holds": holds}
        if head == "not":
            inner = self._evaluate(condition[1], variables, counter)
            return {"kind": "not", "inner": inner, "holds": not inner["holds"], "index": inner["index"]}
        counter[0] += 1
        if head in ("<", "<=", ">", ">=", "="):
            left, left_fact = self._function_value(condition[1], variables)
            right, right_fact = self._function_value(condition[2], variables)
            compare = {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right, "=": left == right}
            return {"kind": "atom", "atom": condition, "fact": left_fact or right_fact, "holds": compare[head], "index": counter[0]}
        fact = self._atom(condition, variables)
        return {"kind": "atom", "atom": condition, "fact": fact, "holds": self._holds(fact), "index": counter[0]}

    @staticmethod
    def _first_failure(trace: dict) -> dict | None:
        """The atom clembench's feedback is about: the first failing item of the top
        conjunction; inside a disjunction, the first failing atom of its first member."""
        for item in trace["items"]:
            if item["holds"]:
                continue
            if item["kind"] == "or":
                for member in item["items"]:
                    if member["kind"] == "and":
                        for atom in member["items"]:
                            if not atom["holds"]:
                                return atom
                    elif member["kind"] == "atom" and not member["holds"]:
                        return member
            elif item["kind"] == "and":
                for atom in item["items"]:
                    if not atom["holds"]:
                        return atom
            else:
                return item
        return None

    def _bind(self, action: ActionDef, parsed: dict) -> dict:
        variables: dict = {}
        for name, source in action.mapping:
            origin = source[0]
            if origin == "arg1":
                variables[name] = parsed.get("arg1")
            elif origin == "arg2":
                if "arg2" in parsed:
                    variables[name] = parsed["arg2"]
                elif len(source) == 2 and source[1] == "arg1_receptacle":
                    first = next(n for n, s in action.mapping if s[0] == "arg1")
                    wanted = f"{variables[first]}1"
                    holders = sorted(f[2] for f in self.state if f[0] in ("in", "on") and f[1] == wanted)
                    variables[name] = holders[0] if holders else None
                else:
                    variables[name] = None
            elif origin == "current_player_room":
                variables[name] = self.player_room()
            elif origin == "player":
                variables[name] = PLAYER
            elif origin == "inventory":
                variables[name] = INVENTORY
            elif origin == "current_room_floor":
                variables[name] = self.player_room() + "floor1"
        return variables

    def _type_mismatches(self, action: ActionDef, variables: dict) -> list[dict]:
        declared = dict(action.pddl.parameters)
        order = [name for name, _ in action.mapping]
        mismatches = []
        for name, wanted in action.pddl.parameters:
            value = variables.get(name)
            if value is None:
                continue
            if str(value).endswith(DIGITS):
                kind = self.type_of.get(value) or self.room_type_of.get(value) or value
            else:
                kind = value
            if kind == wanted or wanted in self.definitions.supertypes.get(kind, ()):
                continue
            position = order.index(name)
            mismatches.append(
                {"fail_type": action.parameter_failures[position], "value": value, "type": declared[name]}
            )
        return mismatches

    def resolve(self, parsed: dict) -> Resolution:
        action = self.definitions.actions[parsed["type"]]
        variables = self._bind(action, parsed)
        mismatches = self._type_mismatches(action, variables)
        counter = [-1]
        trace = self._evaluate(action.pddl.precondition, variables, counter)
        if not trace["holds"]:
            if any(value is None for value in variables.values()):
                return Resolution(False, action.name, "take_non_takeable_object", {"kind": "none"})
            failed = self._first_failure(trace)
            return Resolution(
                False,
                action.name,
                action.precondition_failures[failed["index"]],
                self._failure_detail(action, failed, variables),
                self._names(variables),
            )
        if mismatches:
            first = mismatches[0]
            words = self.type_words(first["value"]) if not str(first["value"]).endswith(DIGITS) else self.words(first["value"])
            return Resolution(False, action.name, first["fail_type"], {"kind": "type", "words": words, "type": first["type"]})
        added, removed = [], []
        effects = action.pddl.effect
        for effect in effects[1:] if effects[0] == "and" else [effects]:
            self._apply(effect, variables, added, removed)
        return Resolution(True, action.name, None, {}, self._names(variables), added, removed)

    def _names(self, variables: dict) -> dict:
        return {
            name: (self.words(value) if isinstance(value, str) and value.endswith(DIGITS) else value)
            for name, value in variables.items()
        }

    def _failure_detail(self, action: ActionDef, failed: dict, variables: dict) -> dict:
        negated = failed["kind"] == "not"
        atom = failed["inner"]["atom"] if negated else failed["atom"]
        sources = dict(action.mapping)
        mentioned = []
        for term in atom[1:]:
            if isinstance(term, str) and term.startswith("?"):
                origin = sources.get(term[1:], ("",))[0]
                if origin not in ("player", "current_player_room", "inventory"):
                    value = variables[term[1:]]
                    mentioned.append(self.words(value) if str(value).endswith(DIGITS) else self.type_words(value))
        return {"kind": "atom", "predicate": atom[0], "negated": negated, "names": mentioned, "atom": list(atom)}

    # -- effects -------------------------------------------------------------------------
    def _apply(self, effect: list, variables: dict, added: list, removed: list) -> None:
        head = effect[0]
        if head == "forall":
            declared = effect[1]
            body = effect[2:]
            for name, kind in typed_list(declared):
                for item in sorted(f[1] for f in self.state if f[0] == kind):
                    scope = dict(variables)
                    scope[name] = item
                    for part in body:
                        if part[0] == "when":
                            self._when(part, scope, added, removed)
                        elif part[0] == "and":
                            for inner in part[1:]:
                                if inner[0] == "when":
                                    self._when(inner, scope, added, removed)
                                else:
                                    self._effect(inner, scope, added, removed)
        elif head == "when":
            self._when(effect, variables, added, removed)
        else:
            self._effect(effect, variables, added, removed)

    def _when(self, clause: list, variables: dict, added: list, removed: list) -> None:
        if self._evaluate(clause[1], variables, [0])["holds"]:
            then = clause[2]
            for effect in then[1:] if then[0] == "and" else [then]:
                self._effect(effect, variables, added, removed)

    def _effect(self, effect: list, variables: dict, added: list, removed: list) -> None:
        positive = effect[0] != "not"
        body = effect if positive else effect[1]
        if body[0] in ("increase", "decrease", "assign"):
            current, fact = self._function_value(body[1], variables)
            amount, _ = self._function_value(body[2], variables)
            if fact and fact in self.state:
                self.state.discard(fact)
            removed.append(fact)
            value = {"increase": (current or 0) + amount, "decrease": (current or 0) - amount, "assign": amount}[body[0]]
            new = (body[1][0], fact[1], value)
            self.state.add(new)
            added.append(new)
            return
        fact = (body[0], *[variables[t[1:]] if t.startswith("?") else t for t in body[1:]])
        if None in fact:
            return
        if positive:
            self.state.add(fact)
            added.append(fact)
        else:
            self.state.discard(fact)
            removed.append(fact)
