"""Game-specific sentences of the most played games, on the real emulator, and the
transition narration they feed."""

import re

from envs.registry import make


def play(game: str, actions, seed: int = 0):
    task = make(f"textatari/{game}")
    first = task.reset(seed)
    results = [task.step(action) for action in actions]
    return task, first, results


def first_rewarded(task, action_for):
    """Step until a reward; (sentences before, result, sentences after)."""
    before = task.verbaliser.describe(task.reading())
    for index in range(600):
        result = task.step(action_for(index))
        after = task.verbaliser.describe(task.reading())
        if result.reward:
            return before, result, after
        before = after
    raise AssertionError("no reward within 600 steps")


def test_pong_tells_the_serve_then_where_the_ball_is_against_your_paddle():
    task, first, results = play("pong", ["NOOP"] * 6)
    assert "The ball is out of play" in first.text
    ball = task.verbaliser.describe(task.reading())["ball"]
    assert re.search(r"The ball is at x=\d+, y=\d+: (level with your paddle|\d+ (above|below) your paddle's middle)", ball)
    assert "units to the left of your paddle" in ball


def test_pong_narrates_a_lost_point_with_both_scores():
    task = make("textatari/pong")
    task.reset(0)
    before, result, after = first_rewarded(task, lambda index: "NOOP")
    assert result.reward == -1
    assert after["score"] == "Score: you 0, computer 1." and before["score"] == "Score: you 0, computer 0."
    assert "Before: Score: you 0, computer 0." in result.observation.text
    assert "reward -1" in result.observation.text.lower()


def test_breakout_tells_bricks_broken_and_the_rows_that_lost_some():
    task = make("textatari/breakout")
    task.reset(0)
    before, result, after = first_rewarded(task, lambda index: task.expert_action())
    assert "Bricks broken so far: 0." in before["bricks"] and "Bricks broken so far: 1." in after["bricks"]
    while "with gaps" not in after["bricks"]:
        before, result, after = first_rewarded(task, lambda index: task.expert_action())
    assert "bottom with gaps" in after["bricks"] or "fifth with gaps" in after["bricks"]  # 1-point rows first
    assert "top intact" in after["bricks"]


def test_breakout_asks_for_fire_when_no_ball_is_in_play():
    _, first, _ = play("breakout", [])
    assert "No ball is in play: press FIRE to launch one." in first.text


def test_freeway_counts_crossings_and_lanes():
    task, first, results = play("freeway", ["UP"] * 40)
    assert "on the starting kerb" in first.text and "Crossings so far: 0." in first.text
    assert sum(result.reward for result in results) >= 1
    told = [result.observation.text for result in results]
    assert any("in lane 5" in text for text in told)
    assert any("Crossings so far: 1." in text for text in told)


def test_boxing_tells_where_the_opponent_is_and_the_points():
    task, first, _ = play("boxing", [])
    assert "The computer's boxer is at x=109, y=87, 79 to your right and 83 below you." in first.text
    assert "Points: you 0, the computer 0." in first.text
    before, result, after = first_rewarded(task, lambda index: ["RIGHTFIRE", "DOWNFIRE", "FIRE"][index % 3])
    assert before["score"] != after["score"]


def test_space_invaders_counts_the_invaders_left():
    task = make("textatari/spaceinvaders")
    task.reset(0)
    before, result, after = first_rewarded(task, lambda index: "FIRE")
    assert "36 invaders left" in before["invaders"] and "35 invaders left" in after["invaders"]


def test_seaquest_tells_oxygen_falling_under_water_and_enemies_by_lane():
    task, _, results = play("seaquest", ["NOOP"] * 8 + ["DOWN"] * 6 + ["NOOP"] * 16)
    texts = [result.observation.text for result in results]
    oxygen = [int(re.search(r"Oxygen: (\d+) of 64", text.split("Now:")[1]).group(1)) for text in texts]
    assert oxygen[13] > oxygen[-1]  # it runs down while the submarine is submerged
    assert "at depth y=" in texts[-1]
    assert "Lanes: top lane:" in texts[-1] and "bottom lane:" in texts[-1]
    assert re.search(r"an enemy \d+ to your (left|right)", " ".join(texts))


def test_ms_pacman_lists_the_ghosts_nearest_first():
    task, _, _ = play("mspacman", ["LEFT"] * 40)
    ghosts = task.verbaliser.describe(task.reading())["ghosts"]
    assert ghosts.startswith("Ghosts, nearest first: ") and ghosts.count(" at x=") == 4
    distances = []
    for match in re.finditer(r"at x=\d+, y=\d+, (.*?)(?:;|\.$)", ghosts):
        distances.append(sum(int(n) for n in re.findall(r"(\d+) (?:to your|above|below)", match.group(1))))
    assert distances == sorted(distances)


def test_the_narration_tells_the_action_the_reward_and_only_what_changed():
    task, _, results = play("pong", ["NOOP"] * 5 + ["LEFT"])
    text = results[-1].observation.text
    head, *rest = text.splitlines()
    assert head == "You chose LEFT: move your paddle down. Reward +0."
    was = next(line for line in rest if line.startswith("Before: "))
    now = next(line for line in rest if line.startswith("Now: "))
    assert "Your paddle's middle is at y=" in was and "Score:" not in was  # the score did not change
    assert now.startswith("Now: Score: you 0, computer 0.")
