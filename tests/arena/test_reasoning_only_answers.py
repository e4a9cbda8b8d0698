"""A reasoning model's answer with reasoning and no text (OpenAI-style ``content: null``
with ``finish_reason: "stop"``, a Responses answer of reasoning items only, Anthropic
thinking blocks only, Gemini thought parts only, an agent's reply with reasoning and no
action) is one illegal step on every client: the episode goes on and finishes, the
reasoning is stored with the step, the step is not counted as cut off."""

from __future__ import annotations

import pytest

from arena.models import Episode, Step, Submission
from arena.services.submissions import submission_create
from tests.conftest import new_run
from tests.support.fake_openai import FakeOpenAIServer, Fault
from tests.support.fake_providers import FakeAgentServer, FakeAnthropicServer, FakeGeminiServer
from tests.support.fake_responses import FakeResponsesServer

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-test-reasoning-only-0123456789"
THOUGHT = "The goal is to the right, so I should move right."

REASONING_ONLY = {
    "openai": (FakeOpenAIServer, {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": None, "reasoning_content": THOUGHT}}],
    }),
    "responses": (FakeResponsesServer, {
        "id": "resp_1", "object": "response", "created_at": 1, "model": "m", "status": "completed",
        "output": [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": THOUGHT}]}],
    }),
    "anthropic": (FakeAnthropicServer, {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
        "content": [{"type": "thinking", "thinking": THOUGHT, "signature": "sig"}],
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }),
    "gemini": (FakeGeminiServer, {
        "candidates": [{"content": {"role": "model", "parts": [{"text": THOUGHT, "thought": True}]},
                        "finishReason": "STOP"}],
    }),
}


@pytest.mark.parametrize("provider", list(REASONING_ONLY))
def test_a_reasoning_only_answer_is_one_illegal_step(provider, allow_loopback, play):
    fake, body = REASONING_ONLY[provider]
    with fake(api_key=KEY) as server:
        server.enqueue(Fault.status(200, body=body))
        submission = submission_create(owner=None, api_key=KEY, runs=[], fields={
            "name": f"Reasoner ({provider})", "provider": provider, "base_url": server.base_url,
            "model": "fake-reasoner", "temperature": 0.0, "max_tokens": 64,
        })
        run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
        play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    first = Step.objects.filter(episode=episode).order_by("index").first()
    assert (first.completion, first.parsed_action, first.legal, first.cut_off) == ("", None, False, False)
    assert THOUGHT in first.reasoning


def test_an_agents_reply_with_reasoning_and_no_action_is_one_illegal_step(allow_loopback, play):
    submission = submission_create(owner=None, api_key="", runs=[], fields={
        "name": "Agent", "provider": "agent", "base_url": "http://127.0.0.1:1/", "model": "",
    })
    with FakeAgentServer(secret=submission.new_agent_secret) as server:
        server.enqueue(Fault.status(200, body={"reasoning": THOUGHT}))
        Submission.objects.filter(pk=submission.pk).update(base_url=server.base_url)
        run = new_run(Submission.objects.get(pk=submission.pk), task="lmact/gridworld", fmt="ascii", episodes=1)
        play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    first = Step.objects.filter(episode=episode).order_by("index").first()
    assert (first.parsed_action, first.legal) == (None, False)
