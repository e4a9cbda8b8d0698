"""A client for any OpenAI-compatible chat completions endpoint (vLLM, llama.cpp,
Ollama, OpenRouter, OpenAI itself...).

The transport, the retries, the size cap and the error wording live in
`arena.clients.http.HTTPModelClient`; this module only builds the request and reads
the answer. See `arena.clients.base` for what is retried and how long the waits are.
"""

from __future__ import annotations

import json
from typing import Any


from arena.clients.base import ModelReply
from arena.clients.http import DEFAULT_MAX_RESPONSE_BYTES, ChatCompletionClient, check_base_url
from arena.clients.replies import error_excerpt, excerpt, int_or_none
from arena.clients.chat_messages import content_text
from arena.clients.reasoning import is_cut_off, opened_by_template, split_think

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "OpenAICompatibleClient"]


def _reasoning_field(message: dict) -> str:
    """The reasoning a server returned beside the answer: ``reasoning_content`` (vLLM,
    llama.cpp, DeepSeek) or ``reasoning`` (OpenRouter, Ollama), else OpenRouter's
    ``reasoning_details`` texts and summaries."""
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    details = message.get("reasoning_details")
    if isinstance(details, list):
        texts = [
            detail.get("text") or detail.get("summary")
            for detail in details
            if isinstance(detail, dict)
        ]
        return "\n\n".join(text for text in texts if isinstance(text, str) and text)
    return ""


class OpenAICompatibleClient(ChatCompletionClient):
    """Calls POST {base_url}/chat/completions (non-streaming) with retries.

    `base_url` is the API root, e.g. "http://host:8000/v1" (a URL that already ends in
    "/chat/completions" is used as is). An empty `api_key` sends no Authorization
    header. `timeout_seconds` is the connect and read (and write/pool) timeout; the
    whole of one attempt is also bounded by `total_timeout_seconds` (default twice
    `timeout_seconds`) so a server that trickles bytes cannot hold an episode forever.
    `temperature` / `max_tokens` of None are left out of the request. The connection
    options (timeouts, retries, size cap, transport, loopback…) are those of
    `HTTPModelClient` and are passed through as keywords.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str = "",
        model: str = "",
        *,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        **connection,
    ) -> None:
        self._api_key = api_key or ""
        base_url = check_base_url(base_url, [self._api_key])
        trimmed = base_url.rstrip("/")
        url = trimmed if trimmed.endswith("/chat/completions") else trimmed + "/chat/completions"
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        # Learned from the answers (see `_parse`): the chat template opens <think>.
        self._template_opens_think = False
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        super().__init__(
            url,
            headers=headers,
            secrets=[self._api_key],
            **connection,
        )

    # --- the call ----------------------------------------------------------------------

    def _payload(self, messages: list[dict], max_tokens: int | None = None) -> bytes:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        max_tokens = self.max_tokens if max_tokens is None else max_tokens
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        body.update(self.extra_body)
        return json.dumps(body, ensure_ascii=False).encode("utf-8")


    def _parse(self, body: bytes, status: int) -> ModelReply:
        data = self._json_object(body, status)

        choices = data.get("choices")
        if not choices:
            if data.get("error") is not None:
                # Some gateways report upstream failures as a 200 carrying an error object.
                raise self._malformed(f"The model endpoint reported an error: {error_excerpt(body)}", status)
            raise self._unusable("The model endpoint answered without any choices (empty 'choices' list)", status)
        if not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise self._unusable("The model endpoint's 'choices' field is not a list of objects", status)
        choice = choices[0]
        message = choice.get("message")
        finish_reason = choice.get("finish_reason")
        finish_reason = finish_reason if isinstance(finish_reason, str) else None
        if not isinstance(message, dict):
            raise self._unusable("The first choice in the answer has no 'message'", status)

        reasoning = _reasoning_field(message)
        text = content_text(message.get("content"))
        if text is not None:
            # A server without a reasoning parser leaves <think> blocks in the answer.
            # When the chat template opens the block in the prompt, the answer holds
            # only its end; one cut off while thinking holds no tag at all.
            self._template_opens_think = self._template_opens_think or opened_by_template(text)
            text, inline = split_think(
                text, unfinished_thinking=self._template_opens_think and is_cut_off(finish_reason)
            )
            reasoning = "\n\n".join(part for part in (reasoning, inline) if part)
        if not text and is_cut_off(finish_reason):
            text = ""  # the token limit came first: an "answer cut off" step, not a failure
        elif text is None:
            refusal = message.get("refusal")
            if isinstance(refusal, str) and refusal:
                raise self._unusable(f"The model refused to answer: {excerpt(refusal)}", status)
            why = f" (finish_reason: {finish_reason})" if finish_reason else ""
            if reasoning:
                why += "; it only produced reasoning"
            raise self._unusable(f"The model's answer has no text content{why}", status)

        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt_details = usage.get("prompt_tokens_details")
        completion_details = usage.get("completion_tokens_details")
        return ModelReply(
            text=text,
            reasoning=reasoning,
            finish_reason=finish_reason,
            tokens_in=int_or_none(usage.get("prompt_tokens")),
            tokens_out=int_or_none(usage.get("completion_tokens")),
            http_status=status,
            cached_tokens_in=(
                int_or_none(prompt_details.get("cached_tokens")) if isinstance(prompt_details, dict) else None
            ),
            reasoning_tokens=(
                int_or_none(completion_details.get("reasoning_tokens"))
                if isinstance(completion_details, dict)
                else None
            ),
        )
