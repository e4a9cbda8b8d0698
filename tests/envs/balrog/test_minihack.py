"""BALROG's eight MiniHack tasks (BALROG App. E): names, action spaces, prompts, goal
reached or not, Boxoban levels chosen by the seed, the rgb format and the explorer."""

import random

import pytest

from envs.core import NoExpert
from PIL import Image

from envs.balrog.minihack_boxoban import boxoban_levels
from envs.balrog.protocol import invalid_action_line
from envs.registry import make, tasks_of

BALROG_NAMES = {
    "balrog/minihack-mazewalk-9x9": "MiniHack-MazeWalk-9x9-v0",
    "balrog/minihack-mazewalk-15x15": "MiniHack-MazeWalk-15x15-v0",
    "balrog/minihack-corridor-r3": "MiniHack-Corridor-R3-v0",
    "balrog/minihack-corridorbattle-dark": "MiniHack-CorridorBattle-Dark-v0",
    "balrog/minihack-quest-easy": "MiniHack-Quest-Easy-v0",
    "balrog/minihack-quest-medium": "MiniHack-Quest-Medium-v0",
    "balrog/minihack-boxoban-medium": "MiniHack-Boxoban-Medium-v0",
    "balrog/minihack-boxoban-hard": "MiniHack-Boxoban-Hard-v0",
}
COMPASS = ["north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest"]
# BALROG's MiniHack action list for the quests (App. E.1), in its order.
QUEST_ACTIONS = COMPASS + [f"far {direction}" for direction in COMPASS] + [
    "down", "wait", "more", "apply", "close", "eat", "force", "kick", "loot", "open", "pickup", "pray", "puton",
    "quaff", "search", "zap",
]  # fmt: skip


def test_it_registers_balrogs_eight_minihack_tasks_with_100_steps_and_north_as_default():
    registered = {task_id: cls for task_id, cls in tasks_of("balrog").items() if "minihack" in task_id}
    assert {task_id: cls.balrog_name for task_id, cls in registered.items()} == BALROG_NAMES
    for cls in registered.values():
        assert cls.max_steps == 100 and cls.default_action == "north" and cls.formats == ("text", "rgb")


@pytest.mark.parametrize(
    "task_id, actions",
    [
        ("balrog/minihack-mazewalk-9x9", COMPASS),
        ("balrog/minihack-corridorbattle-dark", COMPASS),
        ("balrog/minihack-corridor-r3", COMPASS + ["open", "kick", "search"]),
        ("balrog/minihack-boxoban-hard", ["north", "east", "south", "west"]),
        ("balrog/minihack-quest-medium", QUEST_ACTIONS),
    ],
)
def test_each_task_offers_the_named_actions_of_its_minihack_action_space(task_id, actions):
    task = make(task_id)
    assert task.legal_actions() == actions
    task.reset(0)
    keys = {int(action) for action in task.env.actions}
    assert all(task.has_key(key) for key in keys)
    task.close()


def test_the_prompt_states_the_goal_of_the_task_and_every_action_with_what_it_does():
    boxoban = make("balrog/minihack-boxoban-medium").instruction_prompt()
    assert "push the boulders onto the fountains on the map" in boxoban
    assert "\nwest: go west.\n\n" in boxoban
    quest = make("balrog/minihack-quest-easy").instruction_prompt()
    assert "fight monsters and find your way through rooms and mazes to finally reach the stairs down" in quest
    assert "\nzap: zap a wand.\n" in quest
    # BALROG tells a MazeWalk player only to get as far as possible.
    assert "get as far as you can in the game" in make("balrog/minihack-mazewalk-15x15").instruction_prompt()


def test_reaching_the_staircase_ends_the_episode_with_reward_1_and_progress_100():
    task = make("balrog/minihack-mazewalk-9x9")
    task.reset(0)
    results = []
    while not task.done:
        results.append(task.step(task.expert_action()))
    assert results[-1].terminated and results[-1].end_reason == "reached the goal"
    assert results[-1].reward == 1.0 and sum(result.reward for result in results) == 1.0
    assert task.episode_metrics() == {"progress": 100.0}
    task.close()


