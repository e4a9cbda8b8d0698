"""NetHack's screen in words: the language observation BALROG gives MiniHack and NetHack
(BALROG App. E.1 and F.1), after the NetHack Language Wrapper of Goodger et al. (2023).

BALROG takes the wrapper from balrog-nle, its own NLE build (a prebuilt wheel: nothing
needs building). The arena cannot install it: balrog-nle replaces the `nle` package with
a gym-0.23 version that MiniHack 1.0.2 does not run on (docs/fidelity/balrog.md). So this
module writes the wrapper's text from nle 1.3.0's own observations (`glyphs`, `blstats`,
`tty_chars`, `tty_cursor`, `inv_strs`, `inv_letters`); the language observation of
Boxoban's states is compared with balrog-nle's own outputs, the other texts with the texts
the arena expects:

- the message on the top line of the terminal, with the rest of a menu or a long text
  when the screen shows one;
- the language observation: every creature, object and dungeon feature on the map with
  its distance and compass direction from the hero ("goblin adjacent south", "stairs
  down far eastnortheast"), plus the walls, doorways and dark areas met by looking
  along the eight compass directions (up to 9 cells, stopping at the first wall);
- the cursor: what the terminal's cursor points at, "Yourself a samurai" when it rests
  on the hero;
- the statistics (`blstats`) and the inventory, one item a line;
- the ASCII map: the terminal below the message line.

Distances are in moves (the largest of the two offsets): "adjacent" 1, "very near" 2,
"near" 3–5, "far" 6–19, "very far" 20 and more. A direction such as "eastnortheast"
says the thing lies mostly east and partly north-east.
"""

from __future__ import annotations

import re

import numpy as np
from nle import nethack

from envs.balrog.nle_names import BLOCKS_VIEW, LOOK_NAMES, NAMED_ON_SCREEN, SCREEN_NAMES, plural

LOOK_RANGE = 9
DISTANCE_ORDER = ("very far", "far", "near", "very near", "adjacent")
DIRECTION_ORDER = (
    "north",
    "northnortheast",
    "northeast",
    "eastnortheast",
    "east",
    "eastsoutheast",
    "southeast",
    "southsoutheast",
    "south",
    "southsouthwest",
    "southwest",
    "westsouthwest",
    "west",
    "westnorthwest",
    "northwest",
    "northnorthwest",
)
COMPASS_STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))  # (east, south)


# -- where things are ------------------------------------------------------------------
def distance_word(moves: int) -> str:
    if moves <= 1:
        return "adjacent"
    if moves == 2:
        return "very near"
    if moves < 6:
        return "near"
    if moves < 20:
        return "far"
    return "very far"


def direction_word(east: int, north: int) -> str:
    """The compass direction of an offset: the diagonal part last ("east" + "northeast"
    = "eastnortheast" for 3 east and 1 north)."""
    diagonal_steps = min(abs(east), abs(north))
    diagonal = ""
    if diagonal_steps:
        diagonal = ("north" if north > 0 else "south") + ("east" if east > 0 else "west")
    east_left = east - diagonal_steps if east > 0 else east + diagonal_steps
    north_left = north - diagonal_steps if north > 0 else north + diagonal_steps
    vertical = "north" if north_left > 0 else "south" if north_left < 0 else ""
    horizontal = "east" if east_left > 0 else "west" if east_left < 0 else ""
    return vertical + horizontal + diagonal


def where(east: int, north: int) -> tuple[str, str]:
    return distance_word(max(abs(east), abs(north))), direction_word(east, north)


def _sightings(glyphs: np.ndarray, hero_x: int, hero_y: int) -> list[tuple[str, str, str]]:
    """(name, distance, direction) of everything named on the screen, then of what is
    seen looking along each compass direction."""
    rows, columns = glyphs.shape
    found = []
    for y, x in zip(*np.nonzero(NAMED_ON_SCREEN[glyphs])):
        if (x, y) != (hero_x, hero_y):
            found.append((SCREEN_NAMES[glyphs[y, x]], *where(int(x) - hero_x, hero_y - int(y))))
    for step_east, step_south in COMPASS_STEPS:
        for reach in range(1, LOOK_RANGE + 1):
            x, y = hero_x + reach * step_east, hero_y + reach * step_south
            if not (0 <= x < columns and 0 <= y < rows):
                break
            glyph = glyphs[y, x]
            name = LOOK_NAMES[glyph]
            if name and not SCREEN_NAMES[glyph]:
                found.append((name, *where(x - hero_x, hero_y - y)))
                if name in BLOCKS_VIEW:
                    break
    return found


