"""AdventureGame's home worlds (AdventureGame §4.1): six rooms joined by random
passages, furniture and objects in their allowed places, the easy and hard goals, and
the pre-exploration walk. The experiments built from them are in envs.adventure.generator."""

from __future__ import annotations

import itertools
import random
from collections import deque

from envs.adventure import domain
from envs.adventure.domain import PLAYER, floor_id
from envs.adventure.facts import Fact, View, World

PREEXPLORATION_LENGTHS = (6, 7, 8)
EXTRA_PASSAGE_PROBABILITY = 0.3
HARD_MIN_TOTAL_DISTANCE = 4


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
