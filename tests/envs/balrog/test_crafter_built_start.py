"""Crafter's start built elsewhere (CrafterTask.start_builder, reset_built): the Env
generated, reset and one noop in, pickled and loaded back, plays the episode `reset`
plays, state for state: every observation, reward, end and picture, day and night (the
night's noise comes from the world's random generator, whose state travels with it)."""

import pickle

import pytest

from envs.balrog.crafter_env import started_env_pickled
from envs.core import RandomLegalPolicy
from envs.registry import make


def _episode(seed: int, actions=None, built: bytes | None = None) -> tuple[list, int]:
    task = make("balrog/crafter", "text", max_steps=500)
    observation = task.reset(seed) if built is None else task.reset_built(seed, built)
    policy = RandomLegalPolicy(seed)
    seen = [(observation.text, observation.context, task.world_picture().tobytes(), task.viewer_png())]
    nights = 0
    while not task.done:
        action = policy.act(task) if actions is None else actions[task.steps_taken % len(actions)]
        result = task.step(action)
        seen.append(
            (result.observation.text, result.observation.context, result.reward, result.done, result.end_reason,
             result.info, task.viewer_png(), task._env._world.random.get_state()[2])
        )
        nights += task._env._world.daylight < 0.5
    seen.append(task.episode_metrics())
    task.close()
    return seen, nights


@pytest.mark.parametrize("seed, actions", [(1, None), (3, ["Sleep"])])
def test_a_start_built_elsewhere_plays_the_episode_reset_plays(seed, actions):
    reset, nights = _episode(seed, actions)
    assert nights > 10, "the episode lives through part of a night"
    built, _ = _episode(seed, actions, built=started_env_pickled(seed))
    assert len(built) == len(reset)
    for step, (mine, theirs) in enumerate(zip(built, reset)):
        assert mine == theirs, f"step {step} differs"


def test_the_start_builder_names_a_picklable_function_of_the_seed():
    task = make("balrog/crafter", "text")
    function, args = task.start_builder(7)
    function_again = pickle.loads(pickle.dumps(function))
    assert function_again is started_env_pickled and args == (7,)


def test_a_world_of_another_seed_is_refused_and_the_task_is_left_unstarted():
    task = make("balrog/crafter", "text")
    with pytest.raises(ValueError, match="seed 2 handed to the episode of seed 5"):
        task.reset_built(5, started_env_pickled(2))
    assert task._env is None and task._built is None
    with pytest.raises(RuntimeError, match="call reset"):
        task.step("Noop")


def test_tasks_that_build_their_start_in_reset_have_no_builder():
    task = make("balrog/babyai-goto", "text")
    assert task.start_builder(0) is None
    with pytest.raises(TypeError, match="builds its start in `reset`"):
        task.reset_built(0, b"")
