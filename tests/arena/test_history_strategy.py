"""BALROG's observation-history prompt (BALROG §3), built and read."""

import types

from PIL import Image

from arena.strategies.context import ContextBudget
from arena.strategies.history import (
    COT_ANSWER,
    CURRENT_HEADER,
    NAIVE_ANSWER,
    ROBUST_ANSWER,
    ObservationHistoryStrategy,
    PLAN_HEADER,
    NO_ACTION_READ,
    read_answer,
    rebuild_messages,
)
from envs.core import Observation
from tests.envs.balrog.counting import CountingTask


class Images:
    def __init__(self):
        self.stored = {}

    def sha(self, observation):
        sha = f"sha{len(self.stored)}"
        self.stored[sha] = b"\x89PNG"
        return sha

    def png(self, sha):
        return self.stored[sha]


def _strategy(**variant):
    run = types.SimpleNamespace(variant={"history_window": 16, "keep_reasoning": False, **variant}, task="balrog/counting")
    return ObservationHistoryStrategy(run, types.SimpleNamespace(seed=0))


def _play(strategy, steps, *, image=False, answer="up"):
    """Drive the strategy through `steps` observations; returns the last messages and
    what each step stored."""
    task = CountingTask()
    first = task.reset(0)
    prefix, _ = strategy.begin(task, first, Images())
    stored = []
    observation = first
    for index in range(steps):
        if image:
            observation = Observation(text=observation.text, context=observation.context, image=Image.new("RGB", (2, 2)))
        added = strategy.prepare(index, observation, None, task.legal_actions())
        prompt = strategy.messages(added)
        completion = f"I think so.\nACTION: {answer}" if strategy.chain_of_thought else answer
        action, _ = strategy.parse(completion)
        strategy.record(completion, action)
        stored.append(types.SimpleNamespace(prompt_added=added, completion=completion, parsed_action=action, prompt=prompt))
        observation = Observation(text=f"You are at {index + 1}.", context=f"Steps taken: {index + 1}")
    return prefix, stored


def test_the_instructions_are_the_first_user_message_and_the_current_observation_the_last():
    prefix, steps = _play(_strategy(), 3)
    messages = steps[-1].prompt.messages
    assert messages[0] == {"role": "user", "content": CountingTask().instruction_prompt()}
    assert [m["role"] for m in messages] == ["user", "user", "assistant", "user", "assistant", "user"]
    assert messages[1]["content"] == "Observation:\nYou are at 0."
    assert messages[2]["content"] == "up"
    assert messages[-1]["content"] == f"{CURRENT_HEADER}\nSteps taken: 2\nYou are at 2.\n\n{NAIVE_ANSWER}"


def test_the_short_term_context_appears_only_in_the_latest_turn():
    _, steps = _play(_strategy(), 4)
    messages = steps[-1].prompt.messages
    assert sum("Steps taken" in m["content"] for m in messages) == 1


def test_only_the_last_16_observations_are_kept():
    _, steps = _play(_strategy(), 20)
    users = [m for m in steps[-1].prompt.messages[1:] if m["role"] == "user"]
    assert len(users) == 16
    assert users[0]["content"] == "Observation:\nYou are at 4."


def test_a_submission_may_change_the_history_length():
    _, steps = _play(_strategy(history_window=2), 5)
    # BALROG's queue of 2 × window events still holds the action taken just before the
    # window: an assistant message right after the instructions.
    roles = [m["role"] for m in steps[-1].prompt.messages]
    assert roles == ["user", "assistant", "user", "assistant", "user"]


def test_in_vlm_mode_only_the_current_image_is_sent():
    _, steps = _play(_strategy(), 3, image=True)
    messages = steps[-1].prompt.messages
    images = [p for m in messages if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]
    assert len(images) == 1
    assert isinstance(messages[-1]["content"], list)


def test_chain_of_thought_reads_the_action_after_the_label_and_keeps_the_latest_reasoning():
    _, steps = _play(_strategy(chain_of_thought=True), 3)
    messages = steps[-1].prompt.messages
    assert steps[-1].parsed_action == "up"
    assert messages[-1]["content"].endswith(COT_ANSWER)
    assert messages[2]["content"] == "up"  # older replies come back as their action
    # the latest one whole, under the plan header as BALROG shows it
    assert messages[4]["content"].startswith(f"{PLAN_HEADER}\nI think so.")


