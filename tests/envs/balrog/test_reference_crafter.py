"""Crafter's language observation against BALROG's own wrapper (reference outputs in
`reference/crafter_observations.json`, see `reference/PROVENANCE.md`): on the same
worlds and actions the arena gives the same facts in the same order — the player's
condition, each kind of thing in view with its distance and direction in the order
BALROG's wrapper scans the view, what is faced, the vitals and the inventory — in its
own wording."""

import json
import re
from pathlib import Path

import pytest

from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "crafter_observations.json").read_text())
SEEN = re.compile(r"^- (\w+) (\d+ steps? to your [\w-]+)$", re.MULTILINE)
VITALS = ("health", "food", "drink", "energy")


def balrog_facts(long_term: str, short_term: str) -> tuple:
    condition = "asleep" if long_term.startswith("You are sleeping") else "dead" if long_term.startswith("You died") else ""
    faced = re.search(r"You face (\w+) at your front", long_term).group(1)
    vitals = re.findall(r"- (\w+): (\d+)/9", short_term)
    inventory = [(name.replace("_", " "), count) for name, count in re.findall(r"^- (\w+): (\d+)$", short_term, re.M)]
    return condition, SEEN.findall(long_term), faced, vitals, inventory


def arena_facts(text: str, context: str) -> tuple:
    condition = "asleep" if text.startswith("You are asleep") else "dead" if text.startswith("You have died") else ""
    faced = re.search(r"In front of you: (\w+)\.", text).group(1)
    vitals = re.findall(r"- (health|food|drink|energy): (\d+)/9", context)
    inventory = [pair for pair in re.findall(r"^- ([\w ]+): (\d+)$", context, re.M) if pair[0] not in VITALS]
    return condition, SEEN.findall(text), faced, vitals, inventory


@pytest.mark.parametrize("episode", REFERENCE, ids=lambda episode: f"seed {episode['seed']}")
def test_the_observations_carry_balrogs_facts_in_balrogs_order(episode):
    task = make("balrog/crafter")
    first = task.reset(episode["seed"])
    shown = [(first.text, first.context)]
    for action in episode["actions"]:
        result = task.step(action)
        shown.append((result.observation.text, result.observation.context))
    assert len(shown) == len(episode["observations"])
    for step, (reference, (text, context)) in enumerate(zip(episode["observations"], shown)):
        assert arena_facts(text, context) == balrog_facts(reference["long"], reference["short"]), step
