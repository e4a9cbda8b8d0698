"""The game protocol (§3.2): the > prefix, the first line, the turn limit."""

import pytest

from tests.envs.adventure.arena_engine import arena_task
from envs.adventure.engine import ABORT_FORMAT, TURN_LIMIT, Game
from envs.adventure.sample import sample_world


def task(experiment="basic-easy", seed=0):
    t = arena_task(experiment)
    t.reset(seed)
    return t


def test_a_reply_without_the_prompt_symbol_aborts():
    t = task()
    result = t.step("take apple")
    assert result.terminated and not result.truncated
    assert result.end_reason == "aborted: reply did not start with >" == ABORT_FORMAT
    assert not result.legal and result.reward == 0.0
    assert "did not start with >" in result.observation.text
    metrics = t.episode_metrics()
    assert metrics["outcome"] == "aborted" and metrics["played"] is False and metrics["quality"] == 0.0
    assert t.legal_actions() == []
    with pytest.raises(RuntimeError):
        t.step("> look")


def test_an_empty_reply_aborts():
    t = task()
    assert t.step("").end_reason == ABORT_FORMAT


def test_text_before_the_symbol_aborts():
    t = task()
    assert t.step("I will look around.\n> look").end_reason == ABORT_FORMAT


def test_leading_whitespace_is_ignored_and_only_the_first_line_counts():
    t = task()
    result = t.step("\n  > look\n> done\nthanks")
    assert not result.done and result.legal
    assert result.executed_action == "> look"
    assert result.observation.text.startswith("You are in the")
    assert t.turns[-1]["command"] == "look"


def test_a_failed_command_is_not_legal_but_does_not_end_the_game():
    t = task()
    result = t.step("> dance")
    assert not result.done and not result.legal
    assert result.info["turn"]["failure"] == "unknown_verb"


def test_the_turn_limit_aborts():
    g = Game(sample_world())
    for _ in range(TURN_LIMIT - 1):
        g.reply("> look")
        assert not g.finished
    last = g.reply("> look")
    assert g.finished and g.outcome == "aborted"
    assert g.end_reason == f"aborted: turn limit of {TURN_LIMIT} reached"
    assert last.feedback.endswith(f"The game is over: the limit of {TURN_LIMIT} turns has been reached.")


def test_the_turn_limit_is_truncation_for_the_runner():
    t = task()
    results = [t.step("> look") for _ in range(TURN_LIMIT)]
    assert not any(r.done for r in results[:-1])
    assert results[-1].truncated and not results[-1].terminated
    assert t.episode_metrics()["played"] is False


def test_done_on_the_last_turn_still_counts():
    g = Game(sample_world(goals=[("on", "apple", "counter")]))
    for _ in range(TURN_LIMIT - 1):
        g.reply("> look")
    g.reply("> done")
    assert g.outcome == "success"


def test_done_ends_the_episode():
    t = task()
    result = t.step("> done")
    assert result.terminated and result.legal
    assert result.end_reason == "lost: 0 of 3 goals achieved"
    assert result.info["metrics"]["outcome"] == "lost"


def test_step_before_reset_is_an_error():
    with pytest.raises(RuntimeError):
        arena_task("basic-easy").step("> look")
