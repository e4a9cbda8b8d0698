"""The four scenarios of TextAtari §2.2 and App. D.1: what each adds to the prompt or
does to the observations."""

import re

import pytest

from envs.registry import make, tasks_of
from envs.textatari import scenarios
from envs.textatari.text import estimate_tokens, obscure
from envs.textatari.verbaliser import state_text

GAMES = [task_id.split("/")[1] for task_id in tasks_of("textatari")]


def episode(game: str, scenario: str, steps: int = 30) -> tuple:
    task = make(f"textatari/{game}", scenario=scenario)
    texts = [task.reset(5).text]
    for _ in range(steps):
        texts.append(task.step("RIGHT" if "RIGHT" in task.legal_actions() else "UP").observation.text)
    return task, texts


def test_the_basic_header_has_synopsis_goal_numbered_actions_and_the_answer_format_only():
    """§3.2, App. D.1: an expert player answering in JSON, the synopsis, the goal and a
    numbered list of legal actions — what each action does is not explained, and the
    naive agent is offered no field for its reasoning."""
    task, _ = episode("pong", "basic", 0)
    text = task.instructions
    verbaliser = task.verbaliser
    assert verbaliser.synopsis in text and verbaliser.goal in text
    assert "The actions:\n1. NOOP\n2. FIRE\n3. RIGHT\n4. LEFT\n5. RIGHTFIRE\n6. LEFTFIRE\n\n" in text
    assert not any(meaning in text for meaning in verbaliser.actions().values())
    assert '"action"' in text and "thought" not in text.lower() and "JSON" in text
    assert "frames" not in text and "sticky" not in text
    assert verbaliser.manual not in text and "->" not in text


def test_the_obscured_scenario_masks_game_nouns_in_observations_only():
    basic_task, basic = episode("pong", "basic")
    obscured_task, obscured = episode("pong", "obscured")
    assert obscured_task.instructions == basic_task.instructions  # the header stays
    assert any("paddle" in text for text in basic) and any("ball" in text for text in basic)
    for plain, masked in zip(basic, obscured):
        assert masked == obscure(plain, obscured_task.verbaliser.nouns)
        assert "paddle" not in masked.lower() and "ball" not in masked.lower()
        # numbers, coordinates and scores are untouched
        assert [w for w in plain.split() if any(c.isdigit() for c in w)] == [
            w for w in masked.split() if any(c.isdigit() for c in w)
        ]
    assert any("item" in text for text in obscured)


def test_obscuring_replaces_whole_nouns_and_plurals_and_keeps_the_rest():
    nouns = ("ghost", "power pellet", "pellet", "fruit")
    text = "Ghosts at x=3; a ghost's power pellet is red. Pac-Man ate 2 fruits, not the ghostly pellets."
    assert obscure(text, nouns) == (
        "Items at x=3; a item's item is red. Pac-Man ate 2 items, not the ghostly items."
    )
    assert obscure(text, nouns, ("Ms. Pac-Man", "Pac-Man")).endswith("Item ate 2 items, not the ghostly items.")


# The proper names the observations use, masked with the nouns (App. D.1 masks every
# domain-specific name of the game's things).
PROPER_NAMES = {
    "mspacman": ("Ms. Pac-Man", "Pac-Man", "Blinky", "Pinky", "Inky", "Sue"),
    "qbert": ("Q*bert", "Coily"),
    "privateeye": ("Pierre Touché", "Pierre", "Touché"),
    "berzerk": ("Evil Otto",),
    "hero": ("Roderick Hero", "Roderick"),
    "frostbite": ("Frostbite Bailey",),
    "pitfall": ("Pitfall Harry",),
}


@pytest.mark.parametrize("game", GAMES)
def test_every_games_masking_lists_are_pinned(game):
    verbaliser = make(f"textatari/{game}").verbaliser
    assert verbaliser.proper_names == PROPER_NAMES.get(game, ())


@pytest.mark.parametrize("game", ["mspacman", "qbert"])
def test_the_obscured_scenario_masks_the_games_proper_names(game):
    _, basic = episode(game, "basic", 60)
    _, obscured = episode(game, "obscured", 60)
    named = re.compile("|".join(rf"(?<![\w-]){re.escape(name)}(?![\w-])" for name in PROPER_NAMES[game]), re.I)
    assert any(named.search(text) for text in basic)
    assert not any(named.search(text) for text in obscured)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_manual_summary_of_at_most_300_tokens_and_nouns_to_mask(game):
    task = make(f"textatari/{game}", scenario="manual")
    task.reset(0)
    manual = task.verbaliser.manual
    assert 120 <= estimate_tokens(manual) <= scenarios.MANUAL_TOKEN_LIMIT
    assert task.instructions.index(task.verbaliser.goal) < task.instructions.index(manual.strip())
    assert task.verbaliser.nouns
    assert not {"red", "blue", "green", "score", "x", "y"} & set(task.verbaliser.nouns)


def test_the_reference_block_spreads_every_tenth_step_of_the_experts_whole_episode_over_400_tokens():
    """§2.2: one full expert episode, every 10th state–action pair, a 400-token block."""
    task = make("textatari/pong", scenario="reference")
    task.reset(0)
    block = scenarios.reference_block(type(task.verbaliser))
    assert block in task.instructions and block.startswith("[") and block.endswith("]")
    assert estimate_tokens(block) <= scenarios.REFERENCE_TOKEN_LIMIT
    episode_data = scenarios.reference_episode("pong")
    sampled = episode_data["pairs"]
    assert [step for step, _, _ in sampled] == list(range(0, episode_data["steps"], 10))
    shown = scenarios.reference_pairs("pong")
    assert len(shown) >= 3 and block == scenarios.block_text(shown)
    # From the episode's first step to its last sampled one, not only its start.
    assert shown[0] == sampled[0] and shown[-1] == sampled[-1]
    assert all(action in task.legal_actions() for _, _, action in shown)


def test_the_shipped_reference_episode_is_the_experts_episode_from_the_reference_seed():
    task = make("textatari/pong", max_steps=scenarios.REFERENCE_MAX_STEPS)
    task.reset(scenarios.REFERENCE_SEED)
    step, state, action = scenarios.reference_episode("pong")["pairs"][0]
    assert (step, state, action) == (
        0, state_text(task._describe(), scenarios.REFERENCE_STATE_TOKENS), task.expert_action()
    )


@pytest.mark.parametrize("game", GAMES)
def test_every_game_ships_its_expert_episode_with_its_score(game):
    episode_data = scenarios.reference_episodes()[game]
    assert episode_data["seed"] == scenarios.REFERENCE_SEED
    assert 0 < episode_data["steps"] <= scenarios.REFERENCE_MAX_STEPS
    assert episode_data["game_over"] == (episode_data["steps"] < scenarios.REFERENCE_MAX_STEPS)
    coverage = scenarios.reference_coverage(game)
    assert coverage["shown"] >= 2 and coverage["shown_steps"][-1] == 10 * (coverage["sampled"] - 1)


def test_evenly_spaced_keeps_the_first_and_the_last():
    assert scenarios.evenly_spaced(10, 4) == [0, 3, 6, 9]
    assert scenarios.evenly_spaced(3, 5) == [0, 1, 2]
    assert scenarios.evenly_spaced(7, 1) == [0]


