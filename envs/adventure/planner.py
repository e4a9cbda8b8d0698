"""Optimal solutions by breadth-first search over world states.

The search applies the engine's own `resolve` to candidate commands, so a plan is
valid by construction. Candidates are limited to commands that can matter for the
goals, which keeps the search small without losing optimality:

- go to each connected room;
- open a closed container that holds a goal object or is a goal target (closing,
  looking and examining never change anything a goal depends on);
- take a goal object that is not yet where it belongs (other objects only fill the
  inventory);
- put a carried goal object where its goal wants it; put any carried object on the
  floor when it is not a goal object or the inventory is full (with an inventory
  limit, setting one object down for later can be part of the shortest route —
  any other free spot in the room is as good as the floor);
- the state verbs of the synthetic-word experiments, on goal objects only;
- done, once every goal fact holds.

Every command costs one turn, so the first goal state reached is an optimal one; the
plan ends with "done" and its length is the optimal number of turns.
"""

from __future__ import annotations

from collections import deque

from envs.adventure.actions import command_text, resolve
from envs.adventure.facts import State, View, World
from envs.adventure.parser import Command


class NoPlan(Exception):
    pass


def _goal_targets(world: World) -> dict[str, tuple[str, str]]:
    """Goal object → (preposition, target) for delivery goals."""
    return {goal[1]: (goal[0], goal[2]) for goal in world.goals if goal[0] in ("in", "on")}


def candidates(world: World, state: State, view: View | None = None) -> list[tuple[str, tuple[str, ...], str | None]]:
    view = view if view is not None else View(world, state)
    targets = _goal_targets(world)
    state_goals = {goal[1] for goal in world.goals if goal[0] == "state"}
    result: list[tuple[str, tuple[str, ...], str | None]] = []
    here = view.player_room

    for room in world.neighbours(here):
        result.append(("go", (room,), None))

    relevant_containers = {target for _, target in targets.values() if world.is_("container", target)}
    for obj in targets:
        prep, holder = view.holder.get(obj, (None, None))
        if prep == "in" and world.is_("container", holder):
            relevant_containers.add(holder)
    for container in sorted(relevant_containers):
        if container in view.closed and view.room_of.get(container) == here:
            result.append(("open", (container,), None))

    limit = world.inventory_limit
    for obj in sorted(targets):
        prep, target = targets[obj]
        if view.carried(obj) or (prep, obj, target) in state or not view.visible(obj):
            continue
        if limit is None or len(view.inventory) < limit:
            result.append(("take", (obj,), None))

    floor = view.floor_here()
    for obj in view.inventory:
        if obj in targets:
            prep, target = targets[obj]
            if view.visible(target):
                result.append(("put", (obj, target), prep))
        dropping_helps = obj not in targets or (limit is not None and len(view.inventory) >= limit)
        if floor is not None and dropping_helps:
            result.append(("put", (obj, floor), "on"))

    for obj in sorted(state_goals):
        if view.visible(obj):
            kind = world.kind_of.get(obj)
            for verb in sorted(world.kinds.get(kind, {})):
                result.append((verb, (obj,), None))
    return result


def _satisfied(world: World, state: State) -> bool:
    return all(goal in state for goal in world.goals)


def plan(world: World, state: State | None = None, max_states: int = 500_000) -> list[str]:
    """The shortest command sequence from `state` (default: the initial state) that
    ends with every goal fact true, followed by "done"."""
    start = world.initial if state is None else state
    done = world.verbs["done"]
    if _satisfied(world, start):
        return [done]
    parents: dict[State, tuple[State, str] | None] = {start: None}
    frontier = deque([start])
    while frontier:
        current = frontier.popleft()
        view = View(world, current)
        for action, args, prep in candidates(world, current, view):
            command = Command(action, world.verbs[action], tuple((a,) for a in args), prep)
            outcome = resolve(world, current, command, view=view)
            if not outcome.success:
                continue
            following = outcome.apply(current)
            if following in parents:
                continue
            parents[following] = (current, command_text(world, action, args, prep))
            if _satisfied(world, following):
                return _unwind(parents, following) + [done]
            if len(parents) > max_states:
                raise NoPlan(f"search gave up after {max_states} states")
            frontier.append(following)
    raise NoPlan("the goals cannot be reached")


def _unwind(parents: dict, state: State) -> list[str]:
    steps: list[str] = []
    while parents[state] is not None:
        state, text = parents[state]
        steps.append(text)
    return steps[::-1]

