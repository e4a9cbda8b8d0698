"""The parsing phase (AdventureGame §3.2): a command line → an action dict, or a failure.

The grammar is assembled from the instance's data — each action definition's Lark
snippet (its rule and the verbs it accepts), the adjectives its entities may carry and
clembench's shared grammar head and foot — and parsed with Lark, so a command parses
exactly when it parses in clembench. Anything else falls to the catch-all `unknown` rule.
"""

from __future__ import annotations

import dataclasses
import functools

from lark import Lark, Token, Tree

from envs.adventure.clem import data


@dataclasses.dataclass(frozen=True)
class ParseFailure:
    fail_type: str  # clembench's failure type, e.g. "undefined_action_verb"
    phase: str  # "parsing" (or "resolution" for an object already carried)
    detail: dict  # the words the feedback names


def _parser(experiment: str, index: int) -> Lark:
    return _compiled(_grammar(experiment, index))


@functools.lru_cache(maxsize=64)
def _compiled(grammar: str) -> Lark:
    # instances with the same definitions share one grammar (all the home experiments do)
    return Lark(grammar, start="action")


def _grammar(experiment: str, index: int) -> str:
    definitions = data.definitions(experiment, index)
    rules = [action.grammar.split(":")[0] for action in definitions.actions.values()]
    snippets = "\n".join(action.grammar for action in definitions.actions.values())
    adjectives = sorted(
        {adj for entity in definitions.entities.values() for adj in entity.get("possible_adjs", ())}
    )
    adjective_rule = "ADJ.1: (" + " | ".join(f'"{adj}"' for adj in adjectives) + ") WS\n"
    core = data.grammar_core()
    return (
        f"{core['grammar_head']}action: {' | '.join(rules)} | unknown\n"
        f"{snippets}\n{adjective_rule}{core['grammar_foot']}"
    )


def _action_dict(tree: Tree) -> dict:
    """The parse tree of one command → {"type": rule, "arg1": words, "arg2": …, "prep": …}."""
    rule = tree.children[0]
    result: dict = {"type": rule.data.value if isinstance(rule.data, Token) else str(rule.data)}
    position = 1
    for child in rule.children:
        if isinstance(child, Tree) and child.data == "thing":
            result[f"arg{position}"] = " ".join(t.value for t in child.children if t.type == "WORD")
            adjectives = [t.value.strip() for t in child.children[:-1] if isinstance(t, Token) and t.type == "ADJ"]
            if adjectives:
                result[f"arg{position}_adjs"] = adjectives
            position += 1
        if isinstance(child, Token) and child.type == "PREP":
            result["prep"] = child.value.strip()
        if result["type"] == "unknown" and isinstance(child, Token) and child.type == "WORD":
            result[f"arg{position}"] = child.value
            break
    return result


def clean(command: str) -> str:
    """clembench drops one final full stop or exclamation mark and lower-cases."""
    if command.endswith(".") or command.endswith("!"):
        command = command[:-1]
    return command.lower()


def parse(world, command: str) -> dict | ParseFailure:
    """`world` (a world.World) answers which words, rooms and carried objects there are."""
    definitions = world.definitions
    try:
        tree = _parser(world.experiment, world.index).parse(clean(command))
    except Exception as error:  # Lark's errors have no common base worth naming here
        return ParseFailure("lark_exception", "parsing", {"error": type(error).__name__})
    parsed = _action_dict(tree)

    if parsed["type"] == "unknown" and parsed.get("arg1") in definitions.actions:
        return ParseFailure("malformed_command", "parsing", {})
    if parsed["type"] not in definitions.actions:
        if "arg1" in parsed:
            return ParseFailure("undefined_action_verb", "parsing", {"verb": parsed["arg1"]})
        return ParseFailure("undefined_action", "parsing", {})
    if parsed["type"] == "done":
        return parsed

    if "arg1" in parsed:
        words = parsed["arg1"]
        if words not in definitions.words:
            return ParseFailure("undefined_repr_str", "parsing", {"words": words})
        parsed["arg1"] = definitions.words[words]
        if parsed["arg1"] not in definitions.entities:
            if parsed["arg1"] in definitions.rooms:
                if parsed["type"] in ("take", "put", "open", "close"):
                    return ParseFailure("manipulating_room", "parsing", {"verb": parsed["type"], "room": words})
            else:
                return ParseFailure("undefined_argument_type", "parsing", {"words": words})

    if "arg2" in parsed:
        if parsed["type"] == "take" and parsed["arg2"] == "inventory":
            if parsed["arg1"] in world.carried_types():
                return ParseFailure("taking_from_inventory", "resolution", {"entity": parsed["arg1"]})
            return ParseFailure("taking_from_inventory", "parsing", {})
        words = parsed["arg2"]
        if words not in definitions.words:
            return ParseFailure("undefined_repr_str", "parsing", {"words": words})
        parsed["arg2"] = definitions.words[words]
        if parsed["arg2"] in definitions.rooms:
            # clembench compares the room's type name with the current room's words, so
            # naming the room one is in counts as another room unless both spell alike.
            here = definitions.rooms[world.room_type(world.player_room())]["repr_str"]
            if parsed["arg2"] != here:
                return ParseFailure("other_room_argument", "parsing", {"room": parsed["arg2"]})
    return parsed
