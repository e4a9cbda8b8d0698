"""balrog/nethack (BALROG App. F): the seedable NetHackChallenge, its observation,
actions, "--More--" continued, the no-progress abort and BALROG's progression."""

import random

import pytest

from envs.core import NoExpert
from PIL import Image

from envs.balrog.nethack import progression, progression_table
from envs.balrog.protocol import invalid_action_line
from envs.registry import get_task_class, make

NetHackTask = get_task_class("balrog/nethack")


@pytest.fixture()
def task():
    task = make("balrog/nethack")
    yield task
    task.close()


def test_it_registers_balrogs_nethack_challenge_with_esc_as_default_and_a_100000_step_limit(task):
    assert NetHackTask.balrog_name == "NetHackChallenge-v0"
    assert task.formats == ("text", "rgb") and task.blocking
    assert task.max_steps == 100_000 and NetHackTask.settings["max_steps"][0] == 100_000
    assert task.default_action == "esc"
    assert list(task.baselines) == ["random"]
    with pytest.raises(NoExpert, match="no expert"):
        task.expert_action()


def test_the_prompt_lists_balrogs_named_actions_and_single_letters_answer_questions(task):
    prompt = task.instruction_prompt()
    assert "\nfar northeast: go far northeast,\n" in prompt
    assert "\nesc: leave a menu or a message,\n" in prompt
    assert "answer with the single character of the item" in prompt
    legal = task.legal_actions()
    assert legal[:4] == ["north", "east", "south", "west"]
    assert {"pray", "sit", "9", "a", "Z"} <= set(legal)
    assert not {"travel", "minus", "apos", "00"} & set(legal)
    assert len(legal) == len(task.action_descriptions) - 6 + 22 + 52


def test_a_reset_shows_the_welcome_message_the_surroundings_the_map_and_the_hero_as_short_term_context(task):
    first = task.reset(3)
    # The seed fixes the character, which NetHackChallenge draws at random.
    assert first.text.startswith("message:\nHello Agent, welcome to NetHack!  You are a chaotic male orcish Ranger.")
    headings = [first.text.find(f"\n\n{title}:\n") for title in ("language observation", "cursor", "map")]
    assert 0 < headings[0] < headings[1] < headings[2]
    assert "\nYourself a ranger\n" in first.text and "Dlvl:1" in first.text
    # BALROG's text mode: the inventory alone, no statistics
    assert first.context.startswith("inventory:\na: ") and "Strength:" not in first.context
    assert "HP:" not in first.text.split("map:")[0]  # statistics stay out of the history
    assert task.initial_state_key() == "nethack seed 3"


def test_the_same_seed_replays_the_same_game_and_another_seed_another(task):
    def play(seed):
        rng = random.Random(seed)
        seen = [task.reset(seed).text]
        for _ in range(20):
            seen.append(task.step(rng.choice(task.legal_actions())).observation.text)
        return seen

    assert play(4) == play(4)
    assert play(5)[0] != play(4)[0]


def test_a_question_is_answered_with_a_letter_and_every_more_is_continued_in_the_same_step(task):
    task.reset(0)
    asked = task.step("pray")
    assert "Are you sure you want to pray? [yn]" in asked.observation.text
    answered = task.step("y")
    assert answered.legal and answered.executed_action == "y"
    # NetHack showed three messages each ending in --More--; the agent reads them all.
    message = answered.observation.text.split("\n\nlanguage observation:")[0]
    assert "You begin praying to The Lady." in message and "A black glow surrounds you." in message
    assert "--More--" not in message


def test_an_invalid_output_plays_esc_and_says_so(task):
    task.reset(0)
    result = task.step("go down the stairs please")
    assert not result.legal and result.executed_action == "esc"
    assert result.observation.text.startswith("\n\n" + invalid_action_line("esc"))


def test_a_game_whose_turn_counter_stands_still_is_aborted_as_in_the_challenge(task):
    task.reset(0)
    # balrog-nle counts a frozen turn once a step: 151 steps (nle 1.3.0 alone: 75).
    results = [task.step("esc") for _ in range(151)]
    assert not any(result.done for result in results[:-1])
    assert results[-1].terminated and results[-1].end_reason == "no progress"
    assert task.episode_metrics() == {"progress": 0.0, "max_dungeon_level": 1, "max_experience_level": 1}


def test_progression_is_the_largest_win_probability_over_the_levels_reached():
    table = progression_table()
    assert table["Dlvl:1"] == table["Xp:1"] == 0.0
    # BALROG's best run reached Dlvl 3 and Xp 4: the experience level counts more.
    assert progression({1, 2, 3}, {1, 2, 3, 4}) == table["Xp:4"] > table["Dlvl:3"]
    assert progression({1, 5}, {1, 2}) == table["Dlvl:5"] > table["Xp:2"]
    assert progression({1}, {1}) == 0.0
    assert progression({1, 999}, {1}) == 0.0  # beyond the table counts nothing


def test_progress_reports_the_progression_times_100_for_the_levels_the_hero_reached(task):
    task.reset(0)
    task._dungeon_levels |= {2, 3}
    task._experience_levels |= {4}
    assert task.progress_percent() == pytest.approx(100 * progression_table()["Xp:4"])
    assert task.episode_metrics()["max_dungeon_level"] == 3


def test_the_max_steps_setting_cuts_a_run_and_rgb_draws_the_map_with_tiles():
    task = make("balrog/nethack", format="rgb", max_steps=100)
    first = task.reset(2)
    assert isinstance(first.image, Image.Image) and first.image.size == (79 * 16, 21 * 16)
    assert "map:" not in first.text and first.context.startswith("statistics:")
    results = []
    while not task.done:
        results.append(task.step("search"))
    assert len(results) == 100 and results[-1].truncated and results[-1].end_reason == "step limit"
    task.close()
