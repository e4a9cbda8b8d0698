"""What LMAct sends the model, byte for byte, whatever the strategy keeps between steps.

`LMActStrategy` keeps a step's converted parts, the closing instructions of the legal
actions it saw and the frozen prefix's figures from one step to the next, so that a
step does not rebuild what has not changed. The prompt it sends must stay what the
paper's protocol makes it (LMAct §2.3–2.4): the same as rebuilding it from the stored
prefix and steps (`rebuild_prompt`, what the replay shows), and the same bytes as before
any of that was kept (the digest below was taken from the strategy at commit b1ffc2b,
before these memos existed: a change of a single byte of any prompt changes it).
"""

from __future__ import annotations

import hashlib
import io
import json
import random
from types import SimpleNamespace

import pytest

from arena.strategies.base import ContentConverter, as_message_content
from arena.strategies.context import ContextBudget
from arena.strategies.lmact import LMActStrategy
from arena.strategies.lmact_prompt import rebuild_prompt
from envs.registry import make


class _Images:
    """Each observation's picture as PNG bytes under their SHA-256 (the runner's store, in memory)."""

    def __init__(self):
        self._png: dict[str, bytes] = {}

    def sha(self, observation) -> str:
        data = observation.png
        if data is None:
            buffer = io.BytesIO()
            observation.image.save(buffer, format="PNG")
            data = buffer.getvalue()
        sha = hashlib.sha256(data).hexdigest()
        self._png[sha] = data
        return sha

    def png(self, sha: str) -> bytes:
        return self._png[sha]


# (task, format, demonstrations, show legal actions, chain of thought, context window):
# the bench's zero-shot grid world, demonstrations with chain of thought, hidden legal
# actions, pictures in the trajectory and in the demonstrations, a continuous action
# space (no legal actions to list), and a window small enough to drop old steps.
CASES = [
    ("lmact/gridworld", "ascii", 0, True, False, None),
    ("lmact/gridworld", "ascii", 3, True, True, None),
    ("lmact/gridworld", "ascii-annotated", 2, False, False, None),
    ("lmact/gridworld", "rgb", 0, True, False, None),
    ("lmact/tictactoe", "rgb", 1, True, False, None),
    ("lmact/cheetah", "dict", 0, True, False, None),
    ("lmact/gridworld", "coords", 2, True, False, 900),
]


def _played(task_id, fmt, demonstrations, show_legal, cot, window, seed=3, steps=24) -> list:
    """Every step's prompt addition and prompt (messages, estimate, dropped, frozen
    characters), and the prompt rebuilt from what the episode stores."""
    submission = SimpleNamespace(provider="openai", effective_context_window=window, max_tokens=64)
    run = SimpleNamespace(task=task_id, format=fmt, submission=submission, variant={
        "format": fmt, "num_demonstrations": demonstrations, "show_legal_actions": show_legal,
        "chain_of_thought": cot})
    strategy = LMActStrategy(run, SimpleNamespace(seed=seed))
    task = make(task_id, fmt)
    observation = task.reset(seed)
    images = _Images()
    prefix, _ = strategy.begin(task, observation, images)
    budget = ContextBudget(window=window, max_tokens=64)
    rng = random.Random(seed)
    previous, added_so_far, played = None, [], []
    for index in range(steps):
        legal = task.legal_actions()
        added = strategy.prepare(index, observation, previous, legal)
        prompt = strategy.messages(added, budget)
        added_so_far.append(added)
        rebuilt = ContentConverter(images).convert(rebuild_prompt(prefix, added_so_far, prompt.dropped))
        played.append({"added": added, "messages": prompt.messages, "estimate": prompt.estimated_tokens,
                       "dropped": prompt.dropped, "frozen": prompt.frozen_chars,
                       "rebuilt": as_message_content(rebuilt)})
        # Now and then an answer that is no action (tic-tac-toe ends there: one late).
        action = rng.choice(legal) if legal and index % 6 != 5 else "no such action"
        result = task.step(action)
        previous, observation = result.executed_action, result.observation
        if result.done:
            break
    return played


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_every_prompt_is_the_one_rebuilt_from_the_stored_steps(case):
    played = _played(*case)
    assert played
    for step in played:
        assert step["messages"] == [{"role": "user", "content": step["rebuilt"]}]


def test_a_window_too_small_for_the_whole_trajectory_drops_old_steps_here():
    # The last case must exercise the dropping path, or its bytes prove nothing about it.
    assert max(step["dropped"] for step in _played(*CASES[-1])) > 0


def test_every_prompt_is_byte_for_byte_the_one_sent_before_the_memos():
    digest = hashlib.sha256()
    for case in CASES:
        for step in _played(*case):
            step.pop("rebuilt")
            digest.update(json.dumps(step, ensure_ascii=False).encode())
    assert digest.hexdigest() == PINNED


PINNED = "b8aed7c9f7acfd14bfde7c73d9eb99fc93acf715f3278e05431006ee99bb4f63"


class _NoImages:
    def sha(self, observation):  # pragma: no cover - the closing text shows no picture
        raise AssertionError


def test_the_closing_text_follows_the_legal_actions_and_the_action_format():
    """The closing text is kept while the legal actions stay the same: when they change
    (a board game's moves), or the action format does, it is the one a fresh prompter writes."""
    from arena.strategies.lmact_prompt import LMActPrompter

    def prompter():
        return LMActPrompter(show_legal_actions=True, chain_of_thought=False, images=_NoImages())

    kept = prompter()
    for legal, action_format in [(("a1", "b2"), ""), (("a1", "b2"), ""), (("a1", "c3"), ""), ((), "six numbers"),
                                 ((), "two numbers"), (("a1", "b2"), "")]:
        assert kept.tail_parts(legal, action_format) == prompter().tail_parts(legal, action_format)
