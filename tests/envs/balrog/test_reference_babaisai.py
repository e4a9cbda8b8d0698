"""Baba Is AI against the package BALROG wraps (nacloos/baba-is-ai) played through BALROG's
own environment code (reference outputs in `reference/babaisai_*.json.gz`, see
`reference/PROVENANCE.md`). For every one of BALROG's 40 tasks and five seeds each, the
arena's level is the reference level whole (every cell's stack of things, colours
included, and the player's cell), its first observation is the wrapper's text character
for character, and three sets of episodes replay step for step with the same text,
reward and end: 30 random moves, the arena expert's winning moves, and 100 random moves.
"""

import ast
import gzip
import json
import re
from pathlib import Path

import pytest

from envs.balrog.babaisai_levels import FAMILY_NAMES, generate
from envs.registry import make

REFERENCE = Path(__file__).parent / "reference"
EPISODE_SETS = ("babaisai_random_30", "babaisai_expert_moves", "babaisai_random_100")
# BALROG's wrapper writes the level it starts after a broken YOU rule as the Python
# representation of its observation dictionary; the arena writes the text inside it.
DICTIONARY = re.compile(
    r"defaultdict\(<function .*? at 0x0>, \{'text': \{'long_term_context': ('(?:[^'\\]|\\.)*'), "
    r"'short_term_context': ''\}, 'image': <image>\}\)"
)


def load(name: str) -> dict:
    with gzip.open(REFERENCE / f"{name}.json.gz", "rt", encoding="utf-8") as file:
        return json.load(file)


SETS = {name: load(name) for name in EPISODE_SETS}


def text_inside(reference_text: str) -> str:
    found = DICTIONARY.search(reference_text)
    if found is None:
        return reference_text
    return reference_text[: found.start()] + ast.literal_eval(found.group(1)) + reference_text[found.end() :]


def stacks_of(puzzle) -> list:
    level = puzzle.level
    stacks = level.stacks(level.start)
    return [
        [*level.xy(cell), [["rule", level.things[i].name] if level.things[i].block
                           else [level.things[i].name, level.things[i].colour] for i in stacks[cell]]]
        for cell in sorted(stacks)
    ]


def test_the_reference_covers_balrogs_40_tasks_with_five_seeds_each():
    random_30 = SETS["babaisai_random_30"]
    assert sorted(task.removeprefix("env/") for task in random_30["tasks"]) == list(FAMILY_NAMES)
    episodes = random_30["episodes"]
    assert len(episodes) == 200 and {episode["family"] for episode in episodes} == set(FAMILY_NAMES)
    assert len(SETS["babaisai_expert_moves"]["episodes"]) == 200 and len(SETS["babaisai_random_100"]["episodes"]) == 40


def test_every_level_is_the_reference_level_for_its_seed_whole():
    different = []
    for episode in SETS["babaisai_random_30"]["episodes"]:
        puzzle = generate(episode["family"], episode["seed"])
        level = puzzle.level
        player = level.xy(level.start[level.observer(level.start)])
        reference = episode["level"]
        if (level.width, level.height, stacks_of(puzzle), list(player)) != (
            reference["width"], reference["height"], reference["cells"], reference["agent"]
        ):
            different.append((episode["family"], episode["seed"]))
    assert different == []


@pytest.mark.parametrize("name", EPISODE_SETS)
def test_every_episode_replays_with_the_reference_text_reward_and_end_at_every_step(name):
    compared, different = 0, []
    for episode in SETS[name]["episodes"]:
        task = make("balrog/babaisai", level=episode["family"])
        if task.reset(episode["seed"]).text != episode["text"]:
            different.append((episode["family"], episode["seed"], "start"))
            continue
        restarted = False
        for index, step in enumerate(episode["steps"]):
            result = task.step(step["action"])
            restarted = restarted or bool(result.info.get("restarted"))
            # After a restart the package counts its 100 moves from the new level, so its
            # last step is not "done"; BALROG's loop stops there all the same, at its 100
            # steps per episode, where the arena ends the episode.
            done_as_balrog = step["done"] or (restarted and index + 1 == task.max_steps)
            compared += 1
            if (result.observation.text, result.reward, result.done) != (
                text_inside(step["text"]), pytest.approx(step["reward"]), done_as_balrog
            ):
                different.append((episode["family"], episode["seed"], index))
                break
        else:
            if not result.done and len(episode["steps"]) == task.max_steps:
                different.append((episode["family"], episode["seed"], "not ended"))
    assert different == [] and compared == sum(len(episode["steps"]) for episode in SETS[name]["episodes"])


def test_the_replays_cover_wins_restarts_and_the_step_limit():
    """What the replays exercise, so that a thinner reference fails here, not silently."""
    steps = [step for data in SETS.values() for episode in data["episodes"] for step in episode["steps"]]
    wins = sum(1 for step in steps if step["reward"] > 0)
    restarts = sum(1 for step in steps if step["text"].startswith("[...] IS YOU rule was broken"))
    full_length = sum(1 for episode in SETS["babaisai_random_100"]["episodes"] if len(episode["steps"]) == 100)
    assert len(steps) == 5691 + 2473 + 3618
    assert wins == 19 + 200 + 5 and restarts >= 9 and full_length == 35
