"""balrog/crafter (BALROG App. B): the world a seed makes, the language observation on
real states, invalid outputs, progress, the step limit and the rgb format.

A crafter reset generates a whole world (about 1–2 s), so the scripted episode of seed
1 is played once per module and the other tests reset as little as they can.
"""

import hashlib
import os
import random
import subprocess
import sys
from pathlib import Path

import crafter
import pytest

from envs.core import NoExpert
from PIL import Image

from envs.balrog.crafter_env import ACHIEVEMENTS, ACTION_INDEX
from envs.balrog.protocol import invalid_action_line
from envs.registry import get_task_class, make

CrafterTask = get_task_class("balrog/crafter")

ROOT = Path(__file__).resolve().parents[3]

# Found by looking at seed 1: a tree four steps east; the player walks up to it (one
# turn spent on an output that is no action), chops it, chops the next tree to the
# north-east, and builds a table with the two logs.
SEED = 1
SCRIPT = (
    "Move East",
    "please chop the tree",
    "Move East",
    "Move East",
    "Do",
    "Move North",
    "Move East",
    "Do",
    "Place Table",
)
# An episode in which crafter despawns creatures within its first 150 random steps.
LONG_SEED, LONG_STEPS = 0, 150


def play(task: CrafterTask, seed: int, actions) -> tuple[list, list]:
    """Observations (text, context) from the reset on, and the step results."""
    first = task.reset(seed)
    shown = [(first.text, first.context)]
    results = []
    for action in actions:
        result = task.step(action)
        results.append(result)
        shown.append((result.observation.text, result.observation.context))
    return shown, results


@pytest.fixture(scope="module")
def scripted():
    task = make("balrog/crafter")
    shown, results = play(task, SEED, SCRIPT)
    return task, shown, results


def test_it_registers_crafter_as_balrogs_default_task_with_its_17_actions_in_crafters_order():
    task = make("balrog/crafter")
    assert CrafterTask.balrog_name == "default"
    assert task.formats == ("text", "rgb") and task.max_steps == 2000 and task.blocking
    assert task.legal_actions()[:5] == ["Noop", "Move West", "Move East", "Move North", "Move South"]
    assert task.legal_actions()[-1] == "Make Iron Sword"
    assert [ACTION_INDEX[action] for action in task.legal_actions()] == list(range(len(crafter.constants.actions)))
    assert len(task.legal_actions()) == 17
    assert task.default_action == "Noop"
    assert list(task.baselines) == ["random"]
    with pytest.raises(NoExpert, match="no expert"):
        task.expert_action()


def test_its_instruction_prompt_lists_the_22_achievements_and_every_action_with_what_it_does():
    prompt = make("balrog/crafter").instruction_prompt()
    assert sorted(ACHIEVEMENTS) == sorted(crafter.constants.achievements)
    for number, title in ((1, "Collect Wood"), (16, "Wake Up"), (22, "Collect Diamond")):
        assert f"\n{number}. {title}\n" in prompt + "\n"
    assert "Make Iron Pickaxe: craft an iron pickaxe with a table and a furnace nearby" in prompt
    assert "Do: multi-purpose action: collect material, drink from a lake, hit a creature" in prompt
    # BALROG's layout: the actions, then the achievements, then the goal.
    assert prompt.index("Noop:") < prompt.index("1. Collect Wood") < prompt.index("Your goal is")


def test_it_describes_what_is_in_view_what_is_faced_and_the_status_after_a_reset(scripted):
    _, shown, _ = scripted
    text, context = shown[0]
    assert "- tree 4 steps to your east" in text
    assert "- grass 1 step to your west" in text
    assert text.endswith("In front of you: grass.")
    # Status and inventory are the short-term context, not the long-term text.
    assert context == "Status:\n- health: 9/9\n- food: 9/9\n- drink: 9/9\n- energy: 9/9\n\nYour inventory is empty."
    assert "health" not in text


def test_it_says_the_player_faces_the_tree_it_walked_up_to_and_shows_the_wood_it_chopped(scripted):
    _, shown, results = scripted
    facing_tree_text, _ = shown[4]
    assert "- tree 1 step to your east" in facing_tree_text
    assert facing_tree_text.endswith("In front of you: tree.")
    _, after_chop = shown[5]
    assert after_chop.endswith("Inventory:\n- wood: 1")
    assert results[4].reward == 1.0 and results[4].info["unlocked"] == ["collect_wood"]
    last_text, last_context = shown[-1]
    assert last_text.endswith("In front of you: table.") and "- table 1 step to your east" in last_text
    assert last_context.endswith("Your inventory is empty.")


