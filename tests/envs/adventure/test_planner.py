"""The breadth-first planner: valid, optimal, deterministic, replanning."""

from tests.envs.adventure.arena_engine import arena_task
from collections import deque

from envs.adventure import fixture
from envs.adventure.actions import resolve
from envs.adventure.engine import Game
from envs.adventure.parser import parse
from envs.adventure.planner import plan
from envs.adventure.sample import sample_world
from envs.adventure.tasks import well_formed_commands


def exhaustive_optimum(world, max_depth=12):
    """Shortest number of turns over *every* well-formed command (no pruning)."""
    start = world.initial
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        state, depth = queue.popleft()
        if all(goal in state for goal in world.goals):
            return depth + 1  # + done
        if depth >= max_depth:
            continue
        for text in well_formed_commands(world, state):
            command = parse(world, text)
            if command.action in ("done", "look", "examine"):
                continue
            outcome = resolve(world, state, command)
            if outcome.success:
                following = outcome.apply(state)
                if following not in seen:
                    seen.add(following)
                    queue.append((following, depth + 1))
    return None


def test_plan_matches_an_unpruned_search_on_small_goals():
    for goals in (
        [("on", "apple", "table")],
        [("on", "banana", "counter"), ("on", "peach", "counter")],
        [("on", "plate", "table"), ("on", "apple", "floor_kitchen")],
    ):
        world = sample_world(goals=goals)
        assert len(plan(world)) == exhaustive_optimum(world), goals


def test_plan_with_limit_matches_an_unpruned_search():
    world = sample_world(inventory_limit=1, goals=[("on", "apple", "table"), ("on", "peach", "counter"),
                                                   ("on", "plate", "counter")])
    assert len(plan(world)) == exhaustive_optimum(world)


def test_plan_ends_with_done_and_is_deterministic():
    world = sample_world()
    first = plan(world)
    assert first[-1] == "done" and first == plan(sample_world())


def test_already_satisfied_goals_need_only_done():
    assert plan(sample_world(goals=[("on", "apple", "counter")])) == ["done"]


def test_fixture_solutions_are_valid_and_as_short_as_a_fresh_plan():
    for experiment in ("basic-hard", "limit-hard", "synthetic-medium", "synthetic-hard"):
        for index in (0, 7, 15):
            instance = fixture.instances(experiment)[index]
            world = fixture.world(experiment, index)
            game = Game(world)
            game.preexplore(instance["preexploration"])
            assert len(plan(world, game.state)) == instance["optimal_turns"]
            for command in instance["optimal_commands"]:
                game.reply(f"> {command}")
            assert game.outcome == "success"


def test_expert_replans_after_a_detour():
    task = arena_task("limit-hard")
    task.reset(4)
    # wander off, pick up something useless, then let the expert finish
    exits = [a for a in task.legal_actions() if a.startswith("> go ")]
    task.step(exits[-1])
    takes = [a for a in task.legal_actions() if a.startswith("> take ")]
    if takes:
        task.step(takes[0])
    while True:
        result = task.step(task.expert_action())
        if result.done:
            break
    assert task.episode_metrics()["outcome"] == "success"
