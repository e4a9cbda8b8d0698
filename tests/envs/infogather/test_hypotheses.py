"""The hypothesis space and its consistency update, against hand-worked examples."""

import itertools
import random

import pytest

from envs.infogather.hypotheses import (
    CONJUNCTION,
    SINGLE,
    Hypothesis,
    HypothesisTracker,
    consistent,
    hypothesis_space,
    outcome_entropy,
)
from envs.infogather.scene import Scene, SceneObject, make_scene


def grid(colours, shapes, textures=None) -> Scene:
    values = {"colour": tuple(colours), "shape": tuple(shapes)}
    props = ("colour", "shape")
    if textures:
        values["texture"] = tuple(textures)
        props = ("colour", "texture", "shape")
    objects = tuple(
        SceneObject(tuple(zip(props, combo))) for combo in itertools.product(*(values[p] for p in props))
    )
    return Scene(properties=props, values=values, objects=objects)


PAPER = grid(("red", "blue", "yellow"), ("toy", "sphere", "box"))  # the §4 example's words
CONJ = grid(("red", "blue"), ("cube", "ball"), ("wooden", "plastic"))


def names(hypotheses):
    return {" ".join(h.values) for h in hypotheses}


def test_single_feature_space_is_every_colour_and_every_shape():
    space = hypothesis_space(PAPER, SINGLE)
    assert names(space) == {"red", "blue", "yellow", "toy", "sphere", "box"}
    assert {h.factors for h in space} == {("colour",), ("shape",)}


def test_conjunction_space_is_every_pair_across_two_properties():
    space = hypothesis_space(CONJ, CONJUNCTION)
    # colour×shape 2×2 + shape×texture 2×2 + colour×texture 2×2
    assert len(space) == 12
    assert {h.factors for h in space} == {("colour", "shape"), ("shape", "texture"), ("colour", "texture")}
    assert len(set(space)) == 12


@pytest.mark.parametrize("colours", range(3, 11))
def test_space_sizes(colours):
    scene = make_scene({"colour": colours, "shape": 3, "texture": 3}, random.Random(colours))
    assert len(hypothesis_space(scene, SINGLE)) == colours + 3
    assert len(hypothesis_space(scene, CONJUNCTION)) == colours * 3 + 3 * 3 + colours * 3


def obj(scene, name):
    return scene.by_name()[name]


def test_blue_toy_with_reward_0_rules_out_blue_and_toy():
    left = consistent(hypothesis_space(PAPER, SINGLE), [(obj(PAPER, "blue toy"), 0)])
    assert names(left) == {"red", "yellow", "sphere", "box"}


def test_blue_toy_with_reward_1_leaves_blue_and_toy():
    left = consistent(hypothesis_space(PAPER, SINGLE), [(obj(PAPER, "blue toy"), 1)])
    assert names(left) == {"blue", "toy"}


def test_paper_walkthrough_red_is_isolated():
    # §4: blue toy 0, yellow sphere 0, red box 1, then change one factor: red toy 1 -> red.
    space = hypothesis_space(PAPER, SINGLE)
    seen = [(obj(PAPER, "blue toy"), 0), (obj(PAPER, "yellow sphere"), 0)]
    assert names(consistent(space, seen)) == {"red", "box"}
    # "blue sphere" would have taught nothing after the first pick
    tracker = HypothesisTracker(PAPER, SINGLE)
    tracker.observe(obj(PAPER, "blue toy"), 0)
    assert tracker.information_gain("blue sphere") < tracker.information_gain("yellow sphere")
    seen += [(obj(PAPER, "red box"), 1)]
    assert names(consistent(space, seen)) == {"red", "box"}
    seen += [(obj(PAPER, "red toy"), 1)]
    assert names(consistent(space, seen)) == {"red"}


def test_conjunction_reward_0_rules_out_the_three_pairs_of_the_object():
    space = hypothesis_space(CONJ, CONJUNCTION)
    left = consistent(space, [(obj(CONJ, "red wooden cube"), 0)])
    assert names(set(space) - set(left)) == {"red cube", "wooden cube", "red wooden"}


def test_conjunction_reward_1_leaves_exactly_the_three_pairs_of_the_object():
    left = consistent(hypothesis_space(CONJ, CONJUNCTION), [(obj(CONJ, "red wooden cube"), 1)])
    assert names(left) == {"red cube", "wooden cube", "red wooden"}
    # then a red plastic cube with reward 1 singles out colour+shape
    left = consistent(left, [(obj(CONJ, "red plastic cube"), 1)])
    assert [h.describe() for h in left] == ["red cube (colour and shape)"]


def test_predicts():
    h = Hypothesis((("colour", "red"), ("shape", "cube")))
    assert h.predicts(obj(CONJ, "red plastic cube")) == 1
    assert h.predicts(obj(CONJ, "red plastic ball")) == 0
    assert h.as_dict() == {"factors": ["colour", "shape"], "values": ["red", "cube"]}


@pytest.mark.parametrize("kind,scene", [(SINGLE, PAPER), (CONJUNCTION, CONJ)])
def test_tracker_agrees_with_brute_force(kind, scene):
    rng = random.Random(7)
    space = hypothesis_space(scene, kind)
    for _ in range(30):
        rule = rng.choice(space)
        tracker = HypothesisTracker(scene, kind)
        seen = []
        for o in rng.sample(scene.objects, rng.randint(0, len(scene.objects))):
            seen.append((o, rule.predicts(o)))
            tracker.observe(o, rule.predicts(o))
            assert tracker.remaining() == consistent(space, seen)
            assert tracker.count == len(tracker.remaining())
            assert rule in tracker.remaining()
            for name in scene.by_name():
                expected = sum(h.predicts(scene.by_name()[name]) for h in tracker.remaining())
                assert tracker.positives(name) == expected


def test_outcome_entropy():
    assert outcome_entropy(0, 6) == 0.0
    assert outcome_entropy(6, 6) == 0.0
    assert outcome_entropy(3, 6) == pytest.approx(1.0)
    assert outcome_entropy(1, 4) == pytest.approx(0.8112781)
    assert outcome_entropy(2, 6) == outcome_entropy(4, 6)
