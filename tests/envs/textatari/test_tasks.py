"""The TextAtari tasks on the game protocol: the 23 games on the real ALE with their
minimal action sets, the settings and options a run may choose, determinism, the
episode metrics and the suite's descriptor."""

import pytest

from envs.core import RandomLegalPolicy, baselines_of
from envs.registry import get_suite, make, tasks_of
from envs.suite import CHAT, MEAN_OF_EPISODE_METRIC
from envs.textatari.emulator import FRAMES_PER_STEP, ROM_IDS, AtariEmulator
from envs.textatari.scores import anchors, random_and_human

PAPER_GAMES = (
    "asteroids battlezone berzerk bowling boxing breakout demonattack freeway frostbite hero montezumarevenge "
    "mspacman pitfall pong privateeye qbert riverraid seaquest skiing spaceinvaders tennis venture videopinball"
).split()


def test_it_registers_the_papers_23_games():
    assert sorted(task_id.split("/")[1] for task_id in tasks_of("textatari")) == sorted(PAPER_GAMES)


def test_the_suite_is_a_chat_suite_ranked_by_the_human_normalised_score():
    suite = get_suite("textatari")
    assert suite.prompt_protocol == CHAT and suite.reflection and suite.page
    # §3.1: five seeds per game; the scenarios are swept by the task, 1,000 steps is its default.
    assert suite.paper_preset.episodes == 5 and "chain_of_thought" not in suite.paper_preset.strategy
    primary = suite.primary_metric
    assert (primary.name, primary.fold, primary.episode_metric, primary.higher_is_better) == (
        "normalised_score", MEAN_OF_EPISODE_METRIC, "normalised_score", True
    )
    assert [metric.name for metric in suite.secondary_metrics] == ["score"]
    assert "NOOP" in suite.illegal_actions


@pytest.mark.parametrize("game", PAPER_GAMES)
def test_each_game_plays_ales_minimal_action_set_in_its_order(game):
    task = make(f"textatari/{game}")
    emulator = AtariEmulator(game, 0)
    assert tuple(task.legal_actions()) == emulator.action_names
    assert set(task.describe_actions()) == set(emulator.action_names)
    assert all(task.describe_actions().values())


def test_the_protocol_options_are_the_papers():
    cls = type(make("textatari/pong"))
    assert cls.max_steps == 1000 and cls.settings == {"max_steps": (1000, 100, 10000, 100000)}
    assert cls.variant_options == {"scenario": ("basic", "obscured", "manual", "reference")}
    assert cls.prompt_options == ("scenario",)
    assert cls.baseline_episodes == 5 and cls.blocking
    assert set(baselines_of(cls)) == {"random", "expert"}
    assert FRAMES_PER_STEP == 12  # 60 frames a second at about 5 decisions a second


def test_a_run_may_shorten_or_lengthen_the_episode():
    task = make("textatari/freeway", max_steps=100)
    assert task.max_steps == 100
    task.reset(0)
    results = [task.step("UP") for _ in range(100)]
    assert not any(result.done for result in results[:-1])
    assert (results[-1].truncated, results[-1].end_reason) == (True, "step limit")
    with pytest.raises(ValueError):
        make("textatari/freeway", max_steps=500)
    with pytest.raises(ValueError):
        make("textatari/freeway", scenario="cheating")


def trace(game: str, seed: int, ask_expert: bool) -> list:
    task = make(f"textatari/{game}")
    steps = [task.reset(seed).text, task.initial_state_key()]
    policy = RandomLegalPolicy(7)
    for index in range(60):
        if ask_expert:
            task.expert_action()  # clones and restores the console: must not change the episode
        action = "gibberish" if index % 7 == 0 else policy.act(task)
        result = task.step(action)
        steps.append((result.executed_action, result.legal, result.reward, result.observation.text))
    return steps


@pytest.mark.parametrize("game", ["pong", "mspacman"])
def test_the_same_seed_replays_the_same_episode_even_with_the_expert_consulted(game):
    assert trace(game, 11, ask_expert=False) == trace(game, 11, ask_expert=True)


def test_seeds_differ_by_their_sticky_actions_from_a_common_start():
    first, second = trace("pong", 1, False), trace("pong", 2, False)
    assert first[:2] == second[:2]  # v5 has no random starts: the same first state
    assert first[2:] != second[2:]


def test_the_episode_is_scored_by_the_game_score_and_the_arenas_normalised_value_at_its_step_limit():
    task = make("textatari/freeway", max_steps=100)
    task.reset(0)
    total = 0.0
    for _ in range(40):
        total += task.step("UP").reward
    metrics = task.episode_metrics()
    random_score, human_score = random_and_human("freeway", 100)
    assert total >= 1 and metrics["game_score"] == total
    assert metrics["normalised_score"] == pytest.approx((total - random_score) / (human_score - random_score))
    assert anchors("freeway", 100).source == "measured"
    assert anchors("pong", 100).random != anchors("pong", 1000).random  # each limit has its own anchor


def test_the_game_ends_the_episode_when_it_is_over():
    task = make("textatari/montezumarevenge")
    task.reset(0)
    for _ in range(1000):
        result = task.step("RIGHT")  # walks off the ledge, life after life
        if result.done:
            break
    assert (result.terminated, result.end_reason) == (True, "game over")


def test_roms_named_differently_by_ale_are_found():
    assert set(ROM_IDS) <= set(PAPER_GAMES)
    for game in ROM_IDS:
        AtariEmulator(game, 0)
