"""The inventory limit of two objects (§4.1.2)."""

from tests.envs.adventure.arena_engine import arena_task
from envs.adventure import fixture
from envs.adventure.engine import Game
from envs.adventure.planner import plan
from envs.adventure.sample import sample_world


def test_a_third_object_does_not_fit():
    g = Game(sample_world(inventory_limit=2))
    assert g.execute("take apple").success
    assert g.execute("take peach").success
    assert g.execute("open cupboard").success
    full = g.execute("take plate")
    assert full.failure == "inventory_full"
    assert full.feedback == (
        "You can't carry the plate: you already carry 2 objects, which is as many as you can hold."
    )
    assert g.execute("put peach on table").success
    assert g.execute("take plate").success


def test_without_a_limit_everything_fits():
    g = Game(sample_world())
    for command in ("take apple", "take peach", "open cupboard", "take plate", "open refrigerator", "take banana"):
        assert g.execute(command).success, command


def test_plans_respect_the_limit():
    limited = sample_world(inventory_limit=2)
    game = Game(limited)
    for command in plan(limited):
        record = game.execute(command)
        assert record.success, command
        assert len(game.view.inventory) <= 2


def test_limit_experiments_share_the_basic_worlds_with_limit_two():
    for level in ("easy", "hard"):
        for index in range(16):
            basic = fixture.instances(f"basic-{level}")[index]["world"]
            limited = fixture.instances(f"limit-{level}")[index]["world"]
            assert basic["inventory_limit"] is None and limited["inventory_limit"] == 2
            assert {k: v for k, v in basic.items() if k != "inventory_limit"} == {
                k: v for k, v in limited.items() if k != "inventory_limit"
            }
            assert (fixture.instances(f"limit-{level}")[index]["optimal_turns"]
                    >= fixture.instances(f"basic-{level}")[index]["optimal_turns"])


def test_the_prompt_states_the_limit():
    task = arena_task("limit-hard")
    task.reset(0)
    assert "no more than two objects" in task.instructions
    basic = arena_task("basic-hard")
    basic.reset(0)
    assert "two objects" not in basic.instructions
