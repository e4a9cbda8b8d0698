"""Goal facts are evaluated when the episode ends, at "done" (§3.2)."""

from envs.adventure.engine import TURN_LIMIT, Game
from envs.adventure.planner import plan
from envs.adventure.sample import sample_world

SIMPLE = [("on", "apple", "table"), ("on", "peach", "counter")]


def test_reaching_the_goals_does_not_end_the_game():
    g = Game(sample_world(goals=SIMPLE))
    for command in ("take apple", "take peach", "put apple on table", "put peach on counter"):
        g.reply(f"> {command}")
    assert not g.finished and g.outcome is None
    assert g.turns[-1].goals_met == 2
    g.reply("> done")
    assert g.outcome == "success" and len(g.goals_achieved) == 2
    assert g.end_reason == "success: all 2 goals achieved"


def test_goals_reached_and_undone_before_done_do_not_count():
    g = Game(sample_world(goals=SIMPLE))
    for command in ("take apple", "put apple on table", "take apple", "take peach", "put peach on counter"):
        g.reply(f"> {command}")
    g.reply("> done")
    assert g.outcome == "lost"
    assert g.goals_achieved == [("on", "peach", "counter")]
    assert g.end_reason == "lost: 1 of 2 goals achieved"


def test_done_without_the_goals_loses():
    g = Game(sample_world())
    g.reply("> done")
    assert g.outcome == "lost" and g.goals_achieved == []


def test_an_aborted_episode_is_evaluated_in_its_final_state():
    g = Game(sample_world(goals=SIMPLE))
    g.reply("> take apple")
    g.reply("> put apple on table")
    g.reply("put the peach down")  # no ">"
    assert g.outcome == "aborted" and g.goals_achieved == [("on", "apple", "table")]


def test_a_goal_undone_before_the_turn_limit_does_not_count():
    g = Game(sample_world(goals=SIMPLE))
    g.reply("> take apple")
    g.reply("> put apple on table")
    g.reply("> take apple")
    while not g.finished:
        g.reply("> look")
    assert len(g.turns) == TURN_LIMIT and g.goals_achieved == []


def test_the_optimal_solution_succeeds():
    world = sample_world()
    g = Game(world)
    for command in plan(world):
        g.reply(f"> {command}")
    assert g.outcome == "success"
