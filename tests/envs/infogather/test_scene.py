"""Scene generation: every combination once, values from the pools, seeded."""

import random

import pytest

from envs.infogather.scene import COLOURS, POOLS, SHAPES, TEXTURES, make_scene


@pytest.mark.parametrize("colours", range(3, 11))
def test_every_combination_once(colours):
    counts = {"colour": colours, "shape": 3, "texture": 3}
    scene = make_scene(counts, random.Random(colours))
    assert len(scene.objects) == colours * 9
    assert len({o.name for o in scene.objects}) == len(scene.objects)
    combos = {(o.get("colour"), o.get("texture"), o.get("shape")) for o in scene.objects}
    assert len(combos) == colours * 9
    for prop, values in scene.values.items():
        assert len(values) == counts[prop]
        assert set(values) <= set(POOLS[prop])


def test_names_put_colour_then_texture_then_shape():
    scene = make_scene({"colour": 2, "shape": 2, "texture": 2}, random.Random(0))
    for o in scene.objects:
        colour, texture, shape = o.name.split()
        assert (colour, texture, shape) == (o.get("colour"), o.get("texture"), o.get("shape"))
    assert scene.properties == ("colour", "texture", "shape")


def test_single_feature_scene_has_no_texture():
    scene = make_scene({"colour": 4, "shape": 3}, random.Random(0))
    assert scene.properties == ("colour", "shape")
    assert len(scene.objects) == 12
    assert all(len(o.name.split()) == 2 for o in scene.objects)


def test_seeded():
    a = make_scene({"colour": 5, "shape": 3}, random.Random("x"))
    b = make_scene({"colour": 5, "shape": 3}, random.Random("x"))
    c = make_scene({"colour": 5, "shape": 3}, random.Random("y"))
    assert a.objects == b.objects
    assert [o.name for o in a.objects] != [o.name for o in c.objects]


def test_counts_are_checked():
    with pytest.raises(ValueError):
        make_scene({"colour": 1, "shape": 3}, random.Random(0))
    with pytest.raises(ValueError):
        make_scene({"colour": len(COLOURS) + 1, "shape": 3}, random.Random(0))


def test_pools_do_not_share_words():
    words = list(COLOURS) + list(SHAPES) + list(TEXTURES)
    assert len(words) == len(set(words))
