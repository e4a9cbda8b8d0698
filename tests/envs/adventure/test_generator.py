"""The instance generator and the fixture (§4.1)."""

from envs.adventure import domain, fixture, generate
from envs.adventure.facts import View
from envs.adventure.generator import EXPERIMENTS
from envs.adventure.home_worlds import _distances, home_instance_world


def test_the_fixture_is_reproduced_byte_for_byte():
    assert generate.main(["--check"]) == 0


def test_nine_experiments_of_sixteen_instances():
    data = fixture.load_all()
    assert list(data["experiments"]) == list(EXPERIMENTS)
    for experiment, instances in data["experiments"].items():
        assert [i["index"] for i in instances] == list(range(16))
        assert all(i["id"] == f"{experiment}/{i['index']}" for i in instances)
        assert all(len(fixture.world(experiment, i["index"]).goals) == 3 for i in instances)
        assert all(i["optimal_turns"] == len(i["optimal_commands"]) for i in instances)
        assert all(i["optimal_commands"][-1] == "done" for i in instances)


def _passages(world):
    return [(a, b) for a, b in world.exits if a < b]


def test_easy_goal_objects_are_in_sight_near_one_target():
    for experiment in ("basic-easy", "synthetic-easy"):
        for index in range(16):
            world = fixture.world(experiment, index)
            view = View(world, world.initial)
            distance = _distances(_passages(world))
            targets = {goal[2] for goal in world.goals}
            assert len(targets) == 1
            target = targets.pop()
            assert world.is_("support", target) and not world.is_("floor", target)
            for prep, obj, _ in world.goals:
                assert prep == "on" and not view.hidden(obj)
                assert view.holder[obj][1] != target
                assert distance[view.room_of[obj]][view.room_of[target]] <= 1


def test_hard_goal_objects_are_hidden_and_far_from_distinct_targets():
    for experiment in ("basic-hard", "synthetic-medium"):
        for index in range(16):
            world = fixture.world(experiment, index)
            view = View(world, world.initial)
            distance = _distances(_passages(world))
            targets = [goal[2] for goal in world.goals]
            assert len(set(targets)) == 3
            gaps = []
            for _, obj, target in world.goals:
                prep, holder = view.holder[obj]
                assert prep == "in" and holder in view.closed
                gaps.append(distance[view.room_of[obj]][view.room_of[target]])
            assert min(gaps) >= 1 and max(gaps) >= 2 and sum(gaps) >= 4


def test_hard_instances_take_more_turns_than_easy_ones():
    def mean(experiment):
        return sum(i["optimal_turns"] for i in fixture.instances(experiment)) / 16

    assert mean("basic-hard") > mean("basic-easy") + 3
    assert mean("limit-hard") >= mean("basic-hard")


def test_objects_and_furniture_stay_in_their_allowed_rooms():
    allowed = domain.SUPPORTS | domain.CONTAINERS | domain.MOVABLES
    for experiment in EXPERIMENTS[:-1]:
        for index in range(16):
            world = fixture.world(experiment, index)
            view = View(world, world.initial)
            for entity, rooms in allowed.items():
                assert view.room_of[entity] in rooms, (experiment, index, entity)
            assert all(c in view.closed for c in domain.CONTAINERS)


def test_preexploration_walks():
    for level in ("easy", "hard"):
        for index in range(16):
            instance = fixture.instances(f"preexplore-{level}")[index]
            world = fixture.world(f"preexplore-{level}", index)
            walk = instance["preexploration"]
            assert 6 <= len(walk) <= 8 and all(c.startswith("go ") for c in walk)
            view = View(world, world.initial)
            required = {view.room_of[g[1]] for g in world.goals} | {view.room_of[g[2]] for g in world.goals}
            names = {world.name(r): r for r in world.rooms}
            visited = {view.player_room} | {names[c[3:]] for c in walk}
            assert required <= visited
            # the same world as the basic instance of the same index
            assert world.to_json() == fixture.world(f"basic-{level}", index).to_json()
    assert all(i["preexploration"] == [] for e in EXPERIMENTS if "preexplore" not in e
               for i in fixture.instances(e))


def test_generation_is_deterministic():
    first = home_instance_world("hard", "test/seed")
    second = home_instance_world("hard", "test/seed")
    assert first.to_json() == second.to_json()
    assert first.to_json() != home_instance_world("hard", "test/other").to_json()
