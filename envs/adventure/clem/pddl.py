"""Reading PDDL strings (action definitions, domain types) into nested lists.

An s-expression becomes a list whose items are words or lists: "(and (at ?p ?r)
(not (closed ?e)))" → ["and", ["at", "?p", "?r"], ["not", ["closed", "?e"]]].
"""

from __future__ import annotations

import dataclasses
import re

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def read(text: str) -> list:
    stack: list[list] = [[]]
    for token in _TOKEN.findall(text):
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token.lower() if token.startswith(":") else token)
    if len(stack) != 1 or len(stack[0]) != 1:
        raise ValueError(f"unbalanced PDDL: {text[:60]!r}")
    return stack[0][0]


def typed_list(items: list) -> list[tuple[str, str]]:
    """["?c", "?d", "-", "room", "?p", "-", "player"] → [("c", "room"), ("d", "room"), ("p", "player")]."""
    pairs, pending, index = [], [], 0
    while index < len(items):
        item = items[index]
        if item == "-":
            kind = items[index + 1]
            pairs.extend((name.lstrip("?"), kind) for name in pending)
            pending = []
            index += 2
            continue
        pending.append(item)
        index += 1
    return pairs


@dataclasses.dataclass(frozen=True)
class Action:
    """One action definition: its typed parameters, precondition and effect trees."""

    name: str
    parameters: tuple[tuple[str, str], ...]
    precondition: list
    effect: list


def action(text: str) -> Action:
    tree = read(text)
    if tree[0] != ":action":
        raise ValueError("not a PDDL action")
    fields = {tree[i]: tree[i + 1] for i in range(2, len(tree) - 1, 2)}
    return Action(
        name=tree[1].lower(),
        parameters=tuple(typed_list(fields[":parameters"])),
        precondition=fields[":precondition"],
        effect=fields[":effect"],
    )


def domain_types(text: str) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """(:types a b - room …) → {"room": ["a", "b"], …}; (:functions (f ?x - t)) → [("f", "t")]."""
    tree = read(text)
    types: dict[str, list[str]] = {}
    functions: list[tuple[str, str]] = []
    for part in tree[1:]:
        if isinstance(part, list) and part and part[0] == ":types":
            members: list[str] = []
            items = part[1:]
            index = 0
            while index < len(items):
                if items[index] == "-":
                    types.setdefault(items[index + 1], []).extend(members)
                    members = []
                    index += 2
                    continue
                members.append(items[index])
                index += 1
        elif isinstance(part, list) and part and part[0] == ":functions":
            for function in part[1:]:
                for _, kind in typed_list(function[1:]):
                    functions.append((function[0], kind))
    return types, functions
