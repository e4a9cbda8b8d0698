"""Crafter's step no longer draws a frame nobody looks at (SeededCrafterEnv._obs): it
only takes the random numbers that drawing took at night. The episode is the one the
drawing gave: every observation, reward, end and picture, day and night, for seeds whose
random play lives through a night (crafter's night: below half light, about steps 150
to 270) and one that sleeps through it."""

import crafter
import numpy as np
import pytest

from envs.balrog.crafter_env import SeededCrafterEnv
from envs.core import RandomLegalPolicy
from envs.registry import make


def _episode(seed: int, actions=None) -> list:
    task = make("balrog/crafter", "text", max_steps=500)
    observation = task.reset(seed)
    policy = RandomLegalPolicy(seed)
    seen = [(observation.text, observation.context, task.world_picture().tobytes())]
    nights = 0
    while not task.done:
        action = policy.act(task) if actions is None else actions[task.steps_taken % len(actions)]
        result = task.step(action)
        seen.append(
            (result.observation.text, result.observation.context, result.reward, result.done,
             result.end_reason, task.world_picture().tobytes(), task._env._world.random.get_state()[2])
        )
        nights += task._env._world.daylight < 0.5
    return seen, nights


@pytest.mark.parametrize("seed, actions", [(1, None), (4, None), (6, None), (3, ["Sleep"])])
def test_the_episode_is_the_one_crafters_own_drawing_gave(monkeypatch, seed, actions):
    here, nights = _episode(seed, actions)
    assert nights > 10, "the episode lives through part of a night"
    with monkeypatch.context() as patched:
        patched.setattr(SeededCrafterEnv, "_obs", crafter.Env._obs)  # crafter draws in its step again
        drawn, _ = _episode(seed, actions)
    assert len(here) == len(drawn)
    for step, (mine, theirs) in enumerate(zip(here, drawn)):
        assert mine == theirs, f"step {step} differs"


def test_crafters_step_gives_no_frame_and_its_render_still_draws():
    env = SeededCrafterEnv(area=(64, 64), view=(9, 9), size=(256, 256), length=None, seed=0)
    assert env.reset() is None
    frame, _reward, _done, _info = env.step(0)
    assert frame is None
    picture = env.render()
    assert picture.shape == (256, 256, 3) and len(np.unique(picture.reshape(-1, 3), axis=0)) > 3
