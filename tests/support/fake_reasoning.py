"""A fake reasoning model, answering in each wire form reasoning comes in.

    with fake_reasoning_server("think", cut_off_every=3) as server:
        ... server.base_url, server.provider ...

Every answer carries reasoning (a few sentences that end with a decoy "Action: down",
so an arena that read the reasoning as part of the answer would parse the wrong
action) and the default player's answer. Every `cut_off_every`-th completion request is
answered as a reasoning model that spent its whole max_tokens thinking: reasoning, no
answer text, and the provider's "token limit reached" stop reason.

Wire forms (WIRE_FORMS):

* "reasoning_content": vLLM's and llama.cpp's reasoning parsers, DeepSeek's API;
* "reasoning": OpenRouter's and Ollama's field;
* "think": a server without a reasoning parser: ``<think>…</think>`` inside content
  (cut off: the block never closes);
* "think_opened": a chat template that opens the block in the prompt (DeepSeek-R1,
  Qwen3): content holds the reasoning, then ``</think>``, then the answer;
* "anthropic": signed thinking blocks before the text block;
* "gemini": parts marked ``thought: true`` before the answer;
* "responses": OpenAI's Responses API: a reasoning item with a summary and encrypted
  content, then the message.
"""

from __future__ import annotations

import itertools
from typing import Any

from tests.support.fake_openai import FakeOpenAIServer, message_text
from tests.support.fake_providers import FakeAnthropicServer, FakeGeminiServer

OPENAI_FORMS = ("reasoning_content", "reasoning", "think", "think_opened")
WIRE_FORMS = (*OPENAI_FORMS, "anthropic", "gemini", "responses")
DECOY = "Action: down"
REASONING_TOKENS = 7


def reasoning_text(turn: int) -> str:
    return f"Turn {turn}: I weigh the moves. The rules say to answer in one line, not {DECOY}"


class _Turns:
    """Counts completion requests; says which are cut off."""

    def _setup_turns(self, cut_off_every: int) -> None:
        self.cut_off_every = cut_off_every
        self._turns = itertools.count(1)

    def next_turn(self) -> tuple[int, bool]:
        turn = next(self._turns)
        return turn, bool(self.cut_off_every) and turn % self.cut_off_every == 0


class FakeOpenAIReasoningServer(_Turns, FakeOpenAIServer):
    provider = "openai"

    def __init__(self, form: str, *, cut_off_every: int = 0, **options):
        if form not in OPENAI_FORMS:
            raise ValueError(f"not an OpenAI-compatible wire form: {form}")
        super().__init__(**options)
        self.form = form
        self._setup_turns(cut_off_every)

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        answer = super().completion(body, text)
        turn, cut_off = self.next_turn()
        thought = reasoning_text(turn)
        message = answer["choices"][0]["message"]
        said = None if cut_off else message["content"]
        if self.form in ("reasoning_content", "reasoning"):
            message[self.form] = thought
            message["content"] = said
        elif self.form == "think":
            message["content"] = f"<think>\n{thought}" + ("" if cut_off else f"\n</think>\n\n{said}")
        else:  # think_opened
            message["content"] = thought + ("" if cut_off else f"\n</think>\n\n{said}")
        answer["choices"][0]["finish_reason"] = "length" if cut_off else "stop"
        usage = answer["usage"]
        usage["completion_tokens"] += REASONING_TOKENS
        usage["completion_tokens_details"] = {"reasoning_tokens": REASONING_TOKENS}
        return answer


class FakeAnthropicReasoningServer(_Turns, FakeAnthropicServer):
    provider = "anthropic"
    form = "anthropic"

    def __init__(self, *, cut_off_every: int = 0, **options):
        super().__init__(**options)
        self._setup_turns(cut_off_every)

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        turn, cut_off = self.next_turn()
        answer = super().completion(body, text, reasoning_text(turn))
        answer["content"][0]["signature"] = f"signature-{turn}"
        if cut_off:
            answer["content"] = answer["content"][:1]
            answer["stop_reason"] = "max_tokens"
        return answer


class FakeGeminiReasoningServer(_Turns, FakeGeminiServer):
    provider = "gemini"
    form = "gemini"

    def __init__(self, *, cut_off_every: int = 0, **options):
        super().__init__(**options)
        self._setup_turns(cut_off_every)

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        turn, cut_off = self.next_turn()
        answer = super().completion(body, text, reasoning_text(turn))
        candidate = answer["candidates"][0]
        if cut_off:
            candidate["content"]["parts"] = candidate["content"]["parts"][:1]
            candidate["finishReason"] = "MAX_TOKENS"
        return answer


def fake_reasoning_server(form: str, *, cut_off_every: int = 0, **options):
    """A fake reasoning server speaking `form` (one of WIRE_FORMS); not started."""
    if form in OPENAI_FORMS:
        return FakeOpenAIReasoningServer(form, cut_off_every=cut_off_every, **options)
    if form == "anthropic":
        return FakeAnthropicReasoningServer(cut_off_every=cut_off_every, **options)
    if form == "gemini":
        return FakeGeminiReasoningServer(cut_off_every=cut_off_every, **options)
    if form == "responses":
        from tests.support.fake_responses import FakeResponsesServer

        return FakeResponsesServer(cut_off_every=cut_off_every, **options)
    raise ValueError(f"unknown wire form {form!r}")


__all__ = ["WIRE_FORMS", "DECOY", "REASONING_TOKENS", "fake_reasoning_server", "message_text", "reasoning_text"]
