"""A client for Anthropic's Messages API (``messages.create``, non-streaming), through
Anthropic's own SDK (`anthropic`), which builds the request and reads the typed
``Message``.

It takes the same OpenAI-style chat messages as `OpenAICompatibleClient.complete` and
converts them: system (and developer) messages become the top-level ``system`` text;
user and assistant messages keep their role; text parts become text blocks; image parts
with a ``data:<type>;base64,...`` URL become base64 image blocks (an http(s) image URL
becomes a URL image source).

The reply's text is the concatenation of its "text" content blocks; "thinking" blocks
go to `ModelReply.reasoning`. Prompt caching: the system text and the frozen prefix of
the first user message (`ChatCompletionClient.complete`'s `frozen_chars`: LMAct's
preamble and demonstrations, BALROG's instructions) are marked with ``cache_control``,
since Anthropic caches nothing else. Signed thinking blocks (and redacted ones) are kept by
the client and sent back before the text of their answer when the conversation goes
on, as extended thinking wants them. An answer that reached max_tokens while still
thinking is a reply with no text (an "answer cut off" step), and one that only thought
is an answer without an action (one illegal step): neither is a failure. Token counts
(see ModelReply): `tokens_in` is the whole prompt, i.e. ``input_tokens`` plus the cache-read and cache-write counts, which
Anthropic reports separately; `cached_tokens_in` is ``cache_read_input_tokens``;
`tokens_out` is ``output_tokens`` (thinking included; Anthropic does not report the
thinking part on its own, so `reasoning_tokens` stays None).

Retries follow arena.clients.base: 429 and every 5xx, including Anthropic's 529
("overloaded"), honouring Retry-After. A 200 whose body is an error object (the API
does that when it is overloaded mid-request) counts as a malformed answer.
"""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2

from anthropic.types import Message

from arena.clients.base import ModelReply
from arena.clients.chat_messages import convert_parts, split_data_url, system_and_turns
from arena.clients.sdk_reading import sdk_json
from arena.clients.http import ChatCompletionClient, check_base_url
from arena.clients.openai_compat import api_root
from arena.clients.reasoning import AnswerMemory, ThinkSplitter
from arena.clients.attempts import AttemptFailed
from arena.clients.errors import ErrorKind, classify_status
from arena.clients.replies import error_message, int_or_none, parse_json, sum_or_none

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_BASE_URL", "AnthropicClient", "to_anthropic_messages"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096  # the API requires max_tokens; used when the caller gives None
# Answers whose thinking blocks a client keeps for the turns that follow (more than any
# history window the chat suites keep).
REMEMBERED_ANSWERS = 256


def _text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def _image_block(url: str) -> dict:
    data_url = split_data_url(url)
    if data_url is None:
        return {"type": "image", "source": {"type": "url", "url": url}}
    media_type, data = data_url
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


EPHEMERAL = {"type": "ephemeral"}


def mark_frozen_prefix(content: str | list[dict], frozen_chars: int) -> str | list[dict]:
    """`content` (a user message's) as blocks with a cache breakpoint at the end of its
    first `frozen_chars` characters of text (a text block split there if need be), so
    Anthropic caches the part that is the same at every call of the episode. Unchanged
    when nothing is frozen."""
    if frozen_chars <= 0:
        return content
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else [dict(b) for b in content]
    seen = 0
    for index, block in enumerate(blocks):
        if block.get("type") != "text":
            continue
        text, cut = block["text"], frozen_chars - seen  # cut > 0: an earlier block would have ended it
        if len(text) >= cut:
            if cut < len(text):
                blocks[index:index + 1] = [{"type": "text", "text": text[:cut]}, {"type": "text", "text": text[cut:]}]
            blocks[index]["cache_control"] = EPHEMERAL
            return blocks
        seen += len(text)
    blocks[-1]["cache_control"] = EPHEMERAL
    return blocks


def to_anthropic_messages(messages: list[dict]) -> tuple[str, list[dict]]:
    """(system text, Messages API ``messages``) for OpenAI-style chat messages.

    Raises ValueError for a role or part the conversion does not know.
    """
    system, turns = system_and_turns(messages)
    converted: list[dict] = []
    for role, parts in turns:
        blocks = convert_parts(parts, _text_block, _image_block)
        if not blocks:
            continue  # the API refuses empty content
        one_text = len(blocks) == 1 and blocks[0]["type"] == "text"
        converted.append({"role": role, "content": blocks[0]["text"] if one_text else blocks})
    if not converted:
        raise ValueError("there is no user or assistant message to send")
    return system, converted


