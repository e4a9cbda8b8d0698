"""episode_metrics() on scripted episodes worked out by hand."""

import pytest

from envs.registry import get_task_class

SingleFeature = get_task_class("infogather/single-feature")
Conjunction = get_task_class("infogather/conjunction")


def answer(action=None, stop=False, factor="unsure", combination="unsure"):
    return f"action: {action or 'none'}\nstop: {'yes' if stop else 'no'}\nfactor: {factor}\ncombination: {combination}"


def colour_rule_episode():
    """A 3-colour single-feature episode whose rule is a colour (the first such seed)."""
    task = SingleFeature()
    for seed in range(100):
        task.reset(seed)
        if task.rule.factors == ("colour",):
            return task
    raise AssertionError("no colour rule in 100 seeds")


def test_scripted_single_feature_episode():
    task = colour_rule_episode()
    target = task.rule.values[0]
    a, b = [c for c in task.scene.values["colour"] if c != target]
    x, y, z = task.scene.values["shape"]

    # 1: a x -> 0 rules out a and x; left {b, target, y, z}
    r = task.step(answer(f"pick up {a} {x}"))
    assert (r.reward, task.tracker.count) == (0.0, 4)
    # 2: the same object again -> wasted; the belief (right, by luck) still counts
    r = task.step(answer(f"{a} {x}", factor="colour", combination=target))
    assert not r.legal and task.tracker.count == 4
    # 3: target y -> 1 leaves {target, y}
    r = task.step(answer(f"{target} {y}", factor="shape", combination=y))
    assert (r.reward, task.tracker.count) == (1.0, 2)
    # 4: malformed -> wasted
    assert not task.step("I will pick something nice").legal
    # 5: b y -> 0 rules out y: only the target colour is left, sufficient information at step 5
    r = task.step(answer(f"{b} {y}", factor="colour", combination=f"{target} or {b}"))
    assert (r.reward, task.tracker.count) == (0.0, 1)
    # 6: stop with the right belief
    r = task.step(answer(stop=True, factor="Colour", combination=target.upper()))
    assert r.terminated and r.end_reason == "stopped"

    m = task.episode_metrics()
    assert m["steps_to_sufficient_information"] == 5
    assert m["sufficient_information_reached"] is True
    assert m["identified"] is True
    assert m["identified_any_mention"] is True
    assert m["exploitation_curve"] == [0, 1, 0, 0, 0, 1]
    assert m["final_belief"] == {"factors": ["colour"], "values": [target]}
    assert m["rule"] == {"factors": ["colour"], "values": [target]}
    assert m["rule_text"] == f"{target} (colour)"
    assert m["num_colours"] == 3 and m["num_shapes"] == 3 and m["num_textures"] is None
    assert m["num_objects"] == 9 and m["step_budget"] == 10
    assert m["steps_used"] == 6
    assert m["objects_picked"] == 3
    assert m["wasted_steps"] == 2
    assert m["rewards_found"] == 1
    assert m["stopped"] is True
    assert m["hypotheses_left"] == 1


def test_never_reached_and_wrong_final_belief():
    task = SingleFeature()
    task.reset(0)
    task.step(answer(task.scene.objects[0].name))
    values = " ".join(task.scene.values["colour"] + task.scene.values["shape"])
    task.step(answer(stop=True, factor=task.rule.factors[0], combination=values))
    m = task.episode_metrics()
    assert m["steps_to_sufficient_information"] is None
    assert m["sufficient_information_reached"] is False
    assert m["identified"] is False  # naming every value is not an identification...
    assert m["identified_any_mention"] is True  # ...though the paper's word check would pass it
    assert m["exploitation_curve"] == [0, 0]


def test_budget_end_uses_the_last_answer_as_final_belief():
    task = Conjunction().configure(step_budget=2)
    task.reset(4)
    rule = task.rule
    task.step(answer(task.scene.objects[0].name))
    r = task.step(answer(task.scene.objects[1].name, factor=" and ".join(rule.factors), combination=" ".join(rule.values)))
    assert r.truncated
    m = task.episode_metrics()
    assert m["identified"] is True
    assert m["stopped"] is False
    assert m["exploitation_curve"] == [0, 1]
    assert m["num_textures"] == 3


def test_conjunction_needs_both_factors_and_both_values():
    task = Conjunction()
    task.reset(8)
    rule = task.rule
    task.step(answer(stop=True, factor=rule.factors[0], combination=" ".join(rule.values)))
    assert task.episode_metrics()["identified"] is False
    task.reset(8)
    task.step(answer(stop=True, factor=" and ".join(rule.factors), combination=rule.values[0]))
    assert task.episode_metrics()["identified"] is False
    task.reset(8)
    task.step(answer(stop=True, factor=", ".join(reversed(rule.factors)), combination=" ".join(reversed(rule.values))))
    assert task.episode_metrics()["identified"] is True


def test_metrics_are_json_serialisable():
    import json

    task = Conjunction()
    task.reset(1)
    task.step("nonsense")
    json.dumps(task.episode_metrics())


def test_no_turns_yet():
    task = SingleFeature()
    task.reset(0)
    m = task.episode_metrics()
    assert m["exploitation_curve"] == [] and m["identified"] is False and m["steps_used"] == 0


@pytest.mark.parametrize("colours", [3, 6, 10])
def test_sufficient_information_matches_a_brute_force_count(colours):
    from envs.infogather.hypotheses import consistent

    task = SingleFeature().configure(num_colours=colours)
    task.reset(colours)
    seen, first = [], None
    for step, name in enumerate(list(task.legal_actions()), 1):
        task.step(name)
        obj = task.scene.by_name()[name]
        seen.append((obj, task.rule.predicts(obj)))
        if first is None and len(consistent(task.tracker.hypotheses, seen)) == 1:
            first = step
    assert task.episode_metrics()["steps_to_sufficient_information"] == first
