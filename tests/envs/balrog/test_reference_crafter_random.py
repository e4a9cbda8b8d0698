"""Crafter's random agent against BALROG's own environment (reference outputs in
`reference/crafter_random_actions.json`, see `reference/PROVENANCE.md`): on the worlds of
seeds 0–9 and 300 random actions (or until the player dies), the arena executes the
same actions, unlocks the same achievements at the same steps, so its progress matches
BALROG's `get_stats()["progression"]` step by step, and the episode ends at the same
step."""

import json
from pathlib import Path

import pytest

from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "crafter_random_actions.json").read_text())
ACHIEVEMENTS = 22


@pytest.mark.parametrize("episode", REFERENCE, ids=lambda episode: f"seed {episode['seed']}")
def test_random_actions_unlock_balrogs_achievements_at_the_same_steps(episode):
    task = make("balrog/crafter")
    try:
        task.reset(episode["seed"])
        for number, expected in enumerate(episode["steps"]):
            result = task.step(expected["action"])
            assert result.executed_action == expected["action"], number
            assert sorted(task._unlocked()) == expected["achievements"], number
            assert task.progress_percent() == pytest.approx(100 * expected["achievement_count"] / ACHIEVEMENTS), number
            assert result.terminated == expected["done"], number
    finally:
        task.close()


def test_some_episodes_unlock_achievements_and_end_by_death():
    assert any(len(episode["steps"][-1]["achievements"]) >= 3 for episode in REFERENCE)
    assert all(episode["steps"][-1]["done"] for episode in REFERENCE)
