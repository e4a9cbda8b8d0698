"""Crafter's frame as the arena draws it (envs.balrog.crafter_frame) is crafter's own,
byte for byte: two copies of the same episode, one drawn by the arena and one by crafter
1.8.3's LocalView and render, through a day, a night (whose noise takes the world's
random numbers: the games would part if the draws differed) and sleep."""

import crafter
import numpy as np
import pytest
from crafter import engine

from envs.balrog import crafter_frame
from envs.balrog.crafter_env import ACTION_INDEX, started_env


def _drawn_by_crafter(env):
    env._local_view = engine.LocalView(env._world, env._textures, env._local_view._grid)
    return lambda: crafter.Env.render(env)


@pytest.mark.parametrize("seed, sleeper", [(1, False), (8, False), (3, True)])
def test_every_frame_is_crafters_own(seed, sleeper):
    ours, theirs = started_env(seed), started_env(seed)
    assert type(ours._local_view) is crafter_frame.LocalView
    draw_theirs = _drawn_by_crafter(theirs)
    actions = np.random.default_rng(seed)
    seen = {"night": 0, "asleep": 0, "creatures": 0}
    for _ in range(330):
        action = ACTION_INDEX["Sleep"] if sleeper else int(actions.integers(len(ACTION_INDEX)))
        for env in (ours, theirs):
            env.step(action)
        frame = ours.render()
        assert frame.dtype == np.uint8 and frame.shape == (256, 256, 3)
        assert np.array_equal(frame, draw_theirs())
        seen["night"] += ours._world.daylight < 0.5
        seen["asleep"] += bool(ours._player.sleeping)
        seen["creatures"] += len(ours._world.nearby(ours._player.pos, 4)[1]) > 1
        if ours._player.health <= 0:
            break
    assert np.array_equal(ours._world._mat_map, theirs._world._mat_map)
    assert ours._world.random.get_state()[2] == theirs._world.random.get_state()[2]
    assert seen["night"] > 10, seen
    assert seen["creatures"] > 10, seen
    if sleeper:
        assert seen["asleep"] > 10, seen
