"""A client for OpenAI's Responses API (POST {base_url}/responses, non-streaming).

It takes the same OpenAI-style chat messages as the other chat clients and converts
them: system (and developer) messages become ``instructions``; user messages become
input messages with ``input_text`` / ``input_image`` parts; assistant messages become
assistant input messages.

Reasoning models keep their reasoning across the turns of a conversation only here:
each request is sent with ``store: false`` (nothing is kept on OpenAI's side) and asks
for ``reasoning.encrypted_content``; the reasoning items of an answer, encrypted, are
kept by the client (one client serves one episode) and sent back before that answer
when the conversation goes on (with the answer's own output message when the strategy
sends the answer whole; see arena.clients.reasoning.AnswerMemory).

The reply's text is the ``output_text`` of its message items; its reasoning is the
summaries of its reasoning items (``reasoning: {summary: auto}`` asks for them) or, from
servers that return it, their reasoning text. An answer that reached
``max_output_tokens`` (status "incomplete") is an answer cut off, whether or not any
text came before the limit. Token counts: ``input_tokens`` (cached part in
``input_tokens_details.cached_tokens``), ``output_tokens`` (reasoning included, its
part in ``output_tokens_details.reasoning_tokens``).
"""

from __future__ import annotations

import json
from typing import Any

from arena.clients.base import ModelReply
from arena.clients.http import ChatCompletionClient, check_base_url
from arena.clients.replies import error_excerpt, excerpt, int_or_none
from arena.clients.chat_messages import content_parts, image_url_of
from arena.clients.reasoning import AnswerMemory

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


def _plain_text(parts: list[dict], role: str) -> str:
    texts = []
    for part in parts:
        if part.get("type") not in (None, "text"):
            raise ValueError(f"a {role} message can only contain text parts")
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "".join(texts)


def to_responses_input(messages: list[dict], memory: AnswerMemory | None = None):
    """(instructions, input items) for OpenAI-style chat messages. An assistant message
    that is one of the answers in `memory` (whole, or the action the strategy kept of
    it) goes back with that answer's reasoning items before it, and, when whole, as the
    output message it came as. ValueError for a role or part the conversion does not
    know."""
    instructions: list[str] = []
    items: list[dict] = []
    assistant_texts = [
        _plain_text(content_parts(m.get("content")), "assistant")
        for m in messages
        if isinstance(m, dict) and m.get("role") == "assistant"
    ]
    earlier = iter(memory.match(assistant_texts) if memory is not None else [None] * len(assistant_texts))
    for message in messages:
        if not isinstance(message, dict):
            raise ValueError("each message must be an object")
        role = message.get("role")
        parts = content_parts(message.get("content"))
        if role in ("system", "developer"):
            text = _plain_text(parts, "system")
            if text:
                instructions.append(text)
        elif role == "assistant":
            text = _plain_text(parts, "assistant")
            found = next(earlier)
            if found is not None:
                outputs, whole = found
                whole = whole and any(item.get("type") == "message" for item in outputs)
                items.extend(item for item in outputs if whole or item.get("type") == "reasoning")
                if whole:
                    continue
            if text:
                items.append({"role": "assistant", "content": text})
        elif role == "user":
            converted = [part for part in (_user_part(p) for p in parts) if part is not None]
            if converted:
                items.append({"role": "user", "content": converted})
        else:
            raise ValueError(f"unsupported message role {role!r}")
    if not items:
        raise ValueError("there is no user or assistant message to send")
    return "\n\n".join(instructions), items


