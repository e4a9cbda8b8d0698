"""Boxoban's language observation against balrog-nle's NetHack Language Wrapper, as
BALROG's MiniHack plays it (reference outputs in `reference/boxoban_language.json`, see
`reference/PROVENANCE.md`): levels 0–9 of the shipped hard levels, the first view and the
views after 20 random moves (fewer where the episode ends), 210 states. The walls of a
Boxoban level are iron bars, a name that is its own plural: where some bars are seen
once in a direction and others several times, balrog-nle writes the plural line's
directions on both lines (the arena wrote each list once before: 201 of 210 states
differed)."""

import json
from pathlib import Path

import pytest

from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "boxoban_language.json").read_text())


def language_observation(text: str) -> str:
    return text.split("language observation:\n", 1)[1].split("\n\ncursor:", 1)[0]


@pytest.fixture(scope="module")
def task():
    made = make("balrog/minihack-boxoban-hard")
    yield made
    made.close()


@pytest.mark.parametrize("episode", REFERENCE, ids=lambda episode: f"level {episode['level']}")
def test_the_language_observation_is_balrog_nles(task, episode):
    first = task.reset(episode["level"])  # seed s plays level s of the shipped file
    shown = [first.text] + [task.step(action).observation.text for action in episode["actions"]]
    assert len(shown) == len(episode["language_observations"])
    for step, (text, expected) in enumerate(zip(shown, episode["language_observations"])):
        assert language_observation(text) == expected, step


def test_the_reference_holds_the_doubled_bars_lines():
    doubled = 0
    for episode in REFERENCE:
        for observation in episode["language_observations"]:
            lines = [line for line in observation.split("\n") if line.startswith("bars ")]
            doubled += len(lines) != len(set(lines))
    assert doubled >= 150
