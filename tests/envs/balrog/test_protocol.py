"""The protocol every BALROG environment shares (BALROG §3)."""

import pytest

from envs.balrog.protocol import invalid_action_line
from tests.envs.balrog.counting import CountingTask


def test_the_instruction_prompt_gives_the_rules_then_every_action_with_its_description():
    task = CountingTask()
    task.reset(0)
    prompt = task.instruction_prompt()
    assert prompt.startswith("Reach 3. Below are the actions")
    # BALROG's layout: one action a line, separated by commas, closed by a full stop.
    assert "\n\nup: add one,\nstay: do nothing.\n\n" in prompt


def test_an_invalid_output_executes_the_default_action_and_the_next_observation_says_so():
    task = CountingTask()
    task.reset(0)
    result = task.step("go up please")
    assert (result.legal, result.executed_action) == (False, "stay")
    assert result.observation.text.startswith("\n\n" + invalid_action_line("stay"))
    assert result.observation.text.endswith("You are at 0.")


def test_the_feedback_can_be_switched_off_as_in_balrog():
    task = CountingTask()
    task.configure(silent_invalid_actions=True)
    task.reset(0)
    result = task.step("jump")
    assert not result.legal
    assert result.observation.text == "You are at 0."


def test_a_valid_output_is_executed_as_is_and_progress_is_reported_per_episode():
    task = CountingTask()
    task.reset(0)
    task.step("up")
    result = task.step("up")
    assert (result.legal, result.executed_action) == (True, "up")
    assert task.episode_metrics() == {"progress": pytest.approx(200 / 3)}


def test_an_output_must_be_exactly_an_action_as_balrog_checks_it():
    # Trimming is the reading's business (arena.strategies.answers): BALROG's naive agent
    # turns "1. up" into " up", which its environments refuse.
    task = CountingTask()
    task.reset(0)
    result = task.step(" up")
    assert (result.legal, result.executed_action) == (False, "stay")


def test_an_unknown_setting_is_refused():
    with pytest.raises(ValueError):
        CountingTask().configure(silent_invalid_actions="sometimes")
