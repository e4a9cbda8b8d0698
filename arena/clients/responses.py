"""A client for OpenAI's Responses API (``responses.create``, non-streaming) on the
OpenAI base (arena.clients.openai_compat.OpenAIClient): the SDK builds the request's
head, its ``Response`` type reads the answer.

The chat messages are converted: system (and developer) messages become
``instructions``, user messages input messages with ``input_text`` / ``input_image``
parts, assistant messages assistant input messages.

Reasoning models keep their reasoning across the turns of a conversation only here:
each request is sent with ``store: false`` (nothing is kept on OpenAI's side) and asks
for ``reasoning.encrypted_content``; the reasoning items of an answer, encrypted, are
kept by the client (one client serves one episode) and sent back before that answer
when the conversation goes on (with the answer's own output message when the strategy
sends the answer whole; see arena.clients.reasoning.AnswerMemory).

The reply's text is the ``output_text`` of its message items; its reasoning the
summaries of its reasoning items (``reasoning: {summary: auto}`` asks for them) or,
from servers that return it, their reasoning text. An answer that reached
``max_output_tokens`` (status "incomplete") is cut off, text or not; one with reasoning
and no text is one illegal step; ``<think>`` blocks go to the reasoning. Token counts:
``input_tokens`` (cached part in ``input_tokens_details.cached_tokens``),
``output_tokens`` (reasoning included: ``output_tokens_details.reasoning_tokens``).
"""

from __future__ import annotations

from typing import Any

from openai.types.responses import Response

from arena.clients.base import ModelReply
from arena.clients.chat_messages import image_url_of, plain_text, system_and_turns
from arena.clients.openai_compat import OpenAIClient
from arena.clients.reasoning import AnswerMemory
from arena.clients.replies import error_message, excerpt, int_or_none
from arena.clients.sdk_reading import sdk_json

__all__ = ["DEFAULT_BASE_URL", "ResponsesClient", "to_responses_input"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Answers whose output items a client keeps for the turns that follow.
REMEMBERED_ANSWERS = 256
STATUS_COMPLETED = "completed"
# The API refuses a max_output_tokens below this (the probe's one-token call asks for 1).
MIN_OUTPUT_TOKENS = 16


def _user_part(part: dict) -> dict | None:
    kind = part.get("type")
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str):
            raise ValueError("a text part has no text")
        return {"type": "input_text", "text": text} if text else None
    if kind == "image_url":
        return {"type": "input_image", "image_url": image_url_of(part)}
    raise ValueError(f"unsupported content part type {kind!r}")


def to_responses_input(messages: list[dict], memory: AnswerMemory | None = None):
    """(instructions, input items) for OpenAI-style chat messages. An assistant message
    that is one of the answers in `memory` (whole, or the action the strategy kept of
    it) goes back with that answer's reasoning items before it, and, when whole, as the
    output message it came as. ValueError for a role or part the conversion does not
    know."""
    instructions, turns = system_and_turns(messages)
    items: list[dict] = []
    assistant_texts = [plain_text(parts, "assistant") for role, parts in turns if role == "assistant"]
    earlier = iter(memory.match(assistant_texts) if memory is not None else [None] * len(assistant_texts))
    for role, parts in turns:
        if role == "assistant":
            text = plain_text(parts, "assistant")
            found = next(earlier)
            if found is not None:
                outputs, whole = found
                whole = whole and any(item.get("type") == "message" for item in outputs)
                items.extend(item for item in outputs if whole or item.get("type") == "reasoning")
                if whole:
                    continue
            if text:
                items.append({"role": "assistant", "content": text})
        else:
            converted = [part for part in (_user_part(p) for p in parts) if part is not None]
            if converted:
                items.append({"role": "user", "content": converted})
    if not items:
        raise ValueError("there is no user or assistant message to send")
    return instructions, items


class ResponsesClient(OpenAIClient):
    """Calls ``responses.create`` with retries; see `OpenAIClient` (the base URL
    defaults to OpenAI's; `extra_body` carries the reasoning setting:
    ``{"reasoning": {"effort": …, "summary": "auto"}}``)."""

    endpoint_label = "Responses API"
    route = "/responses"
    reply_type = Response
    base_url_label = "Responses API base URL"

    def __init__(self, base_url: str = DEFAULT_BASE_URL, api_key: str = "", model: str = "", **options) -> None:
        # The output items (encrypted reasoning and the message) of this client's
        # answers: they go back with the answers.
        self._answers = AnswerMemory(REMEMBERED_ANSWERS)
        super().__init__(base_url, api_key, model, **options)

    def _fields(self, messages: list[dict], max_tokens: int | None) -> dict:
        instructions, items = to_responses_input(messages, self._answers)
        fields: dict[str, Any] = {"input": items, "store": False, "include": ["reasoning.encrypted_content"]}
        if instructions:
            fields["instructions"] = instructions
        if max_tokens is not None:
            fields["max_output_tokens"] = max(MIN_OUTPUT_TOKENS, max_tokens)
        return fields

    def _parse(self, response, data: dict, status: int) -> ModelReply:
        output = getattr(response, "output", None)
        if data.get("error") and not output:
            raise self._malformed(f"The Responses API reported an error: {error_message(data)}", status)
        if not isinstance(output, list):
            raise self._malformed("The Responses API's answer has no 'output' list", status)

        texts: list[str] = []
        thoughts: list[str] = []
        kept: list[dict] = []
        for item in output:
            kind = getattr(item, "type", None)
            if kind == "reasoning":
                thoughts.extend(_reasoning_texts(item))
                kept.append(sdk_json(item))
            elif kind == "message":
                for part in getattr(item, "content", None) or []:
                    part_type = getattr(part, "type", None)
                    if part_type == "output_text" and isinstance(getattr(part, "text", None), str):
                        texts.append(part.text)
                    elif part_type == "refusal" and isinstance(getattr(part, "refusal", None), str):
                        raise self._unusable(f"The model refused to answer: {excerpt(part.refusal)}", status)
                kept.append(sdk_json(item))

        state = getattr(response, "status", None)
        finish_reason = "stop"
        if state not in (None, STATUS_COMPLETED):
            reason = getattr(getattr(response, "incomplete_details", None), "reason", None)
            finish_reason = reason if isinstance(reason, str) and reason else str(state)
        text, reasoning = self._think.split("".join(texts), finish_reason, "\n\n".join(thoughts))
        self._answers.remember(text, kept)

        usage = getattr(response, "usage", None)
        input_details, output_details = (getattr(usage, name, None) for name in ("input_tokens_details",
                                                                                "output_tokens_details"))
        return ModelReply(
            text=text, reasoning=reasoning, finish_reason=finish_reason, http_status=status, reasoning_items=kept,
            tokens_in=int_or_none(getattr(usage, "input_tokens", None)),
            tokens_out=int_or_none(getattr(usage, "output_tokens", None)),
            cached_tokens_in=int_or_none(getattr(input_details, "cached_tokens", None)),
            reasoning_tokens=int_or_none(getattr(output_details, "reasoning_tokens", None)),
        )


def _reasoning_texts(item) -> list[str]:
    """A reasoning item's summaries, else its reasoning text (servers running open
    models return the text itself)."""
    texts = []
    for key in ("summary", "content"):
        for part in getattr(item, key, None) or []:
            text = getattr(part, "text", None)
            if isinstance(text, str) and text:
                texts.append(text)
        if texts:
            break
    return texts
