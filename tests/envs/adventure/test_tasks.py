"""The nine registered tasks, their prompts and the baselines."""

import subprocess
import sys
from tests.envs.adventure.arena_engine import arena_task
from pathlib import Path

from envs.adventure.baselines import BASELINES, OraclePolicy, RandomCommandPolicy
from envs.adventure.generator import EXPERIMENTS
from envs.adventure.metrics import aggregate
from tests.envs.adventure.experiments import TASK_CLASSES
from envs.core import Policy
from envs.registry import get_task_class

ROOT = Path(__file__).resolve().parents[3]


def test_nine_tasks_are_registered():
    for experiment in EXPERIMENTS:
        cls = get_task_class(f"adventure/{experiment}")
        assert cls is TASK_CLASSES[experiment]
        assert cls.suite == "adventure" and cls.formats == ("text",) and cls.max_steps == 50
        assert cls.description and "$GOAL$" in cls.instructions
    assert len({cls for cls in TASK_CLASSES.values()}) == 9


def test_reset_plays_instance_seed_mod_16():
    task = arena_task("basic-hard")
    task.reset(21)
    assert task.index == 5 and task.initial_state_key() == "adventure/basic-hard#5"
    other = arena_task("basic-hard")
    first = other.reset(5)
    assert task.reset(21).text == first.text


def test_reset_gives_instructions_and_the_starting_room():
    task = arena_task("basic-easy")
    observation = task.reset(0)
    assert observation.text.startswith("You are in the ")
    assert task.instance["goal"] in task.instructions
    assert task.instructions.splitlines()[-2:] == ["> done", "to finish the game."]
    assert "> open cupboard" in task.instructions
    messages = task.initial_messages()
    assert len(messages) == 1 and messages[0]["content"].endswith(observation.text)


def test_preexploration_is_shown_as_earlier_turns():
    task = arena_task("preexplore-hard")
    observation = task.reset(2)
    walk = task.instance["preexploration"]
    assert observation.text.count("\n> go ") == len(walk)
    messages = task.initial_messages()
    assert len(messages) == 1 + 2 * len(walk)
    assert [m["content"] for m in messages[1::2]] == [f"> {c}" for c in walk]
    assert all(m["content"].startswith("You are in the") for m in messages[2::2])
    assert task.turns == []  # the walk is not counted as the model's turns


def test_legal_actions_are_well_formed_commands_with_the_prompt_symbol():
    task = arena_task("synthetic-easy")
    task.reset(3)
    actions = task.legal_actions()
    assert actions[-2:] == ["> look", "> done"]
    assert all(a.startswith("> ") for a in actions)
    for action in actions:
        assert task.instance["world"] is not None
        from envs.adventure.parser import Command, parse

        assert isinstance(parse(task.world, action[2:]), Command), action


def test_random_baseline_depends_only_on_seed_and_turn():
    first, second = arena_task("basic-hard"), arena_task("basic-hard")
    first.reset(3)
    second.reset(3)
    assert RandomCommandPolicy(7).act(first) == RandomCommandPolicy(7).act(second)


def test_baselines():
    assert set(BASELINES) == {"oracle", "random"}
    assert all(issubclass(cls, Policy) for cls in BASELINES.values())
    task = arena_task("synthetic-medium")
    task.reset(0)
    policy = RandomCommandPolicy(0)
    replies = []
    while True:
        reply = policy.act(task)
        replies.append(reply)
        if task.step(reply).done:
            break
    assert all(r.startswith(">") for r in replies)
    assert task.episode_metrics()["played"]


def test_the_oracle_scores_100_on_every_arena_instance():
    results = []
    for experiment in EXPERIMENTS:
        for seed in range(16):
            task = arena_task(experiment)
            task.reset(seed)
            policy = OraclePolicy(seed)
            while True:
                reply = policy.act(task)
                assert reply.startswith("> ")
                if task.step(reply).done:
                    break
            metrics = task.episode_metrics()
            # the optimal number of turns leaves "done" out, as clembench counts it
            assert metrics["turns"] == metrics["optimal_turns"] + 1
            results.append(metrics)
    summary = aggregate(results)
    assert summary["played"] == summary["quality"] == summary["goal_success_rate"] == 100.0
    assert summary["clemscore"] == 100.0


def test_the_suite_does_not_import_django():
    code = "import sys, envs.adventure, envs.adventure.baselines; print('django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_arena_finds_the_suite_baselines():
    from envs.core import ExpertPolicy, baselines_of, make_policy

    assert baselines_of(TASK_CLASSES["basic-easy"]) is BASELINES
    assert all(cls.title for cls in BASELINES.values())
    assert TASK_CLASSES["basic-easy"].baseline_episodes == 16
    # the generic expert works too: it asks the task for its expert action
    task = arena_task("basic-easy")
    task.reset(1)
    assert ExpertPolicy(1).act(task) == task.expert_action()

    for name in ("oracle", "random"):
        task = arena_task("limit-easy")
        task.reset(9)
        policy = make_policy(TASK_CLASSES["limit-easy"], name, 9)
        for _ in range(task.max_steps):
            reply = policy.act(task)
            assert reply.startswith("> ")
            if task.step(reply).done:
                break
        assert task.game.finished
        if name == "oracle":
            assert task.episode_metrics()["outcome"] == "success"
