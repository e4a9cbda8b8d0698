"""A client for the Gemini API's generateContent method (non-streaming).

POST {base_url}/v1beta/models/{model}:generateContent, with the API key in the
``x-goog-api-key`` header. The key is never put in the URL (the ``?key=`` form), so it
cannot end up in access logs, proxy logs or an error message quoting the URL.

It takes the same OpenAI-style chat messages as `OpenAICompatibleClient.complete` and
converts them: system (and developer) messages become ``systemInstruction``; user
messages keep the role "user", assistant messages get the role "model"; text parts
become text parts; image parts must be ``data:<type>;base64,...`` URLs and become
``inlineData`` parts (Gemini does not fetch arbitrary image URLs).

The reply's text is the concatenation of the text parts of the first candidate; parts
marked ``thought: true`` go to `ModelReply.reasoning`. Token counts (see ModelReply):
`tokens_in` is ``promptTokenCount`` (which includes the cached part),
`cached_tokens_in` is ``cachedContentTokenCount``, `tokens_out` is
``candidatesTokenCount`` plus ``thoughtsTokenCount`` and `reasoning_tokens` is
``thoughtsTokenCount``.

A prompt Gemini blocks comes back as a 200 without candidates and a
``promptFeedback.blockReason``: that is reported as a clear error and not retried. For
a 429 without a Retry-After header the delay in the error's ``RetryInfo`` detail
(``"retryDelay": "7s"``) is used.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import httpx

from arena.clients.base import ModelReply, parse_retry_after
from arena.clients.errors import ErrorKind
from arena.clients.http import AttemptFailed, ChatCompletionClient, check_base_url
from arena.clients.replies import error_excerpt, int_or_none, parse_json, sum_or_none
from arena.clients.chat_messages import content_parts, image_url_of, split_data_url
from arena.clients.reasoning import is_cut_off

__all__ = ["DEFAULT_BASE_URL", "GeminiClient", "to_gemini_contents"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
# finishReason values meaning "the answer was withheld", not "the model said nothing".
_WITHHELD = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"}
)


def _part(part: dict) -> dict | None:
    kind = part.get("type")
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str):
            raise ValueError("a text part has no text")
        return {"text": text} if text else None
    if kind == "image_url":
        data_url = split_data_url(image_url_of(part))
        if data_url is None:
            raise ValueError("Gemini only accepts images inline: give them as base64 data: URLs")
        media_type, data = data_url
        return {"inlineData": {"mimeType": media_type, "data": data}}
    raise ValueError(f"unsupported content part type {kind!r}")


def to_gemini_contents(messages: list[dict]) -> tuple[dict | None, list[dict]]:
    """(``systemInstruction`` or None, ``contents``) for OpenAI-style chat messages.

    Raises ValueError for a role or part the conversion does not know.
    """
    system: list[str] = []
    contents: list[dict] = []
    for message in messages:
        if not isinstance(message, dict):
            raise ValueError("each message must be an object")
        role = message.get("role")
        parts = content_parts(message.get("content"))
        if role in ("system", "developer"):
            for part in parts:
                if part.get("type") != "text":
                    raise ValueError("a system message can only contain text parts")
                if part.get("text"):
                    system.append(part["text"])
            continue
        if role not in ("user", "assistant"):
            raise ValueError(f"unsupported message role {role!r}")
        converted = [p for p in (_part(part) for part in parts) if p is not None]
        if converted:
            contents.append({"role": "user" if role == "user" else "model", "parts": converted})
    if not contents:
        raise ValueError("there is no user or assistant message to send")
    instruction = {"parts": [{"text": "\n\n".join(system)}]} if system else None
    return instruction, contents


def _retry_delay_from_body(body: bytes) -> float | None:
    """The ``retryDelay`` of a google.rpc.RetryInfo detail in an error body, if any."""
    try:
        data = parse_json(body)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    if not isinstance(details, list):
        return None
    for detail in details:
        if not isinstance(detail, dict) or not str(detail.get("@type", "")).endswith("RetryInfo"):
            continue
        delay = detail.get("retryDelay")
        if isinstance(delay, str) and delay.endswith("s"):
            return parse_retry_after(delay[:-1])
    return None


class GeminiClient(ChatCompletionClient):
    """Calls POST {base_url}/v1beta/models/{model}:generateContent with retries.

    `base_url` is the API root ("https://generativelanguage.googleapis.com"); one that
    already ends in "/v1beta" or "/v1" keeps that version. `model` is e.g.
    "gemini-2.5-flash" ("models/..." and "tunedModels/..." names are accepted).
    `temperature` / `max_tokens` of None are left out of ``generationConfig``;
    `extra_body` is merged into the request (its ``generationConfig`` key, if any, into
    the generated one). The connection options are those of `HTTPModelClient`.
    """

    endpoint_label = "Gemini API"

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
        trimmed = check_base_url(base_url, [self._api_key], "Gemini base URL").rstrip("/")
        if not trimmed.endswith(("/v1beta", "/v1")):
            trimmed += "/v1beta"
        model = (model or "").strip()
        if not model:
            raise ValueError("GeminiClient needs a model name")
        resource = model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
        self.url_model = urllib.parse.quote(resource, safe="/-._~")
        url = f"{trimmed}/{self.url_model}:generateContent"
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        headers = {"x-goog-api-key": self._api_key} if self._api_key else {}
        super().__init__(
            url,
            headers=headers,
            secrets=[self._api_key],
            **connection,
        )

    def _status_failure(self, status: int, headers: httpx.Headers, body: bytes) -> AttemptFailed:
        failure = super()._status_failure(status, headers, body)
        if status == 400 and (b"API_KEY_INVALID" in body or b"API key not valid" in body):
            # Gemini reports a bad key as a 400, not a 401.
            failure.message = failure.message.replace("HTTP 400:", "HTTP 400 (check the API key):", 1)
            failure.kind = ErrorKind.AUTH
        return failure

    def _retry_after(self, status: int, headers: httpx.Headers, body: bytes) -> float | None:
        from_header = super()._retry_after(status, headers, body)
        return from_header if from_header is not None else _retry_delay_from_body(body)

    def _payload(self, messages: list[dict], max_tokens: int | None = None) -> bytes:
        instruction, contents = to_gemini_contents(messages)
        body: dict[str, Any] = {"contents": contents}
        if instruction is not None:
            body["systemInstruction"] = instruction
        config: dict[str, Any] = {}
        if self.temperature is not None:
            config["temperature"] = self.temperature
        max_tokens = self.max_tokens if max_tokens is None else max_tokens
        if max_tokens is not None:
            config["maxOutputTokens"] = max_tokens
        extra = dict(self.extra_body)
        if isinstance(extra.get("generationConfig"), dict):
            config.update(extra.pop("generationConfig"))
        if config:
            body["generationConfig"] = config
        body.update(extra)
        return json.dumps(body, ensure_ascii=False).encode("utf-8")


    def _parse(self, body: bytes, status: int) -> ModelReply:
        data = self._json_object(body, status)
        if data.get("error") is not None and not data.get("candidates"):
            raise self._malformed(f"The Gemini API reported an error: {error_excerpt(body)}", status)

        candidates = data.get("candidates")
        if not candidates:
            feedback = data.get("promptFeedback") if isinstance(data.get("promptFeedback"), dict) else {}
            reason = feedback.get("blockReason")
            if isinstance(reason, str) and reason:
                detail = feedback.get("blockReasonMessage")
                detail = f": {detail}" if isinstance(detail, str) and detail else ""
                raise self._unusable(
                    f"The Gemini API blocked the prompt (promptFeedback.blockReason: {reason}){detail}", status
                )
            raise self._unusable("The Gemini API answered without any candidates (empty 'candidates')", status)
        if not isinstance(candidates, list) or not isinstance(candidates[0], dict):
            raise self._unusable("The Gemini API's 'candidates' field is not a list of objects", status)

        candidate = candidates[0]
        finish_reason = candidate.get("finishReason")
        finish_reason = finish_reason if isinstance(finish_reason, str) else None
        content = candidate.get("content") if isinstance(candidate.get("content"), dict) else {}
        parts = content.get("parts") if isinstance(content.get("parts"), list) else []
        texts: list[str] = []
        thoughts: list[str] = []
        for part in parts:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                (thoughts if part.get("thought") is True else texts).append(part["text"])
        reasoning = "".join(thoughts)
        if not texts and is_cut_off(finish_reason):
            texts = [""]  # the token limit came first: an "answer cut off" step, not a failure
        elif not texts:
            why = f" (finishReason: {finish_reason})" if finish_reason else ""
            if finish_reason in _WITHHELD:
                raise self._unusable(f"The Gemini API withheld the answer{why}", status)
            if reasoning:
                why += "; it only produced thoughts"
            raise self._unusable(f"The model's answer has no text content{why}", status)

        usage = data.get("usageMetadata") if isinstance(data.get("usageMetadata"), dict) else {}
        thoughts_count = int_or_none(usage.get("thoughtsTokenCount"))
        return ModelReply(
            text="".join(texts),
            reasoning=reasoning,
            finish_reason=finish_reason,
            tokens_in=int_or_none(usage.get("promptTokenCount")),
            tokens_out=sum_or_none(usage.get("candidatesTokenCount"), thoughts_count),
            http_status=status,
            cached_tokens_in=int_or_none(usage.get("cachedContentTokenCount")),
            reasoning_tokens=thoughts_count,
        )
