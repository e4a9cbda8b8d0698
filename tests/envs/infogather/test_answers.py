"""Reading answers (good and malformed), canonical lines, object resolution, belief scores."""

import random

import pytest

from envs.infogather.answers import (
    Answer,
    belief_score,
    canonical,
    canonical_answer,
    mentions_all,
    parse_answer,
    resolve_object,
)
from envs.infogather.scene import make_scene


def test_plain_key_lines():
    a = parse_answer("action: pick up the red wooden ball\nstop: no\nfactor: colour and shape\ncombination: red ball")
    assert a == Answer(action="pick up the red wooden ball", stop=False, factors=("colour", "shape"), values=("red", "ball"), found_fields=True)


def test_case_whitespace_markdown_and_fences():
    text = """I think the reward depends on colour.

```
  **ACTION:**   Pick Up The BLUE Box
* **Stop**: No
- Factor : COLOR
1. Winning Combination: Blue
```"""
    a = parse_answer(text)
    assert a.action == "Pick Up The BLUE Box"
    assert a.stop is False
    assert a.factors == ("colour",)
    assert a.values == ("blue",)


def test_paper_layout_on_one_line_and_paper_keys():
    text = (
        "* Action: pick up red ball * Stop: yes *\n"
        "* Which factor influence reward? <color>\n"
        "* WINNING COMBINATION: <red>"
    )
    a = parse_answer(text)
    assert a.action == "pick up red ball"
    assert a.stop is True
    assert a.factors == ("colour",)
    assert a.values == ("red",)


def test_paper_conjunction_factor_key():
    a = parse_answer("Which combination of factors influence reward? <color, shape>\nWINNING COMBINATION: COLOR, SHAPE (Blue, Cylinder)")
    assert a.factors == ("colour", "shape")
    assert a.values == ("blue", "cylinder")


def test_json_answer():
    a = parse_answer('Here: {"action": "pick up green cone", "stop": false, "factor": ["shape", "texture"], "combination": "glass cone"}')
    assert a.action == "pick up green cone"
    assert a.stop is False
    assert a.factors == ("shape", "texture")
    assert a.values == ("glass", "cone")


def test_last_occurrence_wins():
    a = parse_answer("action: red ball\nstop: no\nLet me reconsider.\naction: blue ball\nstop: yes")
    assert a.action == "blue ball"
    assert a.stop is True


def test_semicolons_split_fields():
    a = parse_answer("action: pick up red ball; stop: no; factor: shape; combination: balls")
    assert (a.action, a.stop, a.factors, a.values) == ("pick up red ball", False, ("shape",), ("ball",))


@pytest.mark.parametrize("template", ["{}", "  {}. ", "`{}`", "Pick up the {}"])
def test_bare_object_name(template):
    scene = make_scene({"colour": 3, "shape": 3}, random.Random(0))
    target = scene.objects[4]
    a = parse_answer(template.format(target.name.title()))
    assert not a.found_fields
    assert a.stop is False
    assert resolve_object(a.action, scene)[0] == target


def test_bare_stop():
    assert parse_answer("Stop.").stop is True
    assert parse_answer("STOP").action is None


@pytest.mark.parametrize(
    "value,stop",
    [("yes", True), ("Yes, I am sure", True), ("<yes>", True), ("true", True), ("no", False), ("<no>", False), ("", False), ("maybe", False)],
)
def test_stop_values(value, stop):
    assert parse_answer(f"action: red ball\nstop: {value}").stop is stop


def test_unsure_and_missing_belief():
    a = parse_answer("action: red ball\nstop: no\nfactor: unsure\ncombination: unsure")
    assert a.factors == () and a.values == ()
    b = parse_answer("action: red ball")
    assert b.factors == () and b.values == () and b.stop is False


def test_action_none_means_no_action():
    assert parse_answer("action: none; stop: no").action is None
    assert parse_answer("action:\nstop: no").action is None


def test_garbage_is_a_bare_action_that_names_nothing():
    scene = make_scene({"colour": 3, "shape": 3}, random.Random(1))
    a = parse_answer("I am not sure what to do here.")
    assert resolve_object(a.action, scene)[0] is None


@pytest.mark.parametrize(
    "answer",
    [
        parse_answer("action: pick up the red ball\nstop: no\nfactor: colour\ncombination: red"),
        parse_answer("stop: yes\nfactor: shape and texture\ncombination: wooden cone"),
        parse_answer("action: the; odd* `action`\nstop: no"),
        Answer(action="purple ring, maybe", stop=False, factors=(), values=(), found_fields=True),
    ],
)
def test_canonical_round_trip(answer):
    line = canonical_answer(answer)
    again = parse_answer(line)
    assert canonical_answer(again) == line
    assert (again.stop, again.factors, again.values) == (answer.stop, answer.factors, answer.values)


def test_canonical_format():
    assert canonical("pick up red ball", False, ("colour",), ("red",)) == "action: pick up red ball; stop: no; factor: colour; combination: red"
    assert canonical(None, True, (), ()) == "action: none; stop: yes; factor: unsure; combination: unsure"


SCENE3 = make_scene({"colour": 3, "shape": 3, "texture": 3}, random.Random(5))


def some_object():
    return SCENE3.objects[0]


def test_resolve_object_variants():
    o = some_object()
    colour, texture, shape = o.name.split()
    for text in (o.name, o.name.upper(), f"pick up the {shape} that is {colour} and {texture}", f"{colour} {texture} {shape}s"):
        assert resolve_object(text, SCENE3)[0] == o


def test_resolve_object_failures():
    o = some_object()
    colour, texture, shape = o.name.split()
    other_colour = next(c for c in SCENE3.values["colour"] if c != colour)
    missing = next(c for c in ("red", "blue", "green", "yellow") if c not in SCENE3.values["colour"])
    assert resolve_object(None, SCENE3) == (None, "no object was named")
    assert "does not name" in resolve_object(f"{colour} {shape}", SCENE3)[1]
    assert "more than one" in resolve_object(f"{colour} or {other_colour} {texture} {shape}", SCENE3)[1]
    assert "no " in resolve_object(f"{missing} {texture} {shape}", SCENE3)[1]


def test_aliases():
    scene = make_scene({"colour": 12, "shape": 8}, random.Random(0))
    assert resolve_object("gray disc", scene)[0].name == "grey disk"
    assert parse_answer("combination: Gray spheres").values == ("grey", "ball")


def test_belief_score_is_exact():
    assert belief_score(("colour",), ("red",), ("colour",), ("red",)) == 1
    assert belief_score(("shape",), ("red",), ("colour",), ("red",)) == 0  # wrong factor
    assert belief_score((), ("red",), ("colour",), ("red",)) == 0  # factor missing
    assert belief_score(("colour",), ("red", "blue"), ("colour",), ("red",)) == 0  # extra value
    assert belief_score(("shape", "colour"), ("ball", "red"), ("colour", "shape"), ("red", "ball")) == 1
    assert mentions_all(("red", "blue"), ("red",)) == 1
    assert mentions_all(("blue", "cylinder"), ("blue", "cylinder")) == 1
    assert mentions_all(("blue",), ("blue", "cylinder")) == 0