def test_walking_into_the_lava_kills_the_hero_with_progress_0():
    task = make("balrog/minihack-quest-easy")
    first = task.reset(1)
    assert "lava near eastnortheast and east" in first.text
    results = [task.step("east") for _ in range(4)]
    assert results[-1].terminated and results[-1].end_reason == "died"
    assert task.progress_percent() == 0.0
    task.close()


def test_an_episode_ends_at_100_steps_and_an_invalid_output_moves_north():
    task = make("balrog/minihack-corridorbattle-dark")
    task.reset(0)
    invalid = task.step("charge!")
    assert not invalid.legal and invalid.executed_action == "north"
    assert invalid.observation.text.startswith("\n\n" + invalid_action_line("north"))
    results = [task.step("west") for _ in range(99)]
    assert results[-1].truncated and results[-1].end_reason == "step limit"
    assert task.progress_percent() == 0.0
    task.close()


def test_text_has_the_ascii_map_and_the_inventory_as_context_rgb_the_tiles_and_the_statistics():
    text_task = make("balrog/minihack-corridorbattle-dark")
    image_task = make("balrog/minihack-corridorbattle-dark", "rgb")
    text, image = text_task.reset(0), image_task.reset(0)
    assert "\n\nmap:\n" in text.text and "(x=24, y=11)" in text.text and text.image is None
    assert text.context.startswith("inventory:\na: a +1 long sword (weapon in hand)")
    assert "map:" not in image.text and image.text.endswith("cursor:\nYourself a knight")
    assert isinstance(image.image, Image.Image) and image.image.size == (1264, 336)
    assert image.context.startswith("statistics:\nStrength: ") and "\n\ninventory:\na: a +1 long sword" in image.context
    text_task.close()
    image_task.close()


def test_the_seed_picks_the_boxoban_level_from_the_shipped_files_without_the_global_random_generator():
    levels = boxoban_levels("hard")
    assert len(levels) == 3332 and len(boxoban_levels("medium")) == 1000
    task = make("balrog/minihack-boxoban-hard")
    random.seed(123)
    before = random.random()
    random.seed(123)
    first = task.reset(3332 + 7)
    assert random.random() == before  # MiniHack's level draw no longer touches it
    assert task.initial_state_key() == "MiniHack-Boxoban-Hard-v0 seed 3339 level 7"
    # The map shows level 7: its walls, its four boulders (`) and four fountains ({).
    grid = [row for row in levels[7].split("\n") if row]
    shown = first.text.split("\n\nmap:\n")[1].split("\n")
    top = next(index for index, line in enumerate(shown) if "##########" in line)
    left = shown[top].index("##########")
    board = [line[left : left + 10].ljust(10) for line in shown[top : top + 10]]
    for row, line in zip(grid, board):
        assert [cell == "#" for cell in row] == [cell == "#" for cell in line]
    assert sum(line.count("`") for line in board) == 4 and sum(line.count("{") for line in board) == 4
    task.close()


@pytest.mark.parametrize(
    "task_id, seeds",
    [
        ("balrog/minihack-mazewalk-9x9", range(4)),
        ("balrog/minihack-mazewalk-15x15", (0, 1, 3)),
        ("balrog/minihack-corridorbattle-dark", (1, 2, 3)),
        ("balrog/minihack-corridor-r3", (0, 1, 3)),
    ],
)
def test_the_explorer_reaches_the_staircase_of_mazes_and_corridors(task_id, seeds):
    task = make(task_id)
    assert set(task.baselines) == {"random", "expert"}
    for seed in seeds:
        task.reset(seed)
        while not task.done:
            task.step(task.expert_action())
        assert task.progress_percent() == 100.0, seed
    task.close()


def test_quests_and_boxoban_have_no_expert():
    for task_id in ("balrog/minihack-quest-easy", "balrog/minihack-boxoban-medium"):
        task = make(task_id)
        assert list(task.baselines) == ["random"]
        with pytest.raises(NoExpert, match="no expert"):
            task.expert_action()
