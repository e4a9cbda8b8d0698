"""BabyAI's step does its work once: the description and the world picture's highlight
are read from the view minigrid's step already encoded, and minigrid's bot follows an
episode only from the first time the expert is asked, advising exactly as a bot that had
followed it from the reset (envs.balrog.babyai)."""

import random

import numpy as np
import pytest

from envs.balrog import babyai as babyai_module
from envs.balrog.babyai import WORLD_TILE_PIXELS, full_render, visible_in_view
from envs.balrog.babyai_text import describe, describe_encoded_view
from envs.core import RandomLegalPolicy
from envs.registry import make

TASKS = (
    "balrog/babyai-goto",
    "balrog/babyai-pickup",
    "balrog/babyai-open",
    "balrog/babyai-putnext",
    "balrog/babyai-pick-up-seq-go-to",
)


def following_from_reset(task_id: str):
    """The task with the bot started at every reset and told every executed action, as
    the task did before it started the bot late."""
    task = make(task_id, None)
    start = task._start

    def start_with_bot(seed):
        observation = start(seed)
        task._start_bot()
        return observation

    task._start = start_with_bot
    return task


def expert_or_error(task) -> str:
    try:
        return task.expert_action()
    except RuntimeError as error:
        return f"error: {error}"


def mixed_game(task, seed: int, expert_from: int, steps: int = 60) -> list[str]:
    """Random actions for `expert_from` steps, then the expert's (a random action where
    it cannot advise): every action played and every piece of advice."""
    policy = RandomLegalPolicy(seed)
    task.reset(seed)
    played = []
    while not task.done and len(played) < steps:
        if len(played) >= expert_from:
            advice = expert_or_error(task)
            played.append(advice)
            action = advice if not advice.startswith("error") else policy.act(task)
        else:
            action = policy.act(task)
        task.step(action)
        played.append(action)
    return played


def test_the_kinds_are_balrogs_five():
    from envs.registry import get_task_class

    assert sorted(get_task_class(task_id).kind for task_id in TASKS) == sorted(babyai_module._LAYOUTS)


@pytest.mark.parametrize("task_id", TASKS)
def test_the_description_read_from_the_encoded_view_is_the_views_at_every_state(task_id):
    rng = random.Random(task_id)
    states = 0
    for seed in range(12):
        for expert in (False, True):
            task, policy = make(task_id, None), RandomLegalPolicy(seed)
            observation = task.reset(seed)
            while True:
                level = task._level
                assert observation.text == "\n".join(describe(level))
                assert describe_encoded_view(task._view, level.carrying) == describe(level)
                _, vis_mask = level.gen_obs_grid()
                assert np.array_equal(visible_in_view(task._view), vis_mask)
                states += 1
                if task.done:
                    break
                action = policy.act(task)
                if expert and rng.random() < 0.8:
                    action = expert_or_error(task)
                    if action.startswith("error"):
                        action = policy.act(task)
                observation = task.step(action).observation
    assert states > 500


@pytest.mark.parametrize("task_id", TASKS)
def test_the_world_picture_highlights_the_view_as_minigrid_does(task_id):
    task, policy = make(task_id, None), RandomLegalPolicy(3)
    task.reset(3)
    while not task.done:
        expected = task._level.get_full_render(highlight=True, tile_size=WORLD_TILE_PIXELS)
        assert np.array_equal(np.asarray(task.world_picture()), expected)
        assert np.array_equal(full_render(task._level, WORLD_TILE_PIXELS), expected)
        task.step(policy.act(task))


@pytest.mark.parametrize("task_id", TASKS)
@pytest.mark.parametrize("expert_from", [0, 1, 7, 25])
def test_a_bot_started_late_advises_as_one_that_followed_from_the_reset(task_id, expert_from):
    for seed in range(6):
        late = mixed_game(make(task_id, None), seed, expert_from)
        assert late == mixed_game(following_from_reset(task_id), seed, expert_from)


@pytest.mark.parametrize("task_id", TASKS)
def test_a_resumed_expert_episode_plays_on_as_the_uninterrupted_one(task_id):
    # The runner resumes a BabyAI episode (no snapshots) by stepping a fresh task through
    # the stored actions, then asks the expert again.
    for seed in range(5):
        whole = make(task_id, None)
        whole.reset(seed)
        actions = []
        while not whole.done:
            actions.append(whole.expert_action())
            whole.step(actions[-1])
        for stopped_at in sorted({1, len(actions) // 2, len(actions) - 1}):
            resumed = make(task_id, None)
            resumed.reset(seed)
            for action in actions[:stopped_at]:
                resumed.step(action)
            rest = []
            while not resumed.done:
                rest.append(resumed.expert_action())
                resumed.step(rest[-1])
            assert actions[:stopped_at] + rest == actions
            assert resumed.progress_percent() == 100.0


def test_a_bot_that_gave_up_during_the_replay_is_replaced_as_before():
    # Opening a box (it vanishes in minigrid) makes the bot give up; the expert then plans
    # afresh from the current state, with the bot started late as from the reset.
    found = 0
    for seed in range(40):
        late, early = make("balrog/babyai-putnext", None), following_from_reset("balrog/babyai-putnext")
        late.reset(seed)
        early.reset(seed)
        rng = random.Random(seed)
        for _ in range(40):
            action = rng.choice(["toggle", "go forward", "turn left", "toggle", "pick up", "drop"])
            for task in (late, early):
                task.step(action)
            if late.done:
                break
        if late.done:
            continue
        gave_up = early._bot is None
        assert expert_or_error(late) == expert_or_error(early)
        found += gave_up
    assert found, "no game made the bot give up"


def test_a_random_episode_starts_no_bot(monkeypatch):
    started = []
    original = babyai_module.BabyAIBot

    def counting(level):
        started.append(level)
        return original(level)

    monkeypatch.setattr(babyai_module, "BabyAIBot", counting)
    for task_id in TASKS:
        task, policy = make(task_id, None), RandomLegalPolicy(0)
        task.reset(0)
        while not task.done:
            task.step(policy.act(task))
    assert started == []
    task = make(TASKS[0], None)
    task.reset(0)
    task.expert_action()
    assert len(started) == 1


def test_a_replay_that_does_not_give_back_the_episodes_state_leaves_the_episode_alone(monkeypatch):
    task = make("balrog/babyai-goto", None)
    task.reset(0)
    for action in ("turn left", "go forward"):
        task.step(action)
    level = task._level
    task._taken.append(task._taken[-1])  # an action the level never played
    with pytest.raises(RuntimeError, match="did not give back its state"):
        task.expert_action()
    assert task._level is level and task._bot is None and not task._bot_follows
    # Asked again, it does not replay the whole episode once more to fail the same way.
    replayed = []
    level_class = babyai_module.MixedTrainLocalLevel
    monkeypatch.setattr(babyai_module, "MixedTrainLocalLevel", lambda kind: replayed.append(kind) or level_class(kind))
    with pytest.raises(RuntimeError, match="did not give back its state"):
        task.expert_action()
    assert replayed == [] and task._level is level
    # A new episode starts with a clean slate.
    task.reset(1)
    assert task.expert_action() in ("turn left", "turn right", "go forward")
