"""Movement only along passages; the generated room graphs."""

from collections import deque

from envs.adventure import domain, fixture
from envs.adventure.engine import Game
from envs.adventure.generator import EXPERIMENTS
from envs.adventure.sample import sample_world


def test_only_connected_rooms_can_be_entered():
    g = Game(sample_world())
    assert g.execute("go bedroom").failure == "no_passage"
    assert g.execute("go broom closet").failure == "no_passage"
    assert g.execute("go hallway").success
    assert g.execute("go bedroom").failure == "no_passage"
    assert g.execute("go living room").success
    assert g.execute("go bedroom").success
    assert g.view.player_room == "bedroom"


def test_passages_work_both_ways():
    g = Game(sample_world())
    for room in ("pantry", "kitchen", "hallway", "broom closet", "hallway", "kitchen"):
        assert g.execute(f"go {room}").success, room


def test_room_description_names_every_exit():
    g = Game(sample_world())
    assert g.execute("go hallway").feedback.endswith(
        "From here you can go to the broom closet, the kitchen and the living room."
    )


def _connected(world) -> bool:
    rooms = world.rooms
    seen = {rooms[0]}
    queue = deque([rooms[0]])
    while queue:
        for other in world.neighbours(queue.popleft()):
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return seen == set(rooms)


def test_generated_home_worlds_use_allowed_passages_and_are_connected():
    allowed = {frozenset(link) for link in domain.ROOM_LINKS}
    for experiment in EXPERIMENTS[:-1]:
        for index in range(16):
            world = fixture.world(experiment, index)
            assert set(world.rooms) == set(domain.ROOMS)
            assert all(frozenset(exit) in allowed for exit in world.exits)
            assert all((b, a) in world.exits for a, b in world.exits)
            assert _connected(world)


def test_synthetic_hard_rooms_form_a_line_of_four():
    for index in range(16):
        world = fixture.world("synthetic-hard", index)
        assert len(world.rooms) == 4
        degrees = sorted(len(world.neighbours(room)) for room in world.rooms)
        assert degrees == [1, 1, 2, 2]
        assert len(world.exits) == 6 and _connected(world)
