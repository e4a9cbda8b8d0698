"""TextWorld against BALROG's own TextWorld environment (reference outputs in
`reference/textworld_walkthroughs.json`, see `reference/PROVENANCE.md`): seed s plays
game (s + 1) mod 25 of the task, the game BALROG's harness gives its (s + 1)-th episode
of the task; playing each game's walkthrough (80
steps at most), the arena plays the same game, for as many steps, to the same progress."""

import json
from pathlib import Path

import pytest

from envs.balrog.catalog import FIXED_TASKS, TEXTWORLD
from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "textworld_walkthroughs.json").read_text())


@pytest.mark.parametrize("family", sorted(REFERENCE))
def test_the_walkthrough_plays_the_same_game_steps_and_progress_as_in_balrog(family):
    task = make(FIXED_TASKS[TEXTWORLD][family])
    try:
        for seed, expected in REFERENCE[family].items():
            task.reset(int(seed))
            steps = 0
            while True:
                steps += 1
                result = task.step(task.expert_action())
                if result.done or steps >= task.max_steps:
                    break
            assert task._game.path.name == expected["game"], seed
            assert steps == expected["steps"], seed
            assert task.episode_metrics()["progress"] == pytest.approx(100 * expected["progression"]), seed
    finally:
        task.close()
