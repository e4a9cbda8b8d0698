"""The language observation of Baba Is AI as BALROG's wrapper writes it (BALROG App. D.1
and D.3): the active rules, then the top thing of every cell with its offset from the
player, character for character (`tests/envs/balrog/test_reference_babaisai.py`).

    Active rules:
    key is win
    baba is you

    Objects on the map:
    rule `key` 1 step to the left and 4 step up
    key 2 steps to the right and 1 step up

What the wrapper does, and this module with it:

- Things are listed in reading order (row by row, left to right), the top thing of a
  cell only: an object under the player or under a rule block is not named.
- Offsets count from the first object in reading order of the kind the last YOU rule
  names. Objects of that kind are listed too (the player itself as an empty line).
- Baba is never listed, nor the border; colours are not named.
- "steps" is written only for 2 or more cells right or down: left and up always read
  "step" ("3 step up").
"""

from __future__ import annotations

from envs.balrog.babaisai_engine import Level, Thing

# The reset notice BALROG's wrapper puts in front of the rules, without a line break.
RESTART_NOTICE = "[...] IS YOU rule was broken, environment reset"


def rules_text(level: Level, state: tuple[int, ...]) -> str:
    return "\n".join(str(rule) for rule in level.rules(state))


def observation_text(level: Level, state: tuple[int, ...]) -> str:
    observer = level.observer(state)
    if observer is None:
        raise ValueError("the observation is described from a YOU object, and none is on the map")
    rx, ry = level.xy(state[observer])
    lines = []
    for cell, i in level.tops(state):
        thing = level.things[i]
        if not thing.block and thing.name == "baba":
            continue
        x, y = level.xy(cell)
        lines.append(_describe(thing_name(thing), x - rx, y - ry))
    return f"Active rules:\n{rules_text(level, state)}\n\nObjects on the map:\n" + "\n".join(lines)


def restart_text(level: Level, broken_state: tuple[int, ...], next_level: Level) -> str:
    """What the wrapper shows when nothing YOU is left on the map: the notice, the rules of
    the level left behind, then the new level's observation (BALROG writes that one as the
    Python representation of its observation dictionary; this is the text inside it)."""
    return (
        f"{RESTART_NOTICE}Active rules:\n{rules_text(level, broken_state)}\n\nObjects on the map:\n"
        + observation_text(next_level, next_level.start)
    )


def thing_name(thing: Thing) -> str:
    return f"rule `{thing.name}`" if thing.block else thing.name


def _describe(name: str, dx: int, dy: int) -> str:
    across = f"{dx} {_steps(dx)} to the right" if dx > 0 else f"{-dx} step to the left" if dx < 0 else ""
    along = f"{dy} {_steps(dy)} down" if dy > 0 else f"{-dy} step up" if dy < 0 else ""
    if across and along:
        return f"{name} {across} and {along}"
    if across or along:
        return f"{name} {across or along}"
    return ""


def _steps(count: int) -> str:
    return "steps" if count > 1 else "step"
