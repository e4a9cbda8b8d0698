"""The command parser: one command line (without the leading >) → a `Command`.

The grammar is small and written by hand:

    command  := verb [phrase]                      go, take, open, close, examine, state verbs
              | put-verb phrase [prep] phrase       prep: in, into, inside, on, onto, upon
              | look [around] | look [at] phrase    (look at X = examine X)
              | done [anything]
    phrase   := words naming one entity, articles ("the", "a", "an") ignored

Verbs are the instance's own words (the synthetic-word experiments replace some),
so a replaced English verb is unknown. A phrase resolves to the ids of every entity
with that name (all floors are called "floor"); which one is meant is settled
against the state when the command is resolved. A multi-word name may also be
given by its last word when that is unambiguous ("plant" for "potted plant").
Without a preposition, `put X Y` is split where both halves name entities and the
preposition is taken from the target (in for containers, on for supports).
"""

from __future__ import annotations

import dataclasses
import functools
import re

from envs.adventure.facts import World

PREPOSITIONS = {"in": "in", "into": "in", "inside": "in", "on": "on", "onto": "on", "upon": "on"}
FILLERS = frozenset({"the", "a", "an", "some", "my"})
GO_FILLERS = frozenset({"to", "into", "towards", "toward", "through"})
ONE_ARGUMENT = frozenset({"go", "take", "open", "close", "examine"})
NO_ARGUMENT = frozenset({"look", "done"})


@dataclasses.dataclass(frozen=True)
class Command:
    action: str  # an action id: go, take, put, open, close, examine, look, done or a state verb id
    verb: str  # the word the player used
    args: tuple[tuple[str, ...], ...]  # per argument, the ids of the entities the words may mean
    prep: str | None = None  # "in" / "on" for put; None = take it from the target
    text: str = ""


@dataclasses.dataclass(frozen=True)
class ParseFailure:
    failure: str
    detail: dict


def normalise(text: str) -> list[str]:
    text = text.lower().replace("’", "'")
    return re.sub(r"[^a-z0-9' -]+", " ", text).replace("'", " ").split()


@functools.lru_cache(maxsize=512)
def _name_index(world: World) -> dict[str, tuple[str, ...]]:
    exact: dict[str, list[str]] = {}
    for entity, name in world.names.items():
        exact.setdefault(name, []).append(entity)
    heads: dict[str, list[str]] = {}
    for name, entities in exact.items():
        words = name.split()
        if len(words) > 1:
            heads.setdefault(words[-1], []).extend(entities)
    index = {name: tuple(sorted(entities)) for name, entities in exact.items()}
    for head, entities in heads.items():
        if head not in index and len(set(entities)) == 1:
            index[head] = tuple(entities)
    return index


def resolve_phrase(world: World, words: list[str]) -> tuple[str, ...] | None:
    words = [w for w in words if w not in FILLERS]
    if not words:
        return None
    return _name_index(world).get(" ".join(words))


def parse(world: World, text: str) -> Command | ParseFailure:
    tokens = normalise(text)
    if not tokens:
        return ParseFailure("empty_command", {})
    verb, rest = tokens[0], tokens[1:]
    action = world.verb_actions.get(verb)
    if action is None:
        return ParseFailure("unknown_verb", {"verb": verb})
    clean = " ".join(tokens)

    if action == "look":
        if rest and rest[0] == "around":
            rest = rest[1:]
        if rest and rest[0] == "at":
            rest = rest[1:]
        if not [w for w in rest if w not in FILLERS]:
            return Command("look", verb, (), None, clean)
        if "examine" not in world.verbs:
            return ParseFailure("malformed", {"verb": verb, "text": clean})
        action = "examine"
    elif action == "done":
        return Command("done", verb, (), None, clean)

    if action == "put":
        return _parse_put(world, verb, rest, clean)

    if action == "go":
        while rest and rest[0] in GO_FILLERS | FILLERS:
            rest = rest[1:]
    if action == "take" and "from" in rest:
        rest = rest[: rest.index("from")]
    if not [w for w in rest if w not in FILLERS]:
        return ParseFailure("malformed", {"verb": verb, "missing": "entity", "text": clean})
    candidates = resolve_phrase(world, rest)
    if candidates is None:
        return ParseFailure("unknown_entity", {"words": " ".join(w for w in rest if w not in FILLERS)})
    return Command(action, verb, (candidates,), None, clean)


def _parse_put(world: World, verb: str, rest: list[str], clean: str) -> Command | ParseFailure:
    prep_at = next((i for i, w in enumerate(rest) if w in PREPOSITIONS), None)
    if prep_at is not None:
        first, second = rest[:prep_at], rest[prep_at + 1 :]
        if not [w for w in first if w not in FILLERS]:
            return ParseFailure("malformed", {"verb": verb, "missing": "entity", "text": clean})
        entity = resolve_phrase(world, first)
        if entity is None:
            return ParseFailure("unknown_entity", {"words": " ".join(w for w in first if w not in FILLERS)})
        if not [w for w in second if w not in FILLERS]:
            return ParseFailure("malformed", {"verb": verb, "missing": "target", "entity": entity[0], "text": clean})
        target = resolve_phrase(world, second)
        if target is None:
            return ParseFailure("unknown_entity", {"words": " ".join(w for w in second if w not in FILLERS)})
        return Command("put", verb, (entity, target), PREPOSITIONS[rest[prep_at]], clean)

    words = [w for w in rest if w not in FILLERS]
    if not words:
        return ParseFailure("malformed", {"verb": verb, "missing": "entity", "text": clean})
    whole = resolve_phrase(world, words)
    if whole is not None:
        return ParseFailure("malformed", {"verb": verb, "missing": "target", "entity": whole[0], "text": clean})
    for split in range(1, len(words)):
        entity = resolve_phrase(world, words[:split])
        target = resolve_phrase(world, words[split:])
        if entity is not None and target is not None:
            return Command("put", verb, (entity, target), None, clean)
    return ParseFailure("unknown_entity", {"words": " ".join(words)})
