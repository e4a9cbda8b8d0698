"""What the arena needs around a clembench episode: the prompt, the replay page's state
summary, well-formed commands for the random baseline and an optimal plan for the oracle."""

from __future__ import annotations

import re
from collections import deque

from envs.adventure.clem.game import ClemGame
from envs.adventure.clem.world import World
from envs.adventure.clem.data import INVENTORY, PLAYER

# The prompt (AdventureGame App. D), in this project's words with clembench's content and
# layout: how to answer, one example, the inventory limit or the new words if the
# experiment has them, the goal, how to end the game.
INTRO = (
    "We are playing a text adventure game. I tell you what you perceive in the game, and you answer "
    "with the one action you want to take, written after >. Answer with the action only."
)
EXAMPLE = "Here is an example:\n> open cupboard"
LIMIT = "Your inventory can hold at most two objects at once."
GOAL = "The goal of this game: $GOAL$"
ENDING = 'When you have reached your goal, answer "> done" to end the game.'
NEW_WORDS = "Besides the common actions, you can also $VERBS$."


def _prompt_parts(instance: dict) -> dict:
    """The instance's own goal sentence, new verbs and their explanation (data)."""
    prompt = instance["prompt"]
    goal = re.search(r"Your goal for this game is: (.*)", prompt).group(1).strip()
    words = re.search(r"In addition to common actions, you can (.*?)\.(?: (.*))?\n", prompt)
    limit = "inventory at the same time" in prompt
    return {
        "goal": goal,
        "verbs": words.group(1) if words else None,
        "explanation": (words.group(2) or "").strip() if words else "",
        "limit": limit,
    }


def instructions(instance: dict) -> str:
    parts = _prompt_parts(instance)
    blocks = [f"{INTRO}\n{EXAMPLE}"]
    if parts["limit"]:
        blocks.append(LIMIT)
    if parts["verbs"]:
        line = NEW_WORDS.replace("$VERBS$", parts["verbs"])
        blocks.append(f"{line} {parts['explanation']}".rstrip())
    blocks.append(GOAL.replace("$GOAL$", parts["goal"]))
    blocks.append(ENDING)
    return "\n\n".join(blocks)


def template_text(experiment: str) -> str:
    blocks = [f"{INTRO}\n{EXAMPLE}"]
    if experiment.startswith("limit"):
        blocks.append(LIMIT)
    if experiment.startswith("synthetic"):
        blocks.append(NEW_WORDS + " (with what the verb means, in the easy experiment)")
    blocks += [GOAL, ENDING]
    return "\n\n".join(blocks)


def goal_text(world: World, goal: tuple) -> str:
    """("on", "plate1", "table1") → "plate on table"; ("dented", "subst1") → "subst dented"."""
    if len(goal) == 3:
        return f"{world.words(goal[1])} {goal[0]} {world.words(goal[2])}"
    return f"{world.words(goal[1])} {goal[0]}"


def state_info(game: ClemGame) -> dict:
    world = game.world
    here = world.player_room()
    visited = game.visited
    met = world.goals_met()
    passages = set()
    for fact in world.state:
        if fact[0] == "exit" and fact[1] in visited and fact[2] in visited:
            passages.add(tuple(sorted((world.words(fact[1]), world.words(fact[2])))))
    return {
        "room": world.words(here),
        "inventory": [world.words(item) for item in world.carried()],
        "goals": [{"text": goal_text(world, g), "achieved": g in met} for g in sorted(world.goals)],
        "visited": sorted(world.words(room) for room in visited),
        "passages": [list(p) for p in sorted(passages)],
    }


def _verb(world: World, action: str) -> str | None:
    definition = world.definitions.actions.get(action)
    return definition.verbs[0] if definition and definition.verbs else None


