"""lmact/gridworld: walls, moves, reward, the 25-step limit, the shortest-path expert."""

from envs.core import ExpertPolicy, RandomLegalPolicy
from envs.registry import make


def test_the_border_is_wall_and_moving_into_it_leaves_the_player_in_place():
    task = make("lmact/gridworld", "coords")
    task.reset(0)
    task._player, task._target = (1, 1), (5, 5)
    result = task.step("up")
    assert task.player == (1, 1) and result.legal and result.reward == 0
    task.step("left")
    assert task.player == (1, 1)
    task.step("down")
    assert task.player == (2, 1)


def test_reaching_the_target_ends_the_episode_with_reward_one():
    task = make("lmact/gridworld", "ascii")
    task.reset(0)
    task._player, task._target = (3, 3), (3, 4)
    result = task.step("right")
    assert (result.reward, result.terminated, result.end_reason) == (1.0, True, "reached the target")


def test_the_episode_is_cut_after_25_steps():
    task = make("lmact/gridworld", "ascii")
    task.reset(0)
    task._player, task._target = (1, 1), (10, 10)
    results = [task.step("up") for _ in range(25)]
    assert not any(r.done for r in results[:-1])
    assert results[-1].truncated and results[-1].end_reason == "step limit"


def test_anything_but_the_four_directions_is_illegal_and_replaced():
    task = make("lmact/gridworld", "ascii")
    task.reset(3)
    result = task.step("north")
    assert result.legal is False and result.executed_action in {"up", "down", "left", "right"}
    assert task.step("  left \n").legal is True


def test_the_expert_reaches_every_target_within_18_steps():
    longest = 0
    for seed in range(1000):
        task = make("lmact/gridworld", "coords")
        task.reset(seed)
        expert = ExpertPolicy(seed)
        for steps in range(1, 26):
            result = task.step(expert.act(task))
            if result.done:
                break
        assert result.end_reason == "reached the target"
        longest = max(longest, steps)
    assert longest <= 18


def test_the_three_formats_show_the_same_state():
    coords = make("lmact/gridworld", "coords").reset(9).text
    ascii_text = make("lmact/gridworld", "ascii").reset(9).text
    image = make("lmact/gridworld", "rgb").reset(9).image
    assert coords.startswith("{'player': [") and "'target': [" in coords
    assert len([line for line in ascii_text.splitlines() if line.strip()]) >= 12
    assert image.size[0] == image.size[1] and image.mode == "RGB"


def test_the_same_seed_gives_the_same_episode():
    traces = []
    for _ in range(2):
        task = make("lmact/gridworld", "rgb")
        first = task.reset(11)
        policy = RandomLegalPolicy(11)
        trace = [first.image.tobytes()]
        for i in range(25):
            result = task.step("bogus" if i == 3 else policy.act(task))
            trace.append((result.executed_action, result.legal, result.observation.image.tobytes()))
            if result.done:
                break
        traces.append(trace)
    assert traces[0] == traces[1]


def test_the_default_ascii_observation_is_the_grid_alone():
    # LMAct fidelity (issue 18, item 2): no legend line (LMAct §2.3).
    plain = make("lmact/gridworld").reset(9).text
    annotated = make("lmact/gridworld", "ascii-annotated").reset(9).text
    assert plain.splitlines() == annotated.splitlines()[1:] and len(plain.splitlines()) == 12
    assert annotated.startswith("Legend:") and "Legend" not in plain
    assert set(plain.replace("\n", " ").split()) == {"#", ".", "P", "T"}
