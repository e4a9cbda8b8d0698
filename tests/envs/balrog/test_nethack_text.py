"""The NetHack Language Wrapper's text (BALROG App. E.1, F.1), written from NLE's
observations (envs.balrog.nle_text): directions and distances, plurals, messages and
menus, and the language observation of real MiniHack states."""

import numpy as np
import pytest
from nle import nethack

from envs.balrog import nle_text
from envs.balrog.nle_names import plural
from envs.registry import make


@pytest.mark.parametrize(
    "east, north, words",
    [
        (1, 0, ("adjacent", "east")),
        (0, -2, ("very near", "south")),
        (3, 1, ("near", "eastnortheast")),
        (1, 3, ("near", "northnortheast")),
        (-2, -2, ("very near", "southwest")),
        (-7, 2, ("far", "westnorthwest")),
        (25, 0, ("very far", "east")),
    ],
)
def test_it_names_an_offset_by_its_distance_in_moves_and_its_compass_direction(east, north, words):
    assert nle_text.where(east, north) == words


@pytest.mark.parametrize(
    "one, several",
    [
        ("giant rat", "giant rats"),
        ("fox", "foxes"),
        ("jackal", "jackals"),
        ("lava", "area of lava"),
        ("scroll labeled THARR", "scrolls labeled THARR"),
        ("pair of hard shoes", "pair of hard shoes"),
        ("dark area", "dark areas"),
        ("yellow jelly", "yellow jellies"),
    ],
)
def test_it_names_several_things_of_a_kind_in_the_plural(one, several):
    assert plural(one) == several


def tty(lines: list[str]) -> np.ndarray:
    screen = np.full((24, 80), ord(" "), dtype=np.uint8)
    for row, line in enumerate(lines):
        screen[row, : len(line)] = list(line.encode())
    return screen


def test_the_message_is_the_top_line_unless_a_menu_covers_the_map_down_to_its_end_mark():
    assert nle_text.message_text(tty(["You see here a dagger.", "", " ---- "])) == "You see here a dagger."
    assert nle_text.message_text(tty([])) == ""
    menu = tty(["          Weapons", "          a - a long sword", "          (end)", "", "   |....|"])
    assert nle_text.message_text(menu) == "Weapons\na - a long sword\n(end)"
    paged = tty(["  Things that are here:", "  a dagger", "  (1 of 2)"])
    assert nle_text.message_text(paged).endswith("a dagger\n(1 of 2)")


@pytest.fixture(scope="module")
def quest():
    """MiniHack Quest-Easy, seed 1: a monk west of a river of lava, a newt and a sewer
    rat beyond it, the staircase down out of sight."""
    task = make("balrog/minihack-quest-easy")
    task.reset(1)
    yield task
    task.close()


def test_the_language_observation_names_what_is_in_sight_farthest_first_with_plurals(quest):
    text = nle_text.surroundings_text(quest.glyphs, quest.blstats)
    assert text.split("\n") == [
        "sewer rat far eastsoutheast",
        "lava near eastnortheast and east",
        "area of lava near eastsoutheast",
        "newt near eastsoutheast",
        "horizontal wall near southeast and south",
        "horizontal wall very near north and northeast",
        "vertical wall very near southwest and west",
        "northwest room corner very near northwest",
    ]


def test_the_cursor_on_the_hero_says_yourself_and_the_role(quest):
    observed = quest._observed
    assert nle_text.cursor_text(quest.glyphs, quest.blstats, observed["tty_cursor"]) == "Yourself a monk"
    # The cursor anywhere else names what is there with its distance and direction.
    hero_x, hero_y = int(quest.blstats[nethack.NLE_BL_X]), int(quest.blstats[nethack.NLE_BL_Y])
    # The room's top wall, two rows above the hero (terminal rows count the message line).
    wall_above = np.array([hero_y - 2 + 1, hero_x])
    assert nle_text.cursor_text(quest.glyphs, quest.blstats, wall_above) == "very near north horizontal wall"


def test_statistics_and_inventory_read_blstats_and_the_inventory_strings(quest):
    statistics = nle_text.statistics_text(quest.blstats).split("\n")
    # The status line's St:18/01, which NetHack counts as 19 on both of its scales.
    assert statistics[0] == "Strength: 19/19"
    assert "HP: 14/14" in statistics and "Depth: 1" in statistics and "Alignment: Chaotic" in statistics
    assert statistics[-1] == "Condition: None" and len(statistics) == 22
    inventory = nle_text.inventory_text(quest._observed["inv_strs"], quest._observed["inv_letters"]).split("\n")
    assert inventory[0] == "a: an uncursed +2 pair of leather gloves (being worn)"
    assert inventory[-1] == "j: 4 uncursed fortune cookies"


def test_the_map_is_the_terminal_below_the_message_line(quest):
    lines = nle_text.map_text(quest._observed["tty_chars"]).split("\n")
    assert "|.@...}........-" in lines[9]
    assert lines[-1].startswith("Dlvl:1 $:0 HP:14(14)")
    assert all(line == line.rstrip() for line in lines)