def candidate_commands(world: World, goal_only: bool = False) -> list[tuple[str, dict]]:
    """Commands that make sense here (not all succeed), in the instance's own verbs, each
    with its parse; with `goal_only`, only those that can bring a goal nearer (for the
    planner)."""
    visible = world.visible_here()
    carried = world.carried()
    goal_things = {g[1] for g in world.goals} | {g[2] for g in world.goals if len(g) == 3}
    kind = world.kind
    out: list[tuple[str, dict]] = []

    def add(action: str, text_args: list[str], parsed: dict) -> None:
        verb = _verb(world, action)
        if verb:
            out.append((" ".join([verb, *text_args]), {"type": action, **parsed}))

    for room in world.exits():
        add("go", [world.words(room)], {"arg1": kind(room)})
    things = [v for v in visible if ("takeable", v) in world.state]
    for thing in things:
        if not goal_only or thing in goal_things:
            add("take", [world.words(thing)], {"arg1": kind(thing)})
    receptacles = [v for v in visible if any((trait, v) in world.state for trait in ("receptacle", "support", "container"))]
    for item in sorted(set(carried) | set(things)):
        if goal_only and item not in goal_things:
            continue
        for target in receptacles:
            if goal_only and target not in goal_things:
                continue
            prep = "in" if ("container", target) in world.state else "on"
            add("put", [world.words(item), prep, world.words(target)], {"arg1": kind(item), "arg2": kind(target), "prep": prep})
    holders = {f[2] for f in world.state if f[0] == "in" and f[1] in goal_things}
    for action, state in (("open", "closed"), ("close", "open")):
        if goal_only and action == "close":
            continue
        for thing in visible:
            if (state, thing) in world.state and (not goal_only or thing in goal_things or thing in holders):
                add(action, [world.words(thing)], {"arg1": kind(thing)})
    standard = {"go", "take", "put", "open", "close", "examine", "look", "done"}
    for name, definition in world.definitions.actions.items():
        if name in standard or not definition.verbs:
            continue
        for thing in visible:
            if not goal_only or thing in goal_things:
                add(name, [world.words(thing)], {"arg1": kind(thing)})
    if not goal_only:
        for thing in visible + carried:
            add("examine", [world.words(thing)], {"arg1": kind(thing)})
        add("look", [], {})
        add("done", [], {})
    return out


def _key(world: World) -> frozenset:
    return frozenset(f for f in world.state if f[0] not in ("type", "room", "exit"))


def plan(world: World, limit: int = 200_000) -> list[str] | None:
    """A shortest command sequence (without "done") after which every goal holds, by
    breadth-first search over the goal-relevant commands; None when no sequence does.
    Raises ValueError when the search reaches `limit` states without an answer."""
    start = world.clone()
    if start.goals_met() == start.goals:
        return []
    frontier = deque([(start, [])])
    seen = {_key(start)}
    while frontier and len(seen) < limit:
        current, path = frontier.popleft()
        for command, parsed in candidate_commands(current, goal_only=True):
            following = current.clone()
            if not following.resolve(parsed).success:
                continue
            key = _key(following)
            if key in seen:
                continue
            if following.goals_met() == following.goals:
                return path + [command]
            seen.add(key)
            frontier.append((following, path + [command]))
    if frontier:
        raise ValueError(f"no plan within {limit} states")
    return None


def walk(world: World, room: str) -> list[str]:
    """The shortest series of go commands from the player's room to `room`."""
    verb = _verb(world, "go") or "go"
    exits: dict[str, list[str]] = {}
    for fact in world.state:
        if fact[0] == "exit":
            exits.setdefault(fact[1], []).append(fact[2])
    frontier = deque([(world.player_room(), [])])
    seen = {world.player_room()}
    while frontier:
        here, path = frontier.popleft()
        if here == room:
            return path
        for there in sorted(exits.get(here, ())):
            if there not in seen:
                seen.add(there)
                frontier.append((there, path + [f"{verb} {world.words(there)}"]))
    raise ValueError(f"no way to {room}")


__all__ = ["INVENTORY", "PLAYER", "candidate_commands", "instructions", "plan", "state_info", "template_text"]