def test_the_robust_agent_reads_the_action_between_markers():
    strategy = _strategy(answer_markers=True)
    assert strategy.convention == ROBUST_ANSWER
    assert strategy.parse("Sure! <|ACTION|> go forward <|END|> done")[0] == "go forward"
    assert strategy.parse("go forward")[0] == "go forward"


def test_the_naive_agent_keeps_only_letters_spaces_and_colons_as_balrog_does():
    assert read_answer("turn left.", chain_of_thought=False, markers=False) == "turn left"
    assert read_answer("Move West!\n", chain_of_thought=False, markers=False) == "Move West"


def test_the_oldest_observations_are_left_out_when_the_window_is_small():
    strategy = _strategy()
    _play(strategy, 10)
    full = strategy.messages([])
    budget = ContextBudget(window=full.estimated_tokens // 2 + 200, max_tokens=50)
    fitted = strategy.messages([], budget)
    assert fitted.dropped > 0
    assert fitted.messages[0] == full.messages[0] and fitted.messages[-1] == full.messages[-1]


def test_the_stored_steps_rebuild_the_exact_messages_of_every_step():
    for variant in ({}, {"chain_of_thought": True}, {"answer_markers": True}, {"history_window": 3}):
        prefix, steps = _play(_strategy(**variant), 6, image=True)
        for k, step in enumerate(steps):
            rebuilt = rebuild_messages(
                prefix, steps[: k + 1], variant.get("history_window", 16),
                chain_of_thought=variant.get("chain_of_thought", False), markers=variant.get("answer_markers", False),
            )
            sent = step.prompt.messages
            for message in sent:
                if isinstance(message["content"], list):  # data URLs back to the stored sha form
                    message["content"] = [
                        {"type": "image", "sha": "x"} if p["type"] == "image_url" else p for p in message["content"]
                    ]
            for message in rebuilt:
                if isinstance(message["content"], list):
                    message["content"] = [{"type": "image", "sha": "x"} if p["type"] == "image" else p for p in message["content"]]
            assert rebuilt == sent, (variant, k)


def test_the_robust_chain_of_thought_agent_keeps_no_reasoning_in_context_as_balrogs():
    strategy = _strategy(chain_of_thought=True, answer_markers=True)
    assert strategy.parse("I think so. <|ACTION|>up<|END|>")[0] == "up"
    strategy.record("I think so. <|ACTION|>up<|END|>", "up")
    # without the markers BALROG's robust chain-of-thought agent reads no action at all
    assert strategy.parse("I think so. ACTION: up")[0] == NO_ACTION_READ


def test_the_lenient_reading_is_a_run_option():
    strict, lenient = _strategy(chain_of_thought=True), _strategy(chain_of_thought=True, lenient_parsing=True)
    assert strict.parse("So... Action: up")[0] == "So Action: up"
    assert lenient.parse("So... Action: up")[0] == "up"


def test_past_the_window_the_action_before_it_opens_the_conversation_as_in_balrogs_queue():
    _, steps = _play(_strategy(), 20)
    messages = steps[-1].prompt.messages
    assert [m["role"] for m in messages[:3]] == ["user", "assistant", "user"]
    assert messages[1]["content"] == steps[3].parsed_action
    assert messages[2]["content"] == "Observation:\nYou are at 4."


def test_estimates_kept_from_the_previous_prompt_give_the_prompt_estimated_afresh():
    # The strategy keeps the token estimates of the texts its latest prompt held; every
    # prompt, trimmed or not, equals the one built with every text estimated again.
    for variant in ({}, {"chain_of_thought": True}, {"history_window": 3}):
        strategy, fresh = _strategy(**variant), _strategy(**variant)
        task = CountingTask()
        observation = task.reset(0)
        strategy.begin(task, observation, Images())
        fresh.begin(task, observation, Images())
        kept = 0
        for index in range(24):
            added = strategy.prepare(index, observation, None, task.legal_actions())
            fresh.prepare(index, observation, None, task.legal_actions())
            kept += len(strategy._token_counts)
            fresh._token_counts = {}
            full = fresh.messages(added)
            budget = ContextBudget(window=full.estimated_tokens // 2 + 200, max_tokens=50)
            for limit in (None, budget):
                fresh._token_counts = {}
                assert strategy.messages(added, limit) == fresh.messages(added, limit)
            completion = f"I think so.\nACTION: up {index}" if strategy.chain_of_thought else f"up {index}"
            for side in (strategy, fresh):
                side.record(completion, side.parse(completion)[0])
            observation = Observation(text=f"You are at {index + 1}.", context=f"Steps taken: {index + 1}")
        assert kept > 0
