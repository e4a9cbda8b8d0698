"""Crafter's language observation (BALROG App. B.2, after the wrapper of Wu et al. 2023).

BALROG splits each observation in two:

- the long-term part (`Observation.text`, kept in the history): a line first when the
  player sleeps or has died; what it sees — for every kind of material or creature in
  its local view, the nearest one with its distance in steps and its compass direction,
  the kinds in the order BALROG's wrapper scans the view — and what it faces;
- the short-term part (`Observation.context`, latest turn only): the four vital
  statistics out of 9 and the non-empty inventory, one per line.

The information and its order are BALROG's (a test compares them with the output of
BALROG's own wrapper on the same worlds): Manhattan distances, the eight compass
directions, the nearest of each kind only, nothing about the time of day; the wording is
the arena's. Coordinates follow crafter: x grows to the east, y to the south.
"""

from __future__ import annotations

import math

import crafter
import numpy as np

# BALROG plays crafter's default 9×9 view. The inventory takes the bottom rows of that
# frame (as many as 16 items need at 9 per row), so the world shown is 9 cells wide and
# 7 high, centred on the player; that is the part the text describes.
VIEW = (9, 9)
_INVENTORY_ROWS = math.ceil(len(crafter.constants.items) / VIEW[0])
VISIBLE = (VIEW[0], VIEW[1] - _INVENTORY_ROWS)

VITALS = ("health", "food", "drink", "energy")


def thing_at(world, position) -> str | None:
    """What occupies a cell as the player sees it: the creature or plant standing there,
    else its material; None outside the world."""
    material, creature = world[position]
    if creature is not None:
        return type(creature).__name__.lower()
    return material


def nearest_in_view(env: crafter.Env) -> dict[str, tuple[int, int]]:
    """For each kind of thing in the player's local view, the offset (east, south) of the
    nearest one, the kinds in the order BALROG's wrapper meets them: it scans the view
    column by column from the west, each column from the north, and a kind takes its
    place when first met. Of two equally near, the one met first counts."""
    player = env._player
    x, y = (int(value) for value in player.pos)
    half_width, half_height = VISIBLE[0] // 2, VISIBLE[1] // 2
    nearest: dict[str, tuple[int, int]] = {}
    for dx in range(-half_width, half_width + 1):
        for dy in range(-half_height, half_height + 1):
            if dx == 0 and dy == 0:
                continue  # the player's own cell
            name = thing_at(env._world, (x + dx, y + dy))
            if name is None:
                continue  # beyond the edge of the world
            known = nearest.get(name)
            if known is None or abs(dx) + abs(dy) < abs(known[0]) + abs(known[1]):
                nearest[name] = (dx, dy)
    return nearest


def compass(dx: int, dy: int) -> str:
    """The direction of an offset in compass words: "north", "south-east", …"""
    vertical = "north" if dy < 0 else "south" if dy > 0 else ""
    horizontal = "west" if dx < 0 else "east" if dx > 0 else ""
    return "-".join(word for word in (vertical, horizontal) if word)


def where(dx: int, dy: int) -> str:
    """An offset in words: "3 steps to your north-west" (steps are Manhattan steps)."""
    steps = abs(dx) + abs(dy)
    return f"{steps} step{'' if steps == 1 else 's'} to your {compass(dx, dy)}"


def faced(env: crafter.Env) -> str:
    """What is on the cell the player faces, "nothing" beyond the edge of the world."""
    player = env._player
    target = np.asarray(player.pos) + np.asarray(player.facing)
    return thing_at(env._world, target) or "nothing"


def surroundings_text(env: crafter.Env) -> str:
    """The long-term observation, in the order of BALROG's wrapper: the player's
    condition when it matters (asleep first, then dead, as BALROG checks them), what it
    sees, what it faces."""
    lines = []
    player = env._player
    if player.sleeping:
        lines += ["You are asleep and cannot act until your energy is full again.", ""]
    elif player.health <= 0:
        lines += ["You have died.", ""]
    seen = nearest_in_view(env).items()
    if seen:
        lines.append("In view:")
        lines += [f"- {name} {where(dx, dy)}" for name, (dx, dy) in seen]
    else:
        lines.append("Nothing in view away from you.")
    lines += ["", f"In front of you: {faced(env)}."]
    return "\n".join(lines)


def item_name(item: str) -> str:
    return item.replace("_", " ")


def status_text(env: crafter.Env) -> str:
    """The short-term context, as BALROG's wrapper gives it: the four vital statistics
    out of 9, one per line, then the non-empty inventory items, one per line."""
    inventory = env._player.inventory
    vitals = "\n".join(f"- {vital}: {inventory[vital]}/{crafter.constants.items[vital]['max']}" for vital in VITALS)
    carried = [f"- {item_name(item)}: {count}" for item, count in inventory.items() if item not in VITALS and count > 0]
    inventory_part = "Inventory:\n" + "\n".join(carried) if carried else "Your inventory is empty."
    return f"Status:\n{vitals}\n\n{inventory_part}"
