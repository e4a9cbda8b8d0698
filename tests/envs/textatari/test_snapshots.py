"""A TextAtari episode saved in the middle and restored on a fresh task plays on exactly
as the saved one does (console, sticky actions, score, narration, expert), and the
screen kept for the viewer is the console's own picture."""

import io
import random

import numpy as np
import pytest
from PIL import Image

from envs.core import ExpertPolicy
from envs.registry import make


def random_play(task, rng: random.Random, steps: int) -> list[tuple]:
    played = []
    for _ in range(steps):
        if task.done:
            break
        result = task.step(rng.choice(task.legal_actions()))
        played.append((result.executed_action, result.reward, result.observation.text, result.done))
    return played


@pytest.mark.parametrize("game", ["pong", "mspacman", "seaquest", "freeway"])
def test_a_restored_snapshot_plays_on_as_the_saved_episode(game):
    saved = make(f"textatari/{game}")
    saved.reset(3)
    rng = random.Random(game)
    random_play(saved, rng, 30)
    snapshot, choices = saved.snapshot(), rng.getstate()
    going_on = random_play(saved, rng, 120)

    restored = make(f"textatari/{game}")
    restored.reset(3)
    restored.restore(snapshot)
    rng.setstate(choices)
    assert restored.steps_taken == 30
    assert random_play(restored, rng, 120) == going_on
    assert restored.score == saved.score
    assert restored.episode_metrics() == saved.episode_metrics()


def test_the_restored_observation_is_the_one_shown_when_the_snapshot_was_taken():
    task = make("textatari/pong")
    task.reset(1)
    for _ in range(10):
        shown = task.step("NOOP").observation
    snapshot = task.snapshot()
    task.step("NOOP")
    fresh = make("textatari/pong")
    fresh.reset(1)
    assert fresh.restore(snapshot).text == shown.text


def test_the_expert_restored_from_a_snapshot_chooses_as_the_uninterrupted_one():
    saved = make("textatari/pong")
    saved.reset(2)
    expert = ExpertPolicy(2)
    for _ in range(7):  # mid-way between two of the expert's plans
        saved.step(expert.act(saved))
    snapshot = saved.snapshot()
    going_on = [saved.step(expert.act(saved)).executed_action for _ in range(10)]

    restored = make("textatari/pong")
    restored.reset(2)
    restored.restore(snapshot)
    assert [restored.step(expert.act(restored)).executed_action for _ in range(10)] == going_on


def test_a_task_without_snapshots_says_so():
    task = make("lmact/tictactoe")
    task.reset(0)
    assert not task.supports_snapshots
    with pytest.raises(RuntimeError):
        task.snapshot()


@pytest.mark.parametrize("game", ["pong", "mspacman"])
def test_the_viewer_screen_is_the_consoles_picture(game):
    task = make(f"textatari/{game}")
    task.reset(0)
    for _ in range(40):
        task.step("NOOP")
    picture = np.asarray(Image.open(io.BytesIO(task.viewer_png())).convert("RGB"))
    assert picture.shape == (210, 160, 3)
    assert (picture == task._emulator._ale.getScreenRGB()).all()


def test_the_same_screen_gives_the_same_png():
    task = make("textatari/breakout")
    task.reset(0)
    first = task.viewer_png()
    task.step("NOOP")  # the ball is not served: nothing on the screen moves
    assert task.viewer_png() == first
