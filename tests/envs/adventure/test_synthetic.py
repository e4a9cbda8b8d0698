"""Synthetic words (§4.1.4): replaced verbs and nouns, state verbs, the word generator."""

import random

from tests.envs.adventure.arena_engine import arena_task
from envs.adventure import domain, fixture
from envs.adventure.engine import Game
from envs.adventure.synthetic_worlds import rename
from envs.adventure.sample import sample_world
from envs.adventure.words import ENGLISH, RESERVED, pseudo_word, pseudo_words


def renamed_sample():
    return rename(sample_world(), ["apple", "shelf", "living_room"], ["put"], ["drosk", "plimet", "varnod", "aphile"])


def test_a_replaced_verb_replaces_the_english_one():
    g = Game(renamed_sample())
    assert g.execute("take drosk").success
    assert g.execute("put drosk on table").failure == "unknown_verb"
    assert g.execute("aphile drosk on table").success
    assert g.execute("take apple").failure == "unknown_entity"


def test_renamed_nouns_appear_in_feedback_and_work_in_commands():
    g = Game(renamed_sample())
    assert "On the counter you see a drosk." in g.room_description()
    g.execute("go hallway")
    assert "the varnod" in g.execute("look").feedback
    assert g.execute("go varnod").success
    assert "You see a chair, a couch and a plimet." in g.execute("look").feedback


def test_easy_instances_rename_three_nouns_and_explain_one_verb():
    for index in range(16):
        instance = fixture.instances("synthetic-easy")[index]
        world = fixture.world("synthetic-easy", index)
        renamed = instance["renamed"]
        verbs = [k for k in renamed if k in domain.BASIC_VERBS]
        assert len(renamed) == 4 and len(verbs) == 1 and verbs[0] in ("take", "put")
        assert world.verbs[verbs[0]] == renamed[verbs[0]]
        assert f"you can also {renamed[verbs[0]]}. To {renamed[verbs[0]]} something is" in instance["new_words"]


def test_medium_instances_rename_nine_nouns_and_list_three_verbs():
    for index in range(16):
        instance = fixture.instances("synthetic-medium")[index]
        renamed = instance["renamed"]
        verbs = [k for k in renamed if k in domain.BASIC_VERBS]
        assert len(renamed) == 12 and len(verbs) == 3
        assert set(verbs) <= set(domain.REPLACEABLE_VERBS)
        assert all(renamed[v] in instance["new_words"] for v in verbs)
        assert "To " not in instance["new_words"]  # no explanations


def test_synthetic_prompts_carry_the_new_words():
    task = arena_task("synthetic-medium")
    task.reset(3)
    assert task.instance["new_words"] in task.instructions
    assert "$" not in task.instructions


def hard_world_and_game(index=0):
    world = fixture.world("synthetic-hard", index)
    return world, Game(world)


def _objects_of_kind(world, kind):
    return [obj for obj, k in world.kind_of.items() if k == kind]


def test_hard_worlds_have_one_two_and_three_state_goal_objects():
    for index in range(16):
        world = fixture.world("synthetic-hard", index)
        goal_kinds = sorted(world.kind_of[goal[1]] for goal in world.goals)
        assert goal_kinds == ["one", "three", "two"]
        words = list(world.names[e] for e in world.names if e.startswith(("room", "thing")))
        words += [world.verbs[v] for v in ("v1", "v2", "v3", "v4", "v5")] + list(world.adjectives.values())
        assert len(set(words)) == 4 + 5 + 5 + 6
        assert all(w not in RESERVED for w in words)


def _walk_to(game, world, entity):
    """Go to the room of `entity` along the line of rooms."""
    for _ in range(4):
        if game.view.room_of[entity] == game.view.player_room:
            return
        here = game.view.player_room
        target = game.view.room_of[entity]
        step = sorted(world.neighbours(here), key=lambda r: abs(int(r[-1]) - int(target[-1])))[0]
        assert game.execute(f"go {world.name(step)}").success


def test_state_verbs_change_states_in_order():
    world, game = hard_world_and_game(0)
    v = {verb: world.verbs[verb] for verb in ("v1", "v2", "v3", "v4", "v5")}
    adj = world.adjectives
    goal_of = {goal[1]: goal[2] for goal in world.goals}

    one = next(o for o in _objects_of_kind(world, "one") if o in goal_of)
    _walk_to(game, world, one)
    name = world.name(one)
    assert game.execute(f"{v['v2']} {name}").failure == "not_applicable"
    assert game.execute(f"{v['v2']} {name}").feedback == f"You can't {v['v2']} the {name}."
    record = game.execute(f"{v['v1']} {name}")
    assert record.success and record.feedback == f"The {name} is now {adj['s1']}."
    assert record.added == [["state", one, "s1"]]
    again = game.execute(f"{v['v1']} {name}")
    assert again.failure == "already_state" and again.feedback == f"The {name} is already {adj['s1']}."

    two = next(o for o in _objects_of_kind(world, "two") if o in goal_of)
    _walk_to(game, world, two)
    name = world.name(two)
    assert game.execute(f"{v['v3']} {name}").failure == "already_state"
    assert game.execute(f"{v['v2']} {name}").success
    assert game.execute(f"{v['v3']} {name}").success  # and back again
    assert game.execute(f"{v['v2']} {name}").success

    three = next(o for o in _objects_of_kind(world, "three") if o in goal_of)
    _walk_to(game, world, three)
    name = world.name(three)
    early = game.execute(f"{v['v5']} {name}")
    assert early.failure == "wrong_state"
    assert early.feedback == f"Nothing happens: the {name} would have to be {adj['s5']} first."
    assert game.execute(f"{v['v4']} {name}").success
    assert game.execute(f"{v['v5']} {name}").success
    assert game.view.states[three] == {"s6"}

    done = game.reply("> done")
    assert game.outcome == "success" and done.success


def test_hard_instances_keep_the_core_verbs_in_english():
    world, game = hard_world_and_game(1)
    for action in ("go", "examine", "look", "done"):
        assert world.verbs[action] == action
    assert game.execute("look").success
    assert game.execute("examine floor").success


def test_word_generator_is_deterministic_and_pronounceable():
    first = pseudo_words(random.Random("x"), 50)
    assert first == pseudo_words(random.Random("x"), 50)
    assert len(set(first)) == 50
    assert len({w[:3] for w in first}) == 50  # no two start alike
    for word in first:
        assert 5 <= len(word) <= 7 and word.isalpha() and word.islower()
        assert word not in RESERVED and word not in ENGLISH
        assert any(vowel in word for vowel in "aeiou")


def test_word_generator_avoids_given_words():
    rng = random.Random(1)
    taken = {pseudo_word(random.Random(1))}
    assert pseudo_word(rng, taken) not in taken
