"""TextWorld's random agent against BALROG's own TextWorld environment (reference
outputs in `reference/textworld_random_agent.json`, see `reference/PROVENANCE.md`): on
seeds 0–9 of the three tasks (game (s + 1) mod 25, as BALROG's factory gives it to a
task's (s + 1)-th episode),
a random agent draws each command among the game's admissible commands. The arena must
offer the same admissible commands, show BALROG's observation texts (the objective cut
out), end the episode at the same step and reach BALROG's progression."""

import json
from pathlib import Path

import pytest

from envs.balrog.catalog import FIXED_TASKS, TEXTWORLD
from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "textworld_random_agent.json").read_text())
MAX_STEPS = 80


@pytest.mark.parametrize("family", sorted({episode["task"] for episode in REFERENCE}))
def test_random_admissible_commands_play_as_in_balrog(family):
    task = make(FIXED_TASKS[TEXTWORLD][family])
    try:
        for episode in (e for e in REFERENCE if e["task"] == family):
            seed = episode["seed"]
            first = task.reset(seed)
            assert task._game.path.name == episode["game"], seed
            assert first.text == episode["first_text"], seed
            for number, expected in enumerate(episode["steps"]):
                assert task.legal_actions() == expected["admissible"], (seed, number)
                result = task.step(expected["command"])
                assert result.executed_action == expected["command"], (seed, number)
                assert result.observation.text == expected["text"], (seed, number)
                ended = result.done or number + 1 >= MAX_STEPS
                assert ended == expected["done"], (seed, number)
            assert task.episode_metrics()["progress"] == pytest.approx(100 * episode["progression"]), seed
    finally:
        task.close()


def test_the_random_agent_reaches_some_progress_and_some_episodes_end_early():
    assert any(episode["progression"] > 0 for episode in REFERENCE)
    assert any(len(episode["steps"]) < MAX_STEPS for episode in REFERENCE)
