"""lmact/cheetah on the real dm_control cheetah-run: observation text, action parsing,
illegal substitution, rewards, the 100-step limit, determinism and the MPPI expert."""

import ast
import random
import re

import pytest

from envs.lmact.cheetah import format_action, parse_action
from envs.registry import make

ZEROS = "[0, 0, 0, 0, 0, 0]"


@pytest.fixture
def task():
    task = make("lmact/cheetah")
    yield task
    task.close()


def play(seed, actions):
    task = make("lmact/cheetah")
    observations = [task.reset(seed).text]
    results = [task.step(action) for action in actions]
    task.close()
    return observations + [r.observation.text for r in results], results


def test_the_observation_is_one_dict_line_of_8_positions_and_9_velocities_with_4_decimals(task):
    text = task.reset(0).text
    assert task.format == "dict" and "\n" not in text
    assert text.startswith("{'position': [") and "], 'velocity': [" in text
    value = ast.literal_eval(text)
    assert list(value) == ["position", "velocity"]
    assert len(value["position"]) == 8 and len(value["velocity"]) == 9
    numbers = re.findall(r"-?\d+\.\d+", text)
    assert len(numbers) == 17 and all(len(n.split(".")[1]) == 4 for n in numbers)
    assert "-0.0000" not in text


@pytest.mark.parametrize(
    "text, values",
    [
        ("[0.1, -0.5, 1.0, 0.0, 0.3, -1.0]", (0.1, -0.5, 1.0, 0.0, 0.3, -1.0)),
        ("0.1,-0.5,1,0,0.3,-1", (0.1, -0.5, 1.0, 0.0, 0.3, -1.0)),
        ("  [ +.5 , 1e-1, -0, 1., -1E0, 0.25 ]\n", (0.5, 0.1, 0.0, 1.0, -1.0, 0.25)),
    ],
)
def test_well_formed_actions_parse(text, values):
    assert parse_action(text) == values


@pytest.mark.parametrize(
    "text",
    [
        "",
        "run fast",
        "[0.1, 0.2, 0.3, 0.4, 0.5]",  # five values
        "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]",  # seven
        "[1.5, 0, 0, 0, 0, 0]",  # out of range
        "[-1.0001, 0, 0, 0, 0, 0]",
        "[nan, 0, 0, 0, 0, 0]",
        "[inf, 0, 0, 0, 0, 0]",
        "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6",  # unclosed bracket
        "0.1, 0.2, 0.3, 0.4, 0.5, 0.6]",
        "(0.1, 0.2, 0.3, 0.4, 0.5, 0.6)",
        "[0.1, 0.2, , 0.4, 0.5, 0.6]",
        "[0.1 0.2 0.3 0.4 0.5 0.6]",
    ],
)
def test_malformed_actions_do_not_parse(text):
    assert parse_action(text) is None


def test_a_legal_action_is_executed_and_echoed_in_canonical_form(task):
    task.reset(0)
    result = task.step("0.1,-0.5,1,0,0.3,-1")
    assert result.legal and result.executed_action == "[0.1, -0.5, 1.0, 0.0, 0.3, -1.0]"
    assert task.legal_actions() == [] and "6 values between -1 and 1" in task.action_format


def test_an_illegal_action_is_replaced_by_a_seeded_random_one_that_replays_exactly(task):
    task.reset(5)
    results = [task.step(text) for text in ("[2, 0, 0, 0, 0, 0]", "go", ZEROS)]
    assert [r.legal for r in results] == [False, False, True]
    substitutes = [parse_action(r.executed_action) for r in results[:2]]
    assert all(v is not None and all(-1 <= x <= 1 for x in v) for v in substitutes)
    assert substitutes[0] != substitutes[1]
    # The same seed substitutes the same actions, and the executed texts replay the episode.
    again, again_results = play(5, ["[2, 0, 0, 0, 0, 0]", "go", ZEROS])
    assert [r.executed_action for r in again_results] == [r.executed_action for r in results]
    replay, _ = play(5, [r.executed_action for r in results])
    assert replay == again and replay[-1] == results[-1].observation.text


def test_rewards_accumulate_and_the_episode_is_cut_after_100_steps(task):
    task.reset(1)
    rng = random.Random(0)
    results = [task.step(task.random_action(rng)) for _ in range(100)]
    assert all(0.0 <= r.reward <= 1.0 for r in results) and sum(r.reward for r in results) > 0
    assert not any(r.done for r in results[:-1])
    last = results[-1]
    assert last.truncated and not last.terminated and last.end_reason == "step limit"
    with pytest.raises(RuntimeError):
        task.step(ZEROS)


def test_same_seed_and_actions_give_the_same_episode_and_seeds_differ():
    rng = random.Random(3)
    actions = [format_action([round(rng.uniform(-1, 1), 3) for _ in range(6)]) for _ in range(20)]
    first, first_results = play(7, actions)
    second, second_results = play(7, actions)
    assert first == second
    assert [r.reward for r in first_results] == [r.reward for r in second_results]
    keys = set()
    for seed in (7, 7, 8):
        task = make("lmact/cheetah")
        task.reset(seed)
        keys.add(task.initial_state_key())
        task.close()
    assert len(keys) == 2


def test_the_expert_is_deterministic_and_outruns_random_actions():
    steps = 50
    expert_task, random_task = make("lmact/cheetah"), make("lmact/cheetah")
    expert_task.reset(2)
    random_task.reset(2)
    rng = random.Random(0)
    expert_total = random_total = 0.0
    expert_actions = []
    for _ in range(steps):
        action = expert_task.expert_action()
        assert expert_task.expert_action() == action  # asking twice changes nothing
        assert parse_action(action) is not None
        expert_actions.append(action)
        expert_total += expert_task.step(action).reward
        random_total += random_task.step(random_task.random_action(rng)).reward
    assert expert_total > 2 * random_total + 2, (expert_total, random_total)
    # Another task on the same seed plans the same first actions.
    other = make("lmact/cheetah")
    other.reset(2)
    for action in expert_actions[:3]:
        assert other.expert_action() == action
        other.step(action)
    for task in (expert_task, random_task, other):
        task.close()
