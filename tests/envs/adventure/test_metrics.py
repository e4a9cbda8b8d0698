"""Per-episode metrics and per-submission aggregates (§3.2, §4.2)."""

import pytest

from tests.envs.adventure.arena_engine import arena_task
from envs.adventure.metrics import aggregate

KEYS = {
    "experiment", "instance", "outcome", "end_reason", "success", "played", "quality", "goals_total",
    "goals_achieved", "goal_success_rate", "turns", "optimal_turns", "epistemic_actions", "code_score",
    "pragmatic_actions", "epistemic_gain", "failed_actions", "failures",
}


def play(experiment, seed, replies):
    task = arena_task(experiment)
    task.reset(seed)
    for reply in replies:
        if task.step(reply).done:
            break
    return task.episode_metrics()


def oracle(experiment, seed):
    task = arena_task(experiment)
    task.reset(seed)
    while not task.step(task.expert_action()).done:
        pass
    return task.episode_metrics()


def test_a_successful_episode():
    metrics = oracle("basic-hard", 2)
    assert set(metrics) == KEYS
    assert metrics["outcome"] == "success" and metrics["success"] and metrics["played"]
    assert metrics["quality"] == 100.0 and metrics["goal_success_rate"] == 100.0
    assert metrics["goals_total"] == metrics["goals_achieved"] == 3
    assert metrics["turns"] == metrics["optimal_turns"] + 1  # "done" is not an optimal turn
    assert metrics["failed_actions"] == 0 and metrics["failures"] == {}
    # hard instances need opening containers (epistemic) and every action is pragmatic
    assert metrics["epistemic_actions"] >= 3
    assert metrics["pragmatic_actions"] == metrics["turns"]
    assert metrics["epistemic_gain"] > 0


def test_a_lost_episode_with_failures():
    metrics = play("basic-easy", 0, ["> dance", "> go nowhere", "> look", "> done"])
    assert metrics["outcome"] == "lost" and metrics["played"] and not metrics["success"]
    assert metrics["quality"] == 0.0 and metrics["goal_success_rate"] == 0.0
    assert metrics["turns"] == 4 and metrics["failed_actions"] == 2
    assert metrics["failures"] == {"unknown_entity": 1, "unknown_verb": 1}
    # look is neither epistemic nor pragmatic, done is pragmatic
    assert metrics["epistemic_actions"] == 0 and metrics["pragmatic_actions"] == 1


def test_an_aborted_episode():
    metrics = play("synthetic-hard", 0, ["no prompt symbol"])
    assert metrics["outcome"] == "aborted" and not metrics["played"] and metrics["quality"] == 0.0
    assert metrics["failures"] == {"format": 1}


def test_metrics_are_json_serialisable():
    import json

    json.dumps(oracle("preexplore-easy", 5))


def _episode(experiment, outcome, goal_rate=0.0):
    return {
        "experiment": experiment,
        "played": outcome != "aborted",
        "quality": 100.0 if outcome == "success" else 0.0,
        "code_score": None if outcome == "aborted" else goal_rate,
        "goal_success_rate": goal_rate,
        "turns": 10,
        "optimal_turns": 8,
    }


def test_aggregate_macro_averages_and_clemscore():
    episodes = [
        _episode("basic-easy", "success", 100.0),
        _episode("basic-easy", "lost", 66.7),
        _episode("basic-easy", "aborted", 33.3),
        _episode("basic-easy", "aborted", 0.0),
        _episode("synthetic-hard", "success", 100.0),
        _episode("synthetic-hard", "success", 100.0),
    ]
    summary = aggregate(episodes)
    easy = summary["experiments"]["basic-easy"]
    assert easy["episodes"] == 4
    assert easy["played"] == 50.0
    # the paper's tables: one success over all four episodes (an abort costs twice)
    assert easy["quality"] == 25.0
    assert easy["goal_success_rate"] == pytest.approx(50.0)  # over all episodes
    hard = summary["experiments"]["synthetic-hard"]
    assert (hard["played"], hard["quality"]) == (100.0, 100.0)
    assert summary["played"] == 75.0 and summary["quality"] == 62.5
    assert summary["clemscore"] == pytest.approx(62.5 * 75.0 / 100)
    # clembench's code: partial goal credit over the played episodes, pooled per game
    code = summary["code"]
    assert code["quality"] == pytest.approx((100.0 + 66.7 + 100.0 + 100.0) / 4)
    assert code["played"] == pytest.approx(100.0 * 4 / 6)
    assert code["clemscore"] == pytest.approx(code["quality"] * code["played"] / 100)
    assert list(summary["experiments"]) == ["basic-easy", "synthetic-hard"]


def test_aggregate_of_an_experiment_with_nothing_played():
    summary = aggregate([_episode("limit-hard", "aborted")])
    assert summary["experiments"]["limit-hard"]["quality"] == 0.0
    assert summary["clemscore"] == 0.0

