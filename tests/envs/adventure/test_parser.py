"""The command parser: verbs, names, prepositions and parse failures."""

from envs.adventure.parser import Command, ParseFailure, parse
from envs.adventure.sample import sample_world

WORLD = sample_world()


def test_simple_commands_resolve_to_entity_ids():
    command = parse(WORLD, "take the apple")
    assert isinstance(command, Command)
    assert (command.action, command.args) == ("take", (("apple",),))
    assert parse(WORLD, "go to the living room").args == (("living_room",),)
    assert parse(WORLD, "OPEN Refrigerator.").action == "open"


def test_multi_word_names_and_their_last_word():
    assert parse(WORLD, "take potted plant").args == (("potted_plant",),)
    assert parse(WORLD, "take plant").args == (("potted_plant",),)
    # "table" names the table itself, never the side table
    assert parse(WORLD, "examine table").args == (("table",),)
    assert parse(WORLD, "examine side table").args == (("side_table",),)


def test_every_floor_answers_to_floor():
    command = parse(WORLD, "put apple on floor")
    assert command.args[0] == ("apple",)
    assert len(command.args[1]) == 6 and all(e.startswith("floor_") for e in command.args[1])


def test_put_with_and_without_preposition():
    assert parse(WORLD, "put the apple on the shelf").prep == "on"
    assert parse(WORLD, "put apple into refrigerator").prep == "in"
    bare = parse(WORLD, "put apple shelf")
    assert bare.args == (("apple",), ("shelf",)) and bare.prep is None


def test_look_variants():
    assert parse(WORLD, "look").action == "look"
    assert parse(WORLD, "look around").action == "look"
    at = parse(WORLD, "look at the counter")
    assert (at.action, at.args) == ("examine", (("counter",),))


def test_take_from_ignores_the_source():
    assert parse(WORLD, "take apple from counter").args == (("apple",),)


def test_done_ignores_trailing_words():
    assert parse(WORLD, "done, I think").action == "done"


def test_parse_failures():
    assert parse(WORLD, "").failure == "empty_command"
    unknown = parse(WORLD, "dance wildly")
    assert isinstance(unknown, ParseFailure) and unknown.failure == "unknown_verb"
    assert unknown.detail == {"verb": "dance"}
    assert parse(WORLD, "take the unicorn").failure == "unknown_entity"
    assert parse(WORLD, "take").failure == "malformed"
    missing = parse(WORLD, "put apple")
    assert missing.failure == "malformed" and missing.detail["missing"] == "target"
    assert parse(WORLD, "put apple on").detail["missing"] == "target"
    assert parse(WORLD, "put apple on unicorn").failure == "unknown_entity"