class AnthropicClient(ChatCompletionClient):
    """Calls ``messages.create`` with retries.

    `base_url` is the API root ("https://api.anthropic.com"); a URL that already ends
    in "/v1" or "/v1/messages" is accepted too. The key goes in the ``x-api-key``
    header (the header Anthropic documents, which the gateways in front of it read).
    `max_tokens` of None sends DEFAULT_MAX_TOKENS (the API requires a value);
    `temperature` of None is left out (needed with extended thinking, which
    `extra_body={"thinking": {...}}` turns on). The connection options are those of
    `HTTPModelClient`.
    """

    endpoint_label = "Anthropic API"
    reply_type = Message

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
        root, query = api_root(check_base_url(base_url, [self._api_key], "Anthropic base URL"), "/v1/messages", "/v1")
        self.model = model
        self.temperature = temperature
        self.max_tokens = DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens
        self.extra_body = dict(extra_body or {})
        # The signed thinking blocks of this client's answers (a client serves one
        # episode: its conversation goes back to the API with them).
        self._answers = AnswerMemory(REMEMBERED_ANSWERS)
        self._think = ThinkSplitter()
        self._root, self._query = root._replace(query="").geturl(), query
        super().__init__(root._replace(path=root.path + "/v1/messages").geturl(), secrets=[self._api_key], **connection)

    def _sdk(self, http: httpx2.AsyncClient) -> anthropic.AsyncAnthropic:
        key = {"x-api-key": self._api_key} if self._api_key else {"X-Api-Key": anthropic.Omit()}
        headers = {"anthropic-version": ANTHROPIC_VERSION, "Authorization": anthropic.Omit(), **key}
        return anthropic.AsyncAnthropic(
            api_key=None, auth_token=None, base_url=self._root, default_query=self._query or None, http_client=http,
            max_retries=0, default_headers=headers,
        )

    def _status_hint(self, status: int) -> str:
        return " (overloaded)" if status == 529 else super()._status_hint(status)

    def _status_failure(self, status: int, headers: httpx2.Headers, body: bytes) -> AttemptFailed:
        """Anthropic names an error's cause in ``error.details.error_code`` (its SDK's
        typed errors branch on it). A spend limit reached comes as a 429, like a rate
        limit, but lifts only when the month or the contract turns: said by its code
        and never retried (arena.clients.errors.ErrorKind.SPEND_LIMIT ends the run)."""
        failure = super()._status_failure(status, headers, body)
        code = _error_code(body)
        if code and classify_status(status, code) is ErrorKind.SPEND_LIMIT:
            failure.message += f" (error code {code})"
            failure.kind, failure.retryable, failure.retry_after = ErrorKind.SPEND_LIMIT, False, None
        return failure

    def _request(self, messages: list[dict], max_tokens: int | None = None) -> dict:
        system, converted = to_anthropic_messages(messages)
        converted = self._with_thinking(converted)
        if converted[0]["role"] == "user" and self.frozen_chars:
            # Anthropic caches only what cache_control marks: the frozen prefix.
            converted[0] = {**converted[0], "content": mark_frozen_prefix(converted[0]["content"], self.frozen_chars)}
        request: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens or self.max_tokens,
                                   "messages": converted}
        if system:
            # The system text is the same at every call of an episode: cached too.
            request["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
        # The SDK no longer names the sampling settings; the API still takes them.
        extra = {"temperature": self.temperature} if self.temperature is not None else {}
        extra.update(self.extra_body)
        if extra:
            request["extra_body"] = extra
        return request

    async def _call(self, request: dict):
        return await self.sdk.messages.with_raw_response.create(**request, timeout=self.timeout)

    def _with_thinking(self, converted: list[dict]) -> list[dict]:
        """The messages with each earlier answer's signed thinking blocks put back
        before its text, as the API wants them (it checks the signature, and thinking
        models reason on from them)."""
        turns = [(m["role"], m["content"] if isinstance(m["content"], str) else "") for m in converted]
        result = []
        for message, found in zip(converted, self._answers.match_turns(turns)):
            if found is not None and found[0] and isinstance(message["content"], str):
                message = {"role": "assistant", "content": [*found[0], {"type": "text", "text": message["content"]}]}
            result.append(message)
        return result

    def _parse(self, message, data: dict, status: int) -> ModelReply:
        if data.get("type") == "error" or (data.get("error") is not None and "content" not in data):
            raise self._malformed(f"The Anthropic API reported an error: {error_message(data)}", status)
        stop_reason = message.stop_reason if isinstance(getattr(message, "stop_reason", None), str) else None
        content = getattr(message, "content", None)
        if content is None:
            raise self._malformed("The Anthropic API's answer has no 'content' field", status)
        if not isinstance(content, list):
            raise self._unusable("The Anthropic API's 'content' field is not a list", status)

        texts: list[str] = []
        thoughts: list[str] = []
        signed: list[dict] = []
        for block in content:
            kind = getattr(block, "type", None)
            if kind == "text" and isinstance(getattr(block, "text", None), str):
                texts.append(block.text)
            elif kind == "thinking" and isinstance(getattr(block, "thinking", None), str):
                thoughts.append(block.thinking)
                if isinstance(getattr(block, "signature", None), str):
                    signed.append(sdk_json(block))
            elif kind == "redacted_thinking" and isinstance(getattr(block, "data", None), str):
                signed.append(sdk_json(block))
        if not texts and stop_reason == "refusal":
            raise self._unusable("The model refused to answer (stop_reason: refusal)", status)
        text, reasoning = self._think.split("".join(texts), stop_reason, "\n\n".join(thoughts))

        self._answers.remember(text, signed)
        usage = getattr(message, "usage", None)
        cache_write = getattr(usage, "cache_creation_input_tokens", None)
        cache_read = getattr(usage, "cache_read_input_tokens", None)
        return ModelReply(
            text=text,
            reasoning=reasoning,
            finish_reason=stop_reason,
            tokens_in=sum_or_none(getattr(usage, "input_tokens", None), cache_write, cache_read),
            tokens_out=int_or_none(getattr(usage, "output_tokens", None)),
            http_status=status,
            cached_tokens_in=int_or_none(cache_read),
            cache_write_tokens_in=int_or_none(cache_write),
            reasoning_items=signed,
        )


def _error_code(body: bytes) -> str | None:
    try:
        data = parse_json(body)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    code = details.get("error_code") if isinstance(details, dict) else None
    return code if isinstance(code, str) else None
