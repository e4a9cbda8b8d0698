"""The resolution phase (AdventureGame §3.2), on clembench's terms: an action definition's
parameters are filled from the parsed command (object *types*, which the preconditions
turn into the single instance of each type), its precondition is evaluated atom by atom
in written order (every atom, no short cut, so each has a fixed index), and the first
failing atom picks the failure type; a parameter of the wrong type fails only after the
precondition held. Effects are applied in order, `forall` over the objects that have the
named trait, `when` tested first. The world state it reads and changes is
envs.adventure.clem.world.
"""

from __future__ import annotations

import dataclasses

from envs.adventure.clem.data import DIGITS, INVENTORY, PLAYER, ActionDef
from envs.adventure.clem.pddl import typed_list


@dataclasses.dataclass
class Resolution:
    success: bool
    action: str  # the action definition's name
    fail_type: str | None = None
    detail: dict = dataclasses.field(default_factory=dict)
    names: dict = dataclasses.field(default_factory=dict)  # variable → words, for the feedback
    added: list = dataclasses.field(default_factory=list)
    removed: list = dataclasses.field(default_factory=list)


class Resolving:
    """World's resolution phase: `resolve` a parsed command against the state (the
    state's own queries are World's)."""

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
