"""The instruction prompts against the structure of BALROG's own prompts
(`reference/prompt_structure.json`, extracted from the output of BALROG's prompt builders,
see `reference/PROVENANCE.md`): the same actions in the same order, the same parts, the
same number of tips, the same quoted examples and the same announced step budgets. The
wording is the arena's; what a prompt must not say (hints BALROG does not give) is
checked by name."""

import json
import re
from pathlib import Path

import pytest

from envs.balrog.catalog import FIXED_TASKS, MINIHACK, TEXTWORLD
from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "prompt_structure.json").read_text())
ARENA_TASK = {
    "babyai": "balrog/babyai-goto",
    "crafter": "balrog/crafter",
    "babaisai": "balrog/babaisai",
    "nle": "balrog/nethack",
    **{f"textworld/{name}": task for name, task in FIXED_TASKS[TEXTWORLD].items()},
    **{f"minihack/{name}": task for name, task in FIXED_TASKS[MINIHACK].items()},
}


def prompt_of(key: str) -> tuple:
    task = make(ARENA_TASK[key])
    try:
        task.reset(0)
        return task, task.instruction_prompt()
    finally:
        task.close()


def bullets(key: str, text: str) -> int:
    if key.startswith("textworld"):
        # TextWorld's tips run together in one paragraph, each after "- ".
        return len(re.findall(r"(?:^|\s)- [A-Z]", text))
    return sum(1 for line in text.splitlines() if line.lstrip().startswith("- "))


@pytest.mark.parametrize("key", sorted(REFERENCE))
def test_the_prompt_has_the_parts_tips_and_examples_of_balrogs(key):
    reference = REFERENCE[key]
    task, prompt = prompt_of(key)
    assert len([part for part in prompt.split("\n\n") if part.strip()]) == reference["parts"]
    assert bullets(key, prompt) == reference["bullets"]
    assert sorted(set(re.findall(r'"([^"]+)"', prompt))) == reference["quoted"]
    if "steps_announced" in reference:
        assert f"You have {reference['steps_announced']} steps" in prompt


@pytest.mark.parametrize("key", sorted(key for key in REFERENCE if REFERENCE[key].get("actions")))
def test_the_prompt_lists_balrogs_actions_in_balrogs_order(key):
    task, prompt = prompt_of(key)
    expected = REFERENCE[key]["actions"]
    assert list(task.action_descriptions_now()) == expected
    block = prompt.split("\n\n")[1].splitlines()
    assert [line.split(": ", 1)[0].rstrip(":") for line in block] == expected
    # BALROG's layout: one action a line, the lines separated by commas, a full stop last.
    assert all(line.endswith(",") for line in block[:-1]) and block[-1].endswith(".")


@pytest.mark.parametrize(
    ("task_id", "absent"),
    [
        ("balrog/minihack-mazewalk-9x9", ("staircase", "stairs", ">")),
        ("balrog/minihack-mazewalk-15x15", ("staircase", "stairs", ">")),
        ("balrog/minihack-boxoban-medium", ("corner", "four", "`", "{")),
        ("balrog/minihack-boxoban-hard", ("corner", "four", "`", "{")),
        ("balrog/babaisai", ("edge", "left to right", "top to bottom", "listed at every turn")),
        ("balrog/nethack", ("Any single letter", "a-z", "A-Z", "Elbereth scares")),
        ("balrog/textworld-coin-collector", ("80 steps", "several lines", '"then"')),
        ("balrog/babyai-goto", ("distractor", "Each of your replies")),
    ],
)
def test_the_prompt_gives_no_hint_balrog_does_not_give(task_id, absent):
    task = make(task_id)
    try:
        task.reset(0)
        prompt = task.instruction_prompt()
    finally:
        task.close()
    for words in absent:
        assert words not in prompt, words
