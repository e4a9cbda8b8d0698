"""Demonstration pools and sampling (envs/demos.py, LMAct §2.4) on tic-tac-toe and grid world."""

import pytest

from envs import demos
from envs.registry import make


@pytest.fixture(scope="module")
def grid_pool():
    return demos.build_pool("lmact/gridworld", "coords", 60)


def test_it_builds_pools_from_reserved_seeds_with_distinct_initial_states(grid_pool):
    assert len(grid_pool) == 60
    seeds = [demo.seed for demo in grid_pool]
    assert all(seed >= demos.DEMONSTRATION_SEED_BASE for seed in seeds)
    assert seeds == sorted(seeds)
    keys = [demo.initial_state_key for demo in grid_pool]
    assert len(set(keys)) == len(keys)


def test_it_records_what_the_expert_saw_and_did(grid_pool):
    for demo in grid_pool[:20]:
        task = make("lmact/gridworld", "coords")
        first = task.reset(demo.seed)
        assert task.initial_state_key() == demo.initial_state_key
        assert demo.steps[0][0].text == first.text
        for observation, action in demo.steps:
            assert observation.text == task._observe().text
            assert action == task.expert_action()
            result = task.step(action)
        assert result.done and result.end_reason == "reached the target"
        assert demo.total_reward == 1.0 and len(demo.steps) <= 18


def test_it_builds_the_same_pool_every_time(grid_pool):
    assert demos.build_pool("lmact/gridworld", "coords", 60) == grid_pool
    again = demos.build_pool("lmact/tictactoe", "rgb", 4)
    assert again == demos.build_pool("lmact/tictactoe", "rgb", 4)
    observation, action = again[0].steps[0]
    assert observation.text is None and observation.image.mode == "RGB" and len(action) == 2


def test_it_never_loses_a_tictactoe_demonstration():
    pool = demos.build_pool("lmact/tictactoe", "ascii", 150)
    assert len({demo.initial_state_key for demo in pool}) == 150
    assert all(demo.total_reward >= 0 for demo in pool)
    assert sum(demo.total_reward == 1 for demo in pool) > 100


def test_it_caches_a_pool_in_process():
    first = demos.demonstration_pool("lmact/gridworld", "ascii", 12)
    assert demos.demonstration_pool("lmact/gridworld", "ascii", 12) is first
    assert len(first) == 12


def test_it_samples_reproducibly_per_episode_seed(grid_pool):
    first = demos.sample_demonstrations(grid_pool, 10, episode_seed=7, exclude_key="none")
    assert first == demos.sample_demonstrations(grid_pool, 10, episode_seed=7, exclude_key="none")
    others = [demos.sample_demonstrations(grid_pool, 10, episode_seed=s, exclude_key="none") for s in range(8, 12)]
    assert any([d.seed for d in other] != [d.seed for d in first] for other in others)


def test_it_samples_without_replacement(grid_pool):
    for episode_seed in range(20):
        drawn = demos.sample_demonstrations(grid_pool, 30, episode_seed=episode_seed, exclude_key="none")
        assert len({demo.seed for demo in drawn}) == 30


def test_it_never_gives_a_demonstration_sharing_the_evaluation_episodes_initial_state(grid_pool):
    # Find evaluation episodes (small seeds) that start where some demonstration starts.
    by_key = {demo.initial_state_key: demo for demo in grid_pool}
    clashes = []
    for seed in range(20_000):
        task = make("lmact/gridworld")
        task.reset(seed)
        if task.initial_state_key() in by_key:
            clashes.append(task.initial_state_key())
        if len(clashes) == 3:
            break
    assert clashes, "expected some evaluation seed to start like a demonstration"
    for key in clashes:
        for episode_seed in range(10):
            drawn = demos.sample_demonstrations(grid_pool, len(grid_pool) - 1, episode_seed, exclude_key=key)
            assert key not in {demo.initial_state_key for demo in drawn}


def test_it_refuses_to_sample_more_than_is_available(grid_pool):
    excluded = grid_pool[0].initial_state_key
    assert len(demos.sample_demonstrations(grid_pool, len(grid_pool) - 1, 0, exclude_key=excluded)) == len(grid_pool) - 1
    with pytest.raises(ValueError, match="demonstrations"):
        demos.sample_demonstrations(grid_pool, len(grid_pool), 0, exclude_key=excluded)
    assert demos.sample_demonstrations(grid_pool, 0, 0, exclude_key=excluded) == []


def test_a_draw_takes_what_the_pool_has_and_says_when_it_was_capped(grid_pool, monkeypatch):
    monkeypatch.setattr(demos, "demonstration_pool", lambda task_id, format: grid_pool)
    excluded = grid_pool[0].initial_state_key
    enough = demos.draw_demonstrations("lmact/gridworld", "coords", 10, 7, excluded)
    assert enough.demonstrations == demos.sample_demonstrations(grid_pool, 10, 7, exclude_key=excluded)
    assert enough.capped is None
    short = demos.draw_demonstrations("lmact/gridworld", "coords", 100, 7, excluded)
    assert len(short.demonstrations) == len(grid_pool) - 1
    assert excluded not in {demo.initial_state_key for demo in short.demonstrations}
    assert short.capped == {"requested": 100, "used": len(grid_pool) - 1, "pool_size": len(grid_pool)}


def test_a_draw_of_no_demonstrations_never_builds_the_pool(monkeypatch):
    def refuse(*args):
        raise AssertionError("the pool was built")

    monkeypatch.setattr(demos, "demonstration_pool", refuse)
    assert demos.draw_demonstrations("lmact/gridworld", "coords", 0, 7, "none") == demos.DemonstrationDraw([])