class ResponsesClient(ChatCompletionClient):
    """Calls POST {base_url}/responses with retries.

    `base_url` is the API root ("https://api.openai.com/v1"; a URL already ending in
    "/responses" is used as is). `temperature` / `max_tokens` of None are left out.
    `extra_body` is merged into the request (the reasoning setting:
    ``{"reasoning": {"effort": …, "summary": "auto"}}``). The connection options are
    those of `HTTPModelClient`.
    """

    endpoint_label = "Responses API"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str = "",
        model: str = "",
        *,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        **connection,
    ) -> None:
        self._api_key = api_key or ""
        trimmed = check_base_url(base_url, [self._api_key], "Responses API base URL").rstrip("/")
        url = trimmed if trimmed.endswith("/responses") else trimmed + "/responses"
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        # The output items (encrypted reasoning and the message) of this client's
        # answers: they go back with the answers.
        self._memory = AnswerMemory(REMEMBERED_ANSWERS)
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        super().__init__(url, headers=headers, secrets=[self._api_key], **connection)

    def recall(self, text: str, items: list) -> None:
        self._memory.remember(text, items)

    def _payload(self, messages: list[dict], max_tokens: int | None = None) -> bytes:
        instructions, items = to_responses_input(messages, self._memory)
        body: dict[str, Any] = {
            "model": self.model,
            "input": items,
            "store": False,
            "include": ["reasoning.encrypted_content"],
        }
        if instructions:
            body["instructions"] = instructions
        if self.temperature is not None:
            body["temperature"] = self.temperature
        max_tokens = self.max_tokens if max_tokens is None else max_tokens
        if max_tokens is not None:
            body["max_output_tokens"] = max(MIN_OUTPUT_TOKENS, max_tokens)
        body.update(self.extra_body)
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    def _parse(self, body: bytes, status: int) -> ModelReply:
        data = self._json_object(body, status)
        if data.get("error") and not data.get("output"):
            raise self._malformed(f"The Responses API reported an error: {error_excerpt(body)}", status)
        output = data.get("output")
        if not isinstance(output, list):
            raise self._malformed("The Responses API's answer has no 'output' list", status)

        texts: list[str] = []
        thoughts: list[str] = []
        kept: list[dict] = []
        for item in output:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "reasoning":
                thoughts.extend(_reasoning_texts(item))
                kept.append(item)
            elif item.get("type") == "message":
                for part in item.get("content") or []:
                    if not isinstance(part, dict):
                        continue
                    if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                        texts.append(part["text"])
                    elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                        raise self._unusable(f"The model refused to answer: {excerpt(part['refusal'])}", status)
                kept.append(item)

        finish_reason = "stop"
        if data.get("status") not in (None, STATUS_COMPLETED):
            details = data.get("incomplete_details") if isinstance(data.get("incomplete_details"), dict) else {}
            reason = details.get("reason")
            finish_reason = reason if isinstance(reason, str) and reason else str(data.get("status"))
        reply = ModelReply(text="".join(texts), reasoning="\n\n".join(thoughts), finish_reason=finish_reason)
        if not texts and not reply.cut_off:
            why = f" (status: {data.get('status')})" if data.get("status") else ""
            if thoughts:
                why += "; it only produced reasoning"
            raise self._unusable(f"The model's answer has no text content{why}", status)
        self._memory.remember(reply.text, kept)

        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        input_details = usage.get("input_tokens_details") if isinstance(usage.get("input_tokens_details"), dict) else {}
        output_details = (
            usage.get("output_tokens_details") if isinstance(usage.get("output_tokens_details"), dict) else {}
        )
        reply.tokens_in = int_or_none(usage.get("input_tokens"))
        reply.tokens_out = int_or_none(usage.get("output_tokens"))
        reply.cached_tokens_in = int_or_none(input_details.get("cached_tokens"))
        reply.reasoning_tokens = int_or_none(output_details.get("reasoning_tokens"))
        reply.http_status = status
        reply.reasoning_items = kept
        return reply


def _reasoning_texts(item: dict) -> list[str]:
    """A reasoning item's summaries, else its reasoning text (servers running open
    models return the text itself)."""
    texts = []
    for key in ("summary", "content"):
        for part in item.get(key) or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
                texts.append(part["text"])
        if texts:
            break
    return texts