def test_an_invalid_output_plays_noop_and_the_next_observation_says_so(scripted):
    _, shown, results = scripted
    invalid = results[1]
    assert not invalid.legal and invalid.executed_action == "Noop"
    assert invalid.observation.text.startswith("\n\n" + invalid_action_line("Noop"))
    assert all(result.legal for index, result in enumerate(results) if index != 1)


def test_progress_counts_each_achievement_once_out_of_22(scripted):
    task, _, results = scripted
    second_log = results[7]
    assert second_log.reward == 0.0 and second_log.info["unlocked"] == []
    metrics = task.episode_metrics()
    assert metrics["achievements"] == ["collect_wood", "place_table"]
    assert metrics["progress"] == pytest.approx(100 * 2 / 22)
    assert sum(result.reward for result in results) == pytest.approx(2.0)


def test_the_same_seed_replays_the_same_episode_on_the_same_instance(scripted):
    task, shown, results = scripted
    again, replayed = play(task, SEED, SCRIPT)
    assert again == shown
    assert [r.reward for r in replayed] == [r.reward for r in results]
    assert task.episode_metrics()["achievements"] == ["collect_wood", "place_table"]


def long_episode_digest(seed: int, steps: int) -> str:
    """Plays `steps` random actions (fewer if the player dies); the number of steps
    played and a digest of every observation and reward."""
    task = make("balrog/crafter")
    choose = random.Random(seed).choice
    digest = hashlib.sha256(task.reset(seed).text.encode())
    for played in range(1, steps + 1):
        result = task.step(choose(task.legal_actions()))
        digest.update(f"{result.observation.text}\n{result.observation.context}\n{result.reward}".encode())
        if result.done:
            break
    return f"{played} {digest.hexdigest()}"


def test_another_process_plays_the_same_long_episode_from_the_same_seed():
    # Long enough for crafter to despawn creatures (every 10 steps), which once
    # depended on memory addresses; another hash seed checks nothing hangs on str hashes.
    program = (
        "from tests.envs.balrog.test_crafter import long_episode_digest; "
        f"print(long_episode_digest({LONG_SEED}, {LONG_STEPS}))"
    )
    environment = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    # The other process plays while this one does (they take a few seconds each).
    other = subprocess.Popen(
        [sys.executable, "-c", program], cwd=ROOT, env=environment, stdout=subprocess.PIPE, text=True
    )
    here = long_episode_digest(LONG_SEED, LONG_STEPS)
    output, _ = other.communicate(timeout=60)
    assert other.returncode == 0
    assert output.strip() == here


def test_different_seeds_make_different_worlds(scripted):
    _, shown, _ = scripted
    other = make("balrog/crafter")
    assert other.reset(3).text != shown[0][0]
    assert other.initial_state_key() != scripted[0].initial_state_key()


def test_the_max_steps_setting_cuts_the_episode_and_rgb_shows_crafters_frame_with_the_text():
    task = make("balrog/crafter", format="rgb", max_steps=100)
    assert CrafterTask.settings["max_steps"][0] == 2000 and "silent_invalid_actions" in CrafterTask.settings
    first = task.reset(SEED)
    assert isinstance(first.image, Image.Image) and first.image.size == (256, 256)
    assert "tree 4 steps to your east" in first.text and first.context.startswith("Status:")
    results = [task.step("Noop") for _ in range(100)]
    assert not any(result.done for result in results[:-1])
    assert results[-1].truncated and results[-1].end_reason == "step limit"
    assert task.done


def test_it_ends_with_died_when_the_player_starves():
    task = make("balrog/crafter")
    task.reset(SEED)
    # Starting a real episode on its last health point with nothing to eat or drink:
    # crafter takes health away after some steps without food and water.
    inventory = task._env._player.inventory
    inventory.update(health=1, food=0, drink=0)
    results = []
    while not results or not results[-1].done:
        results.append(task.step("Noop"))
        assert len(results) < 100
    assert results[-1].terminated and results[-1].end_reason == "died"
    assert results[-1].observation.text.startswith("You have died.")
    assert results[-1].observation.context.startswith("Status:\n- health: 0/9\n- food: 0/9\n- drink: 0/9")
