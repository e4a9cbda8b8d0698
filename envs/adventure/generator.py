"""The instance generator (AdventureGame §4.1): 9 experiments × 16 instances.

Every random choice comes from a `random.Random` seeded with a fixed string, so the
fixture can be rebuilt byte for byte (`python -m envs.adventure.generate --check`).

Home worlds (basic, inventory limit, pre-exploration, synthetic easy and medium):
all six rooms, joined by a random spanning tree of the allowed passages plus some
extra passages; every piece of furniture in one of its allowed rooms; every movable
object in one of its allowed rooms, on a piece of furniture, in a container or on the
floor; containers closed; the player in a random room.

- easy: one target (a piece of furniture that things stand on) and three objects
  that are in plain sight (not in a container) in the target's room or a room next
  to it, all three to be put on that target;
- hard: three objects, each moved into a closed container of its room, each to be
  put on a different target in another room; together the three deliveries must
  span at least `HARD_MIN_TOTAL_DISTANCE` passages (and one at least two).

The inventory-limit and pre-exploration experiments reuse the basic worlds of the
same index and level (the same objects and rooms, App. C / §4.1.2–4.1.3), with a
limit of two objects, or with a walk of 6–8 `go` commands played before the game.
Synthetic-word easy and medium instances draw their own home worlds (easy and hard
layouts) and rename nouns and verbs; the synthetic-word hard level is a separate
world of four rooms in a line with objects whose states change by new verbs.
"""

from __future__ import annotations

import itertools
import random
from collections import deque

from envs.adventure import domain, prompts
from envs.adventure.domain import FLOOR_WORD, INVENTORY, PLAYER, floor_id
from envs.adventure.engine import Game
from envs.adventure.facts import Fact, View, World
from envs.adventure.planner import plan
from envs.adventure.words import pseudo_words

SEED_ROOT = "adventure-v1"
INSTANCES_PER_EXPERIMENT = 16
EXPERIMENTS = (
    "basic-easy",
    "basic-hard",
    "limit-easy",
    "limit-hard",
    "preexplore-easy",
    "preexplore-hard",
    "synthetic-easy",
    "synthetic-medium",
    "synthetic-hard",
)
INVENTORY_LIMIT = 2
PREEXPLORATION_LENGTHS = (6, 7, 8)
EXTRA_PASSAGE_PROBABILITY = 0.3
HARD_MIN_TOTAL_DISTANCE = 4


def seed_for(*parts: object) -> str:
    return "/".join([SEED_ROOT, *map(str, parts)])


# -- home worlds -----------------------------------------------------------------------
def _passages(rng: random.Random) -> list[tuple[str, str]]:
    links = list(domain.ROOM_LINKS)
    rng.shuffle(links)
    component = {room: room for room in domain.ROOMS}

    def root(room: str) -> str:
        while component[room] != room:
            room = component[room]
        return room

    chosen = []
    for a, b in links:  # a random spanning tree (Kruskal on a shuffled edge list)
        if root(a) != root(b):
            component[root(a)] = root(b)
            chosen.append((a, b))
    for link in links:
        if link not in chosen and rng.random() < EXTRA_PASSAGE_PROBABILITY:
            chosen.append(link)
    return chosen


def home_layout(rng: random.Random) -> dict:
    """Rooms, passages, furniture and objects, before any goal is chosen."""
    passages = _passages(rng)
    furniture_room = {}
    for receptacle, rooms in list(domain.SUPPORTS.items()) + list(domain.CONTAINERS.items()):
        furniture_room[receptacle] = rng.choice(rooms)
    position: dict[str, tuple[str, str, str]] = {}  # object -> (room, prep, holder)
    for movable, rooms in domain.MOVABLES.items():
        room = rng.choice(rooms)
        here = sorted(r for r, where in furniture_room.items() if where == room)
        if movable in domain.FLOOR_OBJECTS:
            spots = [floor_id(room)] + [r for r in here if r in domain.SUPPORTS]
        else:
            spots = here or [floor_id(room)]
        holder = rng.choice(spots)
        prep = "in" if holder in domain.CONTAINERS else "on"
        position[movable] = (room, prep, holder)
    return {
        "passages": passages,
        "furniture_room": furniture_room,
        "position": position,
        "start": rng.choice(domain.ROOMS),
    }


