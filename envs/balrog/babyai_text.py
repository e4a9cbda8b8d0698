"""What the BabyAI agent sees, in words (BALROG App. A.1 and A.3).

BALROG shows BabyAI-Text's description of the agent's partial view (Carta et al. 2023)
with its leading "You see " removed, one item per line:

- "You carry a purple key" first, when the agent holds something;
- then the nearest wall straight ahead, to the left and to the right ("a wall 5 steps
  forward"), each only when nothing else stands between the agent and that wall;
- then every key, ball, box and door in view with its place relative to the agent:
  "a red key 1 step right and 1 step forward", "a blue key 1 step right",
  "an open yellow door 3 steps forward". Doors are open, closed or locked.

The view is minigrid's own (`gen_obs_grid`): 7×7 cells turned so that the agent stands
at the middle of the bottom row looking up, with the cells hidden behind walls and
closed doors masked out. A task reads it from the encoding minigrid's step already made
of it (`describe_encoded_view`), which gives the same lines as the view itself. Objects are listed column by column from the agent's left to
its right, and within a column from the farthest to the nearest, as BabyAI-Text does.
"""

from __future__ import annotations

import numpy as np
from minigrid.core.constants import IDX_TO_COLOR, IDX_TO_OBJECT, OBJECT_TO_IDX
from minigrid.core.grid import Grid
from minigrid.core.world_object import WorldObj
from minigrid.minigrid_env import MiniGridEnv


def steps(count: int) -> str:
    return f"{count} step" if count == 1 else f"{count} steps"


def object_name(obj: WorldObj) -> str:
    """'a red key', 'an open yellow door', 'a locked blue door'."""
    if obj.type == "door":
        if obj.is_open:
            return f"an open {obj.color} door"
        state = "locked" if obj.is_locked else "closed"
        return f"a {state} {obj.color} door"
    return f"a {obj.color} {obj.type}"


def relative_place(right: int, forward: int) -> str:
    """Where a cell lies from the agent: `right` cells to its right (negative: to its
    left) and `forward` cells ahead of it."""
    side = f"{steps(abs(right))} {'right' if right > 0 else 'left'}"
    if right == 0:
        return f"{steps(forward)} forward"
    if forward == 0:
        return side
    return f"{side} and {steps(forward)} forward"


def _first_thing_along(view: Grid, visible: np.ndarray, start: tuple[int, int], direction: tuple[int, int]):
    """The first visible non-empty cell on a straight line from the agent, with its
    distance; (None, 0) if the line leaves the view first."""
    x, y = start
    dx, dy = direction
    distance = 0
    while True:
        x, y, distance = x + dx, y + dy, distance + 1
        if not (0 <= x < view.width and 0 <= y < view.height):
            return None, 0
        cell = view.get(x, y)
        if visible[x, y] and cell is not None:
            return cell, distance


def describe_view(view: Grid, visible: np.ndarray, carrying: WorldObj | None) -> list[str]:
    """The lines describing an agent's view (see the module docstring)."""
    agent_x, agent_y = view.width // 2, view.height - 1
    lines = []
    if carrying is not None:
        lines.append(f"You carry {object_name(carrying)}")
    for name, direction in (("forward", (0, -1)), ("left", (-1, 0)), ("right", (1, 0))):
        cell, distance = _first_thing_along(view, visible, (agent_x, agent_y), direction)
        if cell is not None and cell.type == "wall":
            lines.append(f"a wall {steps(distance)} {name}")
    for x in range(view.width):
        for y in range(view.height):
            # The agent's own cell holds what it carries, already described.
            if (x, y) == (agent_x, agent_y) or not visible[x, y]:
                continue
            cell = view.get(x, y)
            if cell is None or cell.type == "wall":
                continue
            lines.append(f"{object_name(cell)} {relative_place(x - agent_x, agent_y - y)}")
    return lines


def describe(env: MiniGridEnv) -> list[str]:
    """The lines describing what the agent of `env` sees now."""
    view, visible = env.gen_obs_grid()
    return describe_view(view, visible, env.carrying)


# minigrid's encoding of a cell (`WorldObj.encode`): the kind's index, the colour's, and
# a door's state (0 open, 1 closed, 2 locked).
_UNSEEN, _EMPTY, _WALL = OBJECT_TO_IDX["unseen"], OBJECT_TO_IDX["empty"], OBJECT_TO_IDX["wall"]
_DOOR_STATES = {0: "open", 1: "closed", 2: "locked"}


def _encoded_name(kind: int, colour: int, state: int) -> str:
    """`object_name` of the object a cell's encoding stands for."""
    if IDX_TO_OBJECT[kind] == "door":
        return f"{'an' if state == 0 else 'a'} {_DOOR_STATES[state]} {IDX_TO_COLOR[colour]} door"
    return f"a {IDX_TO_COLOR[colour]} {IDX_TO_OBJECT[kind]}"


def describe_encoded_view(view: np.ndarray, carrying: WorldObj | None) -> list[str]:
    """`describe_view` read from minigrid's encoding of the agent's view (the "image"
    its `reset` and `step` return: `gen_obs_grid`'s cells encoded with the hidden ones
    "unseen"), which holds everything the description names; the same lines, without
    working out the view a second time."""
    cells = view.tolist()
    width, height = len(cells), len(cells[0])
    agent_x, agent_y = width // 2, height - 1
    lines = []
    if carrying is not None:
        lines.append(f"You carry {object_name(carrying)}")
    for name, (dx, dy) in (("forward", (0, -1)), ("left", (-1, 0)), ("right", (1, 0))):
        x, y, distance = agent_x + dx, agent_y + dy, 1
        while 0 <= x < width and 0 <= y < height:
            kind = cells[x][y][0]
            if kind != _UNSEEN and kind != _EMPTY:
                if kind == _WALL:
                    lines.append(f"a wall {steps(distance)} {name}")
                break
            x, y, distance = x + dx, y + dy, distance + 1
    for x in range(width):
        for y in range(height):
            kind, colour, state = cells[x][y]
            if (x, y) == (agent_x, agent_y) or kind in (_UNSEEN, _EMPTY, _WALL):
                continue
            lines.append(f"{_encoded_name(kind, colour, state)} {relative_place(x - agent_x, agent_y - y)}")
    return lines
