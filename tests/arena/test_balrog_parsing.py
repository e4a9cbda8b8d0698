"""The reading of a reply against BALROG's own agents (reference outputs in
tests/envs/balrog/reference/parse_table.json, see its PROVENANCE.md): on a table of
scripted replies, BALROG's naive, chain-of-thought, robust naive and robust
chain-of-thought agents read an action (None where the robust chain-of-thought agent
reads its "no action" sentence), and BabyAI and NetHack execute it or their default
action ("error" where BALROG's NetHack accepts a two-digit answer its language wrapper
cannot send, which ends BALROG's episode with an exception; the arena plays its default
action there, a labelled deviation). The arena's default reading must give the same
action and the same executed action for every reply; the lenient reading is an option
and differs on some."""

import json
from pathlib import Path

import pytest

from arena.strategies.answers import NO_ACTION_READ, read_answer, read_answer_leniently
from envs.registry import make

TABLE = json.loads(
    (Path(__file__).parents[1] / "envs" / "balrog" / "reference" / "parse_table.json").read_text()
)
AGENTS = {
    "naive": {"chain_of_thought": False, "markers": False},
    "cot": {"chain_of_thought": True, "markers": False},
    "robust_naive": {"chain_of_thought": False, "markers": True},
    "robust_cot": {"chain_of_thought": True, "markers": True},
}


@pytest.fixture(scope="module")
def environments():
    tasks = {"babyai": make("balrog/babyai-goto"), "nethack": make("balrog/nethack")}
    yield tasks
    for task in tasks.values():
        task.close()


def executed(task, action: str) -> str:
    return action if task.is_valid(action) else task.default_action


@pytest.mark.parametrize("agent", AGENTS)
def test_the_default_reading_is_balrogs_on_every_scripted_reply(agent, environments):
    for row in TABLE:
        expected = row[agent]
        read = read_answer(row["reply"], **AGENTS[agent])
        assert read == (NO_ACTION_READ if expected["read"] is None else expected["read"]), row["reply"]
        for name, task in environments.items():
            wanted = task.default_action if expected[name] == "error" else expected[name]
            assert executed(task, read) == wanted, (row["reply"], name)


def test_the_lenient_reading_is_an_option_that_differs_from_balrogs(environments):
    differing = 0
    for row in TABLE:
        for agent, flags in AGENTS.items():
            action = executed(environments["babyai"], read_answer_leniently(row["reply"], **flags))
            differing += action != row[agent]["babyai"]
    assert differing > 0
