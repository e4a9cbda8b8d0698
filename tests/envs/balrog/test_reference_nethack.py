"""NetHack against balrog-nle, BALROG's own NLE build, run through BALROG's make_env with
its config (reference outputs in `reference/nethack_reference.json`, see
`reference/PROVENANCE.md`): which outputs BALROG's NetHack executes, and how long an
episode lasts when the agent repeats an action that takes no game time."""

import json
from pathlib import Path

import pytest

from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "nethack_reference.json").read_text())


@pytest.fixture(scope="module")
def task():
    task = make("balrog/nethack")
    yield task
    task.close()


def test_the_outputs_balrogs_nethack_executes_are_the_valid_ones(task):
    # BALROG's action space minus the two-digit answers its wrapper cannot send (a
    # labelled deviation: they play "esc" here).
    accepted = [name for name in REFERENCE["language_action_space"] if name not in REFERENCE["unmapped"]]
    assert [name for name in accepted if not task.is_valid(name)] == []
    assert sorted(name for name in task.legal_actions()) == sorted(accepted)
    for listed in ("travel", "teleport", "overview", "annotate", "minus", "apos"):
        assert listed in task.action_descriptions and not task.is_valid(listed)
    assert not task.is_valid("05")


@pytest.mark.parametrize("action", sorted(REFERENCE["no_op_episode_steps"]))
def test_repeating_an_action_that_takes_no_time_aborts_the_game_when_balrogs_does(task, action):
    for seed, expected in REFERENCE["no_op_episode_steps"][action].items():
        task.reset(int(seed))
        steps = 0
        while True:
            steps += 1
            result = task.step(action)
            if result.done:
                break
        assert (steps, result.end_reason) == (expected["steps"], "no progress"), seed
