"""lmact/phoenix on the real ALE: RGB observations, action names, illegal substitution,
rewards, the 100-step limit, determinism (also around the expert's lookahead) and the
lookahead expert."""

import hashlib
import random

import pytest
from PIL import Image

from envs.registry import make

NAMES = ["NOOP", "FIRE", "RIGHT", "LEFT", "DOWN", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE"]


@pytest.fixture
def task():
    task = make("lmact/phoenix")
    yield task
    task.close()


def frame_hash(observation) -> str:
    return hashlib.sha256(observation.image.tobytes()).hexdigest()


def play(seed, actions, ask_expert=False):
    task = make("lmact/phoenix")
    frames = [frame_hash(task.reset(seed))]
    results = []
    for action in actions:
        if ask_expert:
            task.expert_action()
        results.append(task.step(action))
        frames.append(frame_hash(results[-1].observation))
    task.close()
    return frames, results


def test_observations_are_full_resolution_rgb_frames(task):
    observation = task.reset(0)
    assert task.format == "rgb" and observation.text is None
    assert isinstance(observation.image, Image.Image)
    assert observation.image.mode == "RGB" and observation.image.size == (160, 210)
    result = task.step("FIRE")
    assert result.observation.image.size == (160, 210)


def test_the_legal_actions_are_the_minimal_action_set_by_name(task):
    task.reset(0)
    assert task.legal_actions() == NAMES


def test_action_names_are_read_case_insensitively(task):
    task.reset(0)
    result = task.step("  fire\n")
    assert result.legal and result.executed_action == "FIRE"
    assert task.step("LeftFire").executed_action == "LEFTFIRE"


@pytest.mark.parametrize("text", ["", "SHOOT", "UPFIRE", "UP", "FIRE FIRE", "1"])
def test_anything_else_is_illegal_and_replaced_by_a_seeded_random_action(text):
    _, results = play(4, [text] * 5)
    assert all(not r.legal and r.executed_action in NAMES for r in results)
    _, again = play(4, [text] * 5)
    assert [r.executed_action for r in again] == [r.executed_action for r in results]


def test_rewards_accumulate_and_the_episode_is_cut_after_100_steps(task):
    task.reset(2)
    rng = random.Random(0)
    results = [task.step(rng.choice(NAMES)) for _ in range(100)]
    assert all(r.reward >= 0 and r.reward % 10 == 0 for r in results)
    assert sum(r.reward for r in results) > 0
    assert not any(r.done for r in results[:-1])
    last = results[-1]
    assert last.truncated and not last.terminated and last.end_reason == "step limit"
    assert last.info["lives"] >= 1
    with pytest.raises(RuntimeError):
        task.step("NOOP")


def test_same_seed_and_actions_give_the_same_episode_even_when_the_expert_looks_ahead():
    rng = random.Random(1)
    actions = [rng.choice(NAMES) for _ in range(40)]
    plain, plain_results = play(9, actions)
    again, again_results = play(9, actions)
    consulted, consulted_results = play(9, actions, ask_expert=True)
    assert plain == again == consulted
    rewards = [r.reward for r in plain_results]
    assert rewards == [r.reward for r in again_results] == [r.reward for r in consulted_results]


def test_sticky_actions_make_the_seed_matter_beyond_the_no_ops():
    # Two seeds that wait the same number of no-op frames start from the same screen but
    # draw different sticky-action repeats, so the same actions play out differently.
    task = make("lmact/phoenix")
    by_noops = {}
    for seed in range(400):
        task.reset(seed)
        if task.noop_frames in by_noops:
            first, second = by_noops[task.noop_frames], seed
            break
        by_noops[task.noop_frames] = seed
    task.close()
    actions = ["LEFT", "RIGHT"] * 15
    frames_a, _ = play(first, actions)
    frames_b, _ = play(second, actions)
    assert frames_a[0] == frames_b[0] and frames_a != frames_b


def test_the_initial_state_key_is_the_hash_of_the_first_frame(task):
    keys = {}
    for seed in range(6):
        observation = task.reset(seed)
        key = task.initial_state_key()
        assert key.endswith(hashlib.sha256(observation.image.tobytes()).hexdigest()[:32])
        keys.setdefault(task.noop_frames, set()).add(key)
    assert all(len(same) == 1 for same in keys.values())
    assert len({next(iter(same)) for same in keys.values()}) >= 2


def test_the_expert_is_deterministic_and_outscores_random_actions():
    steps = 40
    expert_total = random_total = 0.0
    for seed in (0, 1):
        expert_task, random_task = make("lmact/phoenix"), make("lmact/phoenix")
        expert_task.reset(seed)
        random_task.reset(seed)
        rng = random.Random(seed)
        for _ in range(steps):
            action = expert_task.expert_action()
            assert expert_task.expert_action() == action and action in NAMES
            expert_total += expert_task.step(action).reward
            random_total += random_task.step(rng.choice(NAMES)).reward
        expert_task.close()
        random_task.close()
    assert expert_total > 1.5 * random_total
    first = make("lmact/phoenix")
    second = make("lmact/phoenix")
    first.reset(3)
    second.reset(3)
    for _ in range(5):
        action = first.expert_action()
        assert second.expert_action() == action
        first.step(action)
        second.step(action)