def _join_directions(directions: list[str]) -> str:
    if len(directions) == 1:
        return directions[0]
    if len(directions) == 2:
        return f"{directions[0]} and {directions[1]}"
    return ", ".join(directions[:-1]) + f", and {directions[-1]}"


def surroundings_text(glyphs: np.ndarray, blstats: np.ndarray) -> str:
    """The language observation: one line per kind of thing and distance, farthest
    first, each with its directions ("horizontal wall very near north, northeast, and
    northwest"); several of a kind in one direction are named in the plural."""
    hero_x, hero_y = int(blstats[nethack.NLE_BL_X]), int(blstats[nethack.NLE_BL_Y])
    found = _sightings(glyphs, hero_x, hero_y)
    found.sort(key=lambda item: (DISTANCE_ORDER.index(item[1]), DIRECTION_ORDER.index(item[2])))
    groups: dict[tuple[str, str], list[str]] = {}
    for name, distance, direction in found:
        groups.setdefault((name, distance), []).append(direction)
    lines = []
    for (name, distance), directions in groups.items():
        once = [d for d in dict.fromkeys(directions) if directions.count(d) == 1]
        several = [d for d in dict.fromkeys(directions) if directions.count(d) > 1]
        if once and several and plural(name) == name:
            # A name that is its own plural ("bars"): balrog-nle's wrapper gives both
            # lines the directions of the plural one (its lines are keyed by their
            # words, so the plural's directions replace the singular's): two equal lines,
            # and the singular's directions are not said (Boxoban's walls are bars).
            once = several
        if once:
            lines.append(f"{name} {distance} {_join_directions(once)}")
        if several:
            lines.append(f"{plural(name)} {distance} {_join_directions(several)}")
    return "\n".join(lines)


def cursor_text(glyphs: np.ndarray, blstats: np.ndarray, tty_cursor: np.ndarray) -> str:
    """What the terminal cursor points at: the hero ("Yourself a knight"), or a thing
    on the map with its distance and direction; empty when it is off the map."""
    row, column = int(tty_cursor[0]), int(tty_cursor[1])
    y = row - 1  # the map starts below the message line
    rows, columns = glyphs.shape
    if not (0 <= y < rows and 0 <= column < columns):
        return ""
    name = SCREEN_NAMES[glyphs[y, column]] or LOOK_NAMES[glyphs[y, column]]
    east, north = column - int(blstats[nethack.NLE_BL_X]), int(blstats[nethack.NLE_BL_Y]) - y
    if east == 0 and north == 0:
        return f"Yourself a {name}"
    distance, direction = where(east, north)
    return f"{distance} {direction} {name}".rstrip()


# -- the terminal ----------------------------------------------------------------------
_PAGE_MARK = re.compile(r"--More--|\(end\)|\(\d+ of \d+\)")


def message_text(tty_chars: np.ndarray) -> str:
    """The top line of the terminal; when a menu or a long text covers the map (ending
    in "--More--", "(end)" or "(1 of 2)"), every line of it down to that mark."""
    lines = [bytes(row).decode("latin-1") for row in tty_chars]
    first = lines[0].strip()
    if not first:
        return ""
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    shown = []
    for line in lines:
        text = line[indent:].strip()
        shown.append(text)
        if _PAGE_MARK.search(text):
            return "\n".join(shown)
    return first


def map_text(tty_chars: np.ndarray) -> str:
    """The terminal below the message line (the map and the two status lines), each
    line without its trailing blanks."""
    lines = [bytes(row).decode("latin-1").rstrip() for row in tty_chars[1:]]
    return "\n".join(lines).rstrip("\n")


