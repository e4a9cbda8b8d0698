"""AdventureGame's synthetic-word worlds (AdventureGame §4.1): home worlds whose nouns
and verbs are renamed to made-up words (easy, medium), and the four-room world whose
objects change state by new verbs (hard)."""

from __future__ import annotations

import random

from envs.adventure import domain
from envs.adventure.domain import FLOOR_WORD, INVENTORY, PLAYER, floor_id
from envs.adventure.facts import Fact, View, World
from envs.adventure.home_worlds import home_instance_world
from envs.adventure.words import pseudo_words


# -- synthetic words -------------------------------------------------------------------
def _vocabulary(world: World) -> set[str]:
    words = set()
    for name in world.names.values():
        words.update(name.split())
    words.update(world.verbs.values())
    return words


def rename(world: World, entities: list[str], verbs: list[str], new_words: list[str]) -> World:
    names = dict(world.names)
    for entity, word in zip(entities, new_words):
        names[entity] = word
    verb_words = dict(world.verbs)
    for action, word in zip(verbs, new_words[len(entities):]):
        verb_words[action] = word
    return World(
        names=names,
        types=world.types,
        exits=world.exits,
        verbs=verb_words,
        adjectives=world.adjectives,
        kinds=world.kinds,
        kind_of=world.kind_of,
        inventory_limit=world.inventory_limit,
        goals=world.goals,
        initial=world.initial,
    )


def _relevant(world: World) -> tuple[list[str], list[str], list[str], list[str]]:
    """Goal objects, targets, containers hiding goal objects, and rooms involved."""
    view = View(world, world.initial)
    objects = [goal[1] for goal in world.goals]
    targets = list(dict.fromkeys(goal[2] for goal in world.goals))
    containers = list(dict.fromkeys(view.holder[o][1] for o in objects if view.holder[o][0] == "in"))
    rooms = list(dict.fromkeys(view.room_of[e] for e in objects + targets))
    return objects, targets, containers, rooms


def synthetic_easy_world(seed: str) -> tuple[World, dict]:
    world = home_instance_world("easy", seed)
    rng = random.Random(seed + "/words")
    objects, targets, _, rooms = _relevant(world)
    entities = [rng.choice(objects), targets[0], rng.choice(rooms)]
    verb = rng.choice(("take", "put"))
    new = pseudo_words(rng, 4, _vocabulary(world))
    renamed = rename(world, entities, [verb], new)
    return renamed, {"verbs": [new[3]], "explain": verb, "renamed": dict(zip(entities + [verb], new))}


def synthetic_medium_world(seed: str) -> tuple[World, dict]:
    world = home_instance_world("hard", seed)
    rng = random.Random(seed + "/words")
    objects, targets, containers, rooms = _relevant(world)
    entities = list(dict.fromkeys(objects + targets))
    others = sorted(
        (set(containers) | set(rooms) | set(domain.NAMES)) - set(entities),
        key=lambda e: (e not in containers and e not in rooms, e),
    )
    preferred = [e for e in others if e in containers or e in rooms]
    rest = [e for e in others if e not in preferred]
    rng.shuffle(preferred)
    rng.shuffle(rest)
    entities += (preferred + rest)[: 9 - len(entities)]
    verbs = rng.sample(domain.REPLACEABLE_VERBS, 3)
    new = pseudo_words(rng, 12, _vocabulary(world))
    renamed = rename(world, entities, verbs, new)
    return renamed, {"verbs": new[9:], "explain": None, "renamed": dict(zip(entities + verbs, new))}


SYNTHETIC_KINDS = {
    # one state an object gains; two states a pair of verbs switches between; three
    # states passed through in order by two verbs
    "one": {"v1": (None, "s1")},
    "two": {"v2": ("s2", "s3"), "v3": ("s3", "s2")},
    "three": {"v4": ("s4", "s5"), "v5": ("s5", "s6")},
}
SYNTHETIC_GOALS = {"one": ("s1", None), "two": ("s3", "s2"), "three": ("s6", "s4")}  # kind -> (goal, start)
SYNTHETIC_STATES = {"one": (None, "s1"), "two": ("s2", "s3"), "three": ("s4", "s5", "s6")}
SYNTHETIC_DISTRACTORS = 2


def synthetic_hard_world(seed: str) -> tuple[World, dict]:
    rng = random.Random(seed)
    rooms = [f"room{i}" for i in range(1, 5)]
    objects = [f"thing{i}" for i in range(1, 4 + SYNTHETIC_DISTRACTORS)]
    kinds = ["one", "two", "three"] + [rng.choice(sorted(SYNTHETIC_KINDS)) for _ in range(SYNTHETIC_DISTRACTORS)]
    order = list(range(len(objects)))
    rng.shuffle(order)  # which object names play which role
    kind_of = {objects[order[i]]: kinds[i] for i in range(len(objects))}
    verbs = sorted({v for k in SYNTHETIC_KINDS.values() for v in k})
    states = sorted({s for k in SYNTHETIC_STATES.values() for s in k if s})
    new = pseudo_words(rng, len(rooms) + len(objects) + len(verbs) + len(states), set(domain.BASIC_VERBS.values()))
    names = {PLAYER: "player", INVENTORY: "inventory"}
    types: dict[str, frozenset[str]] = {PLAYER: frozenset({"player"}), INVENTORY: frozenset({"inventory"})}
    words = iter(new)
    for room in rooms:
        names[room] = next(words)
        types[room] = frozenset({"room"})
        names[floor_id(room)] = FLOOR_WORD
        types[floor_id(room)] = frozenset({"floor", "support"})
    for obj in objects:
        names[obj] = next(words)
        types[obj] = frozenset({"thing"})
    verb_words = dict(domain.BASIC_VERBS)
    for verb in verbs:
        verb_words[verb] = next(words)
    adjectives = {state: next(words) for state in states}

    facts: set[Fact] = {("at", PLAYER, rng.choice(rooms))}
    for room in rooms:
        facts.add(("at", floor_id(room), room))
    goals = []
    for i in range(len(objects)):
        obj = objects[order[i]]
        kind = kind_of[obj]
        facts.add(("at", obj, rng.choice(rooms)))
        if i < 3:
            goal, start = SYNTHETIC_GOALS[kind]
            goals.append(("state", obj, goal))
        else:
            start = rng.choice(SYNTHETIC_STATES[kind])
        if start is not None:
            facts.add(("state", obj, start))
    exits = set()
    for a, b in zip(rooms, rooms[1:]):
        exits.add((a, b))
        exits.add((b, a))
    world = World(
        names=names,
        types=types,
        exits=frozenset(exits),
        verbs=verb_words,
        adjectives=adjectives,
        kinds={k: dict(v) for k, v in SYNTHETIC_KINDS.items()},
        kind_of=kind_of,
        inventory_limit=None,
        goals=tuple(goals),
        initial=frozenset(facts),
    )
    # Verbs are listed in an order that does not reveal which belong together.
    listed = [verb_words[v] for v in verbs]
    rng.shuffle(listed)
    renamed = {e: names[e] for e in rooms + objects} | {v: verb_words[v] for v in verbs} | adjectives
    return world, {"verbs": listed, "explain": None, "renamed": renamed}
