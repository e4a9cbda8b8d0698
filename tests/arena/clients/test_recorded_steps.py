"""A recorded real answer of each provider, played as the answer to every step of an
episode: what the stored step shows (the answer, the reasoning apart, the token counts,
cut off or not), as a user reads it on the replay page and in the API.

The recordings and their provenance: tests/arena/clients/recorded/PROVENANCE.md."""

from __future__ import annotations

import pytest

from arena.models import Episode, Step
from arena.services.submissions import submission_create
from tests.conftest import new_run
from tests.support.recordings import KEY, exchange, replies
from tests.support.replay_server import ReplayServer

pytestmark = pytest.mark.django_db(transaction=True)


def body(name: str) -> dict:
    return exchange(name)["response"]["body"]


def deepseek() -> dict:
    message = body("openai_compatible/deepseek_reasoning_content")["choices"][0]["message"]
    return {"completion": message["content"], "reasoning": message["reasoning_content"], "cut_off": False,
            "tokens_in": 12, "tokens_out": 789, "reasoning_tokens": 415}


def responses() -> dict:
    reasoning, message = body("responses/reasoning_summary_two_turns")["output"]
    return {"completion": message["content"][0]["text"],
            "reasoning": "\n\n".join(part["text"] for part in reasoning["summary"]), "cut_off": False,
            "tokens_in": 13, "tokens_out": 2199, "reasoning_tokens": 1920}


def anthropic() -> dict:
    thinking, text = body("anthropic/thinking_two_turns")["content"]
    usage = body("anthropic/thinking_two_turns")["usage"]
    return {"completion": text["text"], "reasoning": thinking["thinking"], "cut_off": False,
            "tokens_in": usage["input_tokens"], "tokens_out": usage["output_tokens"], "reasoning_tokens": None}


def gemini_cut_off() -> dict:
    return {"completion": "", "reasoning": "", "cut_off": True, "tokens_in": 15, "tokens_out": 2, "reasoning_tokens": 2}


CASES = {
    "openai": ("openai_compatible/deepseek_reasoning_content", "", "deepseek-reasoner", {}, deepseek),
    "responses": ("responses/reasoning_summary_two_turns", "/v1", "gpt-5",
                  {"temperature": 1.0, "reasoning_effort": "high"}, responses),
    "anthropic": ("anthropic/thinking_two_turns", "", "claude-sonnet-4-5",
                  {"temperature": 1.0, "thinking_budget_tokens": 1024, "max_tokens": 4096}, anthropic),
    "gemini": ("gemini/max_tokens_while_thinking", "", "gemini-2.5-pro", {"max_tokens": 5}, gemini_cut_off),
}


@pytest.mark.parametrize("provider", list(CASES))
def test_a_recorded_answer_as_a_stored_step(provider, allow_loopback, play):
    name, root, model, fields, expected = CASES[provider]
    with ReplayServer(replies(name, 0), repeat_last=True) as server:
        submission = submission_create(owner=None, api_key=KEY, runs=[], fields={
            "name": f"Recorded {provider}", "provider": provider, "base_url": server.base_url + root,
            "model": model, "temperature": 0.0, "max_tokens": 2048, **fields,
        })
        run = new_run(submission, task="lmact/tictactoe", fmt="ascii", episodes=1)
        play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    first = Step.objects.filter(episode=episode).order_by("index").first()
    stored = {key: getattr(first, key) for key in expected()}
    assert stored == expected()
    # None of these answers names a move: each step is an illegal action, kept as one.
    assert (first.parsed_action, first.legal) == (None, False)