ALIGNMENTS = {-128: "None", -1: "Chaotic", 0: "Neutral", 1: "Lawful"}
HUNGER = ("Satiated", "Not Hungry", "Hungry", "Weak", "Fainting", "Fainted", "Starved")
ENCUMBRANCE = ("Unencumbered", "Burdened", "Stressed", "Strained", "Overtaxed", "Overloaded")
CONDITIONS = (
    (nethack.BL_MASK_STONE, "Stoned"),
    (nethack.BL_MASK_SLIME, "Slimed"),
    (nethack.BL_MASK_STRNGL, "Strangled"),
    (nethack.BL_MASK_FOODPOIS, "Food Poisoning"),
    (nethack.BL_MASK_TERMILL, "Terminally Ill"),
    (nethack.BL_MASK_BLIND, "Blind"),
    (nethack.BL_MASK_DEAF, "Deaf"),
    (nethack.BL_MASK_STUN, "Stunned"),
    (nethack.BL_MASK_CONF, "Confused"),
    (nethack.BL_MASK_HALLU, "Hallucinating"),
    (nethack.BL_MASK_LEV, "Levitating"),
    (nethack.BL_MASK_FLY, "Flying"),
    (nethack.BL_MASK_RIDE, "Riding"),
)


def _word(table, index: int) -> str:
    return table[index] if 0 <= index < len(table) else str(index)


def statistics_text(blstats: np.ndarray) -> str:
    """The hero's statistics (blstats), one a line, as in BALROG App. E.1 and F.4."""
    b = [int(value) for value in blstats]
    condition = " ".join(name for mask, name in CONDITIONS if b[nethack.NLE_BL_CONDITION] & mask) or "None"
    return "\n".join(
        (
            f"Strength: {b[nethack.NLE_BL_STR125]}/{b[nethack.NLE_BL_STR25]}",
            f"Dexterity: {b[nethack.NLE_BL_DEX]}",
            f"Constitution: {b[nethack.NLE_BL_CON]}",
            f"Intelligence: {b[nethack.NLE_BL_INT]}",
            f"Wisdom: {b[nethack.NLE_BL_WIS]}",
            f"Charisma: {b[nethack.NLE_BL_CHA]}",
            f"Depth: {b[nethack.NLE_BL_DEPTH]}",
            f"Gold: {b[nethack.NLE_BL_GOLD]}",
            f"HP: {b[nethack.NLE_BL_HP]}/{b[nethack.NLE_BL_HPMAX]}",
            f"Energy: {b[nethack.NLE_BL_ENE]}/{b[nethack.NLE_BL_ENEMAX]}",
            f"AC: {b[nethack.NLE_BL_AC]}",
            f"XP: {b[nethack.NLE_BL_XP]}/{b[nethack.NLE_BL_EXP]}",
            f"Time: {b[nethack.NLE_BL_TIME]}",
            f"Position: {b[nethack.NLE_BL_X]}|{b[nethack.NLE_BL_Y]}",
            f"Hunger: {_word(HUNGER, b[nethack.NLE_BL_HUNGER])}",
            f"Monster Level: {b[nethack.NLE_BL_HD]}",
            f"Encumbrance: {_word(ENCUMBRANCE, b[nethack.NLE_BL_CAP])}",
            f"Dungeon Number: {b[nethack.NLE_BL_DNUM]}",
            f"Level Number: {b[nethack.NLE_BL_DLEVEL]}",
            f"Score: {b[nethack.NLE_BL_SCORE]}",
            f"Alignment: {ALIGNMENTS.get(b[nethack.NLE_BL_ALIGN], str(b[nethack.NLE_BL_ALIGN]))}",
            f"Condition: {condition}",
        )
    )


def inventory_text(inv_strs: np.ndarray, inv_letters: np.ndarray) -> str:
    """One item a line, "a: a +1 long sword (weapon in hand)"."""
    lines = []
    for letter, description in zip(inv_letters, inv_strs):
        if letter == 0:
            break
        text = bytes(description).split(b"\0", 1)[0].decode("latin-1")
        lines.append(f"{chr(letter)}: {text}")
    return "\n".join(lines)


def section(title: str, body: str) -> str:
    """One part of an observation as BALROG lays it out: its title, then its text."""
    return f"{title}:\n{body}"
