"""Baseline policies: names, determinism, behaviour, the exact optimum of the 3×3 scene,
and the paper's ordering on a small sample."""

import functools
import random
import statistics

import pytest

from envs.core import Policy
from envs.infogather.baselines import (
    BASELINES,
    OptimalPolicy,
    RandomWithoutReplacementPolicy,
    RandomWithReplacementPolicy,
    most_informative,
)
from envs.infogather.hypotheses import SINGLE, HypothesisTracker
from envs.registry import get_task_class

SingleFeature = get_task_class("infogather/single-feature")
Conjunction = get_task_class("infogather/conjunction")


def play(task, policy):
    results = []
    while True:
        action = policy.act(task)
        result = task.step(action)
        results.append((action, result))
        if result.done:
            return results


def test_names_and_classes():
    assert BASELINES == {
        "optimal": OptimalPolicy,
        "random-without-replacement": RandomWithoutReplacementPolicy,
        "random-with-replacement": RandomWithReplacementPolicy,
    }
    for name, cls in BASELINES.items():
        assert issubclass(cls, Policy) and cls.name == name


@pytest.mark.parametrize("cls", [SingleFeature, Conjunction])
@pytest.mark.parametrize("name", sorted(BASELINES))
def test_policies_are_deterministic(cls, name):
    runs = []
    for _ in range(2):
        task = cls().configure(num_colours=4)
        task.reset(3)
        runs.append([action for action, _ in play(task, BASELINES[name](3))])
    assert runs[0] == runs[1]


@pytest.mark.parametrize("cls", [SingleFeature, Conjunction])
@pytest.mark.parametrize("colours", [3, 6, 10])
def test_optimal_always_identifies_and_stops(cls, colours):
    task = cls().configure(num_colours=colours)
    for seed in range(15):
        task.reset(seed)
        results = play(task, OptimalPolicy(seed))
        m = task.episode_metrics()
        assert all(r.legal for _, r in results)
        assert results[-1][1].end_reason == "stopped"
        assert m["identified"] and m["steps_to_sufficient_information"] == m["steps_used"] - 1


def test_expert_action_is_the_optimal_policy():
    task = Conjunction()
    task.reset(21)
    policy = OptimalPolicy(21)
    while True:
        assert task.expert_action() == policy.act(task)
        if task.step(task.expert_action()).done:
            break
    assert task.episode_metrics()["identified"]


def test_optimal_never_picks_an_uninformative_object():
    task = Conjunction().configure(num_colours=5)
    for seed in range(10):
        task.reset(seed)
        policy = OptimalPolicy(seed)
        while True:
            action = policy.act(task)
            if "stop: yes" in action:
                break
            name = action.split(";")[0].removeprefix("action: pick up ")
            positives = task.tracker.positives(name)
            assert 0 < positives < task.tracker.count
            task.step(action)


def test_optimal_takes_the_most_balanced_split():
    # 3×3 single feature: after a paying first pick {its colour, its shape} are left and the
    # next pick must keep exactly one of the two; after a pick with reward 0 four rules are
    # left and the next pick must change both (2 of 4 rules call it rewarding).
    task = SingleFeature()
    outcomes = set()
    for seed in range(30):
        task.reset(seed)
        first = task.scene.objects[seed % 9]
        reward = task.step(first.name).reward
        outcomes.add(reward)
        nxt = task.scene.by_name()[most_informative(task, random.Random(seed))]
        same_colour = nxt.get("colour") == first.get("colour")
        same_shape = nxt.get("shape") == first.get("shape")
        if reward:
            assert same_colour != same_shape
        else:
            assert not same_colour and not same_shape
    assert outcomes == {0.0, 1.0}


def exact_optimum(scene, kind) -> float:
    """Minimum expected number of picks to leave one hypothesis, over all policies, with the
    rule uniform over the hypothesis space (exhaustive search; small scenes only)."""
    tracker = HypothesisTracker(scene, kind)
    names = [o.name for o in scene.objects]
    masks = [tracker.masks[n] for n in names]

    @functools.lru_cache(maxsize=None)
    def expected(consistent: int, picked: int) -> float:
        total = consistent.bit_count()
        if total <= 1:
            return 0.0
        best = float("inf")
        for i, mask in enumerate(masks):
            if picked >> i & 1:
                continue
            yes = consistent & mask
            no = consistent & ~mask
            if not yes or not no:
                continue
            value = 1 + (yes.bit_count() * expected(yes, picked | 1 << i) + no.bit_count() * expected(no, picked | 1 << i)) / total
            best = min(best, value)
        return best

    return expected(tracker.all_mask, 0)


def test_greedy_information_gain_reaches_the_exact_optimum_on_3_colours():
    task = SingleFeature()
    task.reset(0)
    assert exact_optimum(task.scene, SINGLE) == pytest.approx(8 / 3)
    # Greedy: 2 steps when the first pick pays (1 rule in 3), otherwise 3, so 8/3 on average.
    for seed in range(40):
        task.reset(seed)
        results = play(task, OptimalPolicy(seed))
        expected = 2 if results[0][1].reward else 3
        assert task.episode_metrics()["steps_to_sufficient_information"] == expected


def test_random_without_replacement_never_repeats():
    task = Conjunction()
    for seed in range(20):
        task.reset(seed)
        results = play(task, RandomWithoutReplacementPolicy(seed))
        assert all(r.legal for _, r in results)
        assert task.episode_metrics()["identified"]


def test_random_with_replacement_draws_from_every_object():
    task = Conjunction()
    wasted = 0
    for seed in range(20):
        task.reset(seed)
        play(task, RandomWithReplacementPolicy(seed))
        wasted += task.episode_metrics()["wasted_steps"]
    assert wasted > 0


def test_paper_ordering_on_a_small_sample():
    for cls in (SingleFeature, Conjunction):
        means = []
        for name in ("optimal", "random-without-replacement", "random-with-replacement"):
            task = cls().configure(num_colours=4, step_budget=10_000)
            steps = []
            for seed in range(150):
                task.reset(seed)
                play(task, BASELINES[name](seed))
                steps.append(task.episode_metrics()["steps_to_sufficient_information"])
            means.append(statistics.mean(steps))
        assert means[0] < means[1] < means[2], (cls.id, means)