def _distances(passages: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    neighbours: dict[str, set[str]] = {room: set() for room in domain.ROOMS}
    for a, b in passages:
        neighbours[a].add(b)
        neighbours[b].add(a)
    result = {}
    for origin in domain.ROOMS:
        seen = {origin: 0}
        queue = deque([origin])
        while queue:
            room = queue.popleft()
            for other in sorted(neighbours[room]):
                if other not in seen:
                    seen[other] = seen[room] + 1
                    queue.append(other)
        result[origin] = seen
    return result


def home_world(layout: dict, goals: list[Fact], inventory_limit: int | None = None) -> World:
    facts: set[Fact] = {("at", PLAYER, layout["start"])}
    for room in domain.ROOMS:
        facts.add(("at", floor_id(room), room))
    for receptacle, room in layout["furniture_room"].items():
        facts.add(("at", receptacle, room))
    for container in domain.CONTAINERS:
        facts.add(("closed", container))
    for movable, (room, prep, holder) in layout["position"].items():
        facts.add(("at", movable, room))
        facts.add((prep, movable, holder))
    exits = set()
    for a, b in layout["passages"]:
        exits.add((a, b))
        exits.add((b, a))
    return World(
        names=domain.home_names(),
        types=domain.home_types(),
        exits=frozenset(exits),
        verbs=dict(domain.BASIC_VERBS),
        adjectives={},
        kinds={},
        kind_of={},
        inventory_limit=inventory_limit,
        goals=tuple(goals),
        initial=frozenset(facts),
    )


def easy_goals(rng: random.Random, layout: dict) -> list[Fact] | None:
    """Three objects in plain sight near one target, all to go on it."""
    distance = _distances(layout["passages"])
    targets = sorted(domain.SUPPORTS)
    rng.shuffle(targets)
    for target in targets:
        target_room = layout["furniture_room"][target]
        near = sorted(
            movable
            for movable, (room, prep, holder) in layout["position"].items()
            if distance[target_room][room] <= 1 and prep == "on" and holder != target
        )
        if len(near) >= 3:
            return [("on", movable, target) for movable in rng.sample(near, 3)]
    return None


def hard_goals(rng: random.Random, layout: dict) -> list[Fact] | None:
    """Three objects hidden in closed containers, each to a different, far target.
    Moves the chosen objects into containers of their rooms (changes `layout`)."""
    distance = _distances(layout["passages"])
    furniture_room = layout["furniture_room"]
    hideable = sorted(
        movable
        for movable, (room, _, _) in layout["position"].items()
        if any(furniture_room[c] == room for c in domain.CONTAINERS)
    )
    if len(hideable) < 3:
        return None
    for _ in range(50):
        chosen = rng.sample(hideable, 3)
        targets = sorted(domain.SUPPORTS)
        rng.shuffle(targets)
        for assignment in itertools.permutations(targets, 3):
            gaps = [distance[layout["position"][m][0]][furniture_room[t]] for m, t in zip(chosen, assignment)]
            if min(gaps) >= 1 and max(gaps) >= 2 and sum(gaps) >= HARD_MIN_TOTAL_DISTANCE:
                for movable in chosen:
                    room = layout["position"][movable][0]
                    containers = sorted(c for c in domain.CONTAINERS if furniture_room[c] == room)
                    layout["position"][movable] = (room, "in", rng.choice(containers))
                return [("on", m, t) for m, t in zip(chosen, assignment)]
    return None


def home_instance_world(level: str, seed: str) -> World:
    """A basic world of the given level ("easy" or "hard"); redraws until the level's
    constraints can be met."""
    rng = random.Random(seed)
    while True:
        layout = home_layout(rng)
        goals = easy_goals(rng, layout) if level == "easy" else hard_goals(rng, layout)
        if goals is not None:
            return home_world(layout, goals)


# -- pre-exploration -------------------------------------------------------------------
def preexploration_walk(rng: random.Random, world: World) -> list[str]:
    """6–8 `go` commands from the start room that pass through every room holding a
    goal object (or its container) or a goal target."""
    view = View(world, world.initial)
    required = {view.room_of[goal[1]] for goal in world.goals} | {view.room_of[goal[2]] for goal in world.goals}
    lengths = list(PREEXPLORATION_LENGTHS)
    rng.shuffle(lengths)
    for length in lengths:
        for _ in range(5000):
            room = view.player_room
            visited = {room}
            walk = []
            for _ in range(length):
                options = list(world.neighbours(room))
                fresh = [r for r in options if r not in visited]
                room = rng.choice(fresh if fresh and rng.random() < 0.8 else options)
                visited.add(room)
                walk.append(room)
            if required <= visited:
                return [f"{world.verbs['go']} {world.name(r)}" for r in walk]
    raise ValueError("no pre-exploration walk covers the task's rooms")


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


# -- goal sentences --------------------------------------------------------------------
def goal_text(world: World) -> str:
    if all(goal[0] == "state" for goal in world.goals):
        return prompts.state_goal([(world.name(g[1]), world.adjectives[g[2]]) for g in world.goals])
    return prompts.delivery_goal([(world.name(g[1]), g[0], world.name(g[2])) for g in world.goals])


# -- instances -------------------------------------------------------------------------
def _instance(
    experiment: str, index: int, seed: str, world: World, preexploration: list[str], new_words: dict | None
) -> dict:
    game = Game(world)
    game.preexplore(preexploration)
    solution = plan(world, game.state)
    words_text = ""
    if new_words is not None:
        words_text = prompts.new_words_text(new_words["verbs"], new_words["explain"])
    return {
        "id": f"{experiment}/{index}",
        "experiment": experiment,
        "index": index,
        "seed": seed,
        "goal": goal_text(world),
        "new_words": words_text,
        "renamed": new_words["renamed"] if new_words else {},
        "preexploration": preexploration,
        "optimal_turns": len(solution),
        "optimal_commands": solution,
        "world": world.to_json(home=family_is_home(experiment)),
    }


def family_is_home(experiment: str) -> bool:
    return experiment != "synthetic-hard"


def with_limit(world: World, limit: int) -> World:
    data = world.to_json()
    data["inventory_limit"] = limit
    return World.from_json(data)


def generate_experiment(experiment: str) -> list[dict]:
    family, level = experiment.split("-")
    instances = []
    for index in range(INSTANCES_PER_EXPERIMENT):
        if family in ("basic", "limit", "preexplore"):
            seed = seed_for("home", level, index)  # shared by the three families
            world = home_instance_world(level, seed)
            walk: list[str] = []
            if family == "limit":
                world = with_limit(world, INVENTORY_LIMIT)
            elif family == "preexplore":
                walk = preexploration_walk(random.Random(seed_for(experiment, index)), world)
            instances.append(_instance(experiment, index, seed, world, walk, None))
        else:
            seed = seed_for(experiment, index)
            builders = {"easy": synthetic_easy_world, "medium": synthetic_medium_world, "hard": synthetic_hard_world}
            world, new_words = builders[level](seed)
            instances.append(_instance(experiment, index, seed, world, [], new_words))
    return instances


def generate_all() -> dict:
    return {
        "about": (
            "AdventureGame instances (AdventureGame §4.1), generated by "
            "`python -m envs.adventure.generate` from fixed seeds; do not edit by hand."
        ),
        "version": 1,
        "turn_limit": 50,
        "experiments": {experiment: generate_experiment(experiment) for experiment in EXPERIMENTS},
    }


# -- a compact, deterministic JSON layout ----------------------------------------------
def dumps(value, indent: int = 0, width: int = 100) -> str:
    import json

    pad = "  " * indent
    inner = "  " * (indent + 1)

    def scalar(v) -> str:
        return json.dumps(v, ensure_ascii=False)

    def flat(v) -> str | None:
        """One-line form for scalars and lists of scalars."""
        if isinstance(v, (str, int, float, bool)) or v is None:
            return scalar(v)
        if isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) or x is None for x in v):
            return "[" + ", ".join(scalar(x) for x in v) + "]"
        return None

    one_line = flat(value)
    if one_line is not None and (not isinstance(value, list) or len(pad) + len(one_line) <= width):
        return one_line
    if isinstance(value, dict):
        if not value:
            return "{}"
        pairs = [f"{scalar(k)}: {flat(v)}" if flat(v) is not None and not isinstance(v, list) else None
                 for k, v in value.items()]
        if all(pair is not None for pair in pairs):
            inline = "{" + ", ".join(pairs) + "}"
            if len(pad) + len(inline) <= width:
                return inline
            return "{\n" + ",\n".join(inner + row for row in _pack(pairs, width - len(inner))) + "\n" + pad + "}"
        lines = [f"{inner}{scalar(k)}: {dumps(v, indent + 1, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(lines) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [flat(x) for x in value]
        if all(item is not None for item in items):
            return "[\n" + ",\n".join(inner + row for row in _pack(items, width - len(inner))) + "\n" + pad + "]"
        lines = [inner + dumps(x, indent + 1, width) for x in value]
        return "[\n" + ",\n".join(lines) + "\n" + pad + "]"
    raise TypeError(f"cannot write {type(value).__name__}")


def _pack(items: list[str], width: int) -> list[str]:
    """Short items several to a line (joined by ", ", each line at most `width`)."""
    rows, row = [], ""
    for item in items:
        candidate = item if not row else row + ", " + item
        if row and len(candidate) + 1 > width:
            rows.append(row)
            row = item
        else:
            row = candidate
    rows.append(row)
    return rows
