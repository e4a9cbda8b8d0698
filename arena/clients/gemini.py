"""A client for the Gemini API's generateContent method (non-streaming), through
Google's own SDK (`google-genai`), which builds the request
(POST {base_url}/v1beta/models/{model}:generateContent) and reads the typed
``GenerateContentResponse``.

The API key travels in the ``x-goog-api-key`` header, never in the URL (the ``?key=``
form), so it cannot end up in access logs, proxy logs or an error message quoting the
URL.

It takes the same OpenAI-style chat messages as `OpenAICompatibleClient.complete` and
converts them: system (and developer) messages become the system instruction; user
messages keep the role "user", assistant messages get the role "model"; text parts
become text parts; image parts must be ``data:<type>;base64,...`` URLs and become
inline-data parts (Gemini does not fetch arbitrary image URLs).

The reply's text is the concatenation of the text parts of the first candidate; parts
marked ``thought: true`` go to `ModelReply.reasoning` (and ``<think>`` blocks of an open
model's text too). Thought signatures (Gemini 3, and 2.5 with thinking) are sent back:
Google's guide to thought signatures asks for every signature received to be returned
exactly as received with the next turn's history (required for function calls, which
the arena does not make; recommended for plain text, to keep the model's reasoning
context). So an answer's parts that carry one are kept (`ModelReply.reasoning_items`) and
replace the text of the assistant turn that repeats the answer whole; a turn the
strategy rewrote (BALROG keeps only the action) goes as its own text, unsigned, since a
signature belongs to the parts it came with. An answer with thoughts and no text is an answer without an action
(one illegal step; cut off when it reached the limit). Token counts (see ModelReply):
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

import urllib.parse
from typing import Any

import httpx2
import pydantic
from google import genai
from google.genai import types

from arena.clients.base import ModelReply
from arena.clients.chat_messages import convert_parts, split_data_url, system_and_turns
from arena.clients.errors import ErrorKind
from arena.clients.http import AttemptFailed, ChatCompletionClient, check_base_url
from arena.clients.limits import reset_seconds
from arena.clients.reasoning import AnswerMemory, ThinkSplitter
from arena.clients.replies import error_message, int_or_none, parse_json, sum_or_none

__all__ = ["DEFAULT_BASE_URL", "GeminiClient", "to_gemini_contents"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
# finishReason values meaning "the answer was withheld", not "the model said nothing".
_WITHHELD = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"}
)


def _inline_image(url: str) -> types.Part:
    data_url = split_data_url(url)
    if data_url is None:
        raise ValueError("Gemini only accepts images inline: give them as base64 data: URLs")
    media_type, data = data_url
    try:  # the SDK's Blob reads the base64 itself
        return types.Part(inline_data=types.Blob(data=data, mime_type=media_type))
    except pydantic.ValidationError:
        raise ValueError("an image's data: URL is not valid base64") from None


def to_gemini_contents(
    messages: list[dict], memory: AnswerMemory | None = None
) -> tuple[str | None, list[types.Content]]:
    """(the system instruction or None, the SDK's ``contents``) for OpenAI-style chat
    messages. An assistant message that repeats one of the answers in `memory` whole
    goes back as the signed parts that answer came with (module docstring).

    Raises ValueError for a role or part the conversion does not know.
    """
    system, turns = system_and_turns(messages)
    texts = [(role, "".join(part.get("text") or "" for part in parts)) for role, parts in turns]
    earlier = memory.match_turns(texts) if memory is not None else [None] * len(turns)
    contents: list[types.Content] = []
    for (role, parts), found in zip(turns, earlier):
        signed, whole = found or ([], False)
        if signed and whole:
            converted = [types.Part.model_validate(part) for part in signed]
        else:
            converted = convert_parts(parts, lambda text: types.Part(text=text), _inline_image)
        if converted:
            contents.append(types.Content(role="user" if role == "user" else "model", parts=converted))
    if not contents:
        raise ValueError("there is no user or assistant message to send")
    return system or None, contents


def _retry_delay_from_body(body: bytes) -> float | None:
    """The ``retryDelay`` (a JSON Duration: "7s") of a google.rpc.RetryInfo detail in an
    error body, if any."""
    try:
        details = parse_json(body)["error"]["details"]
    except (ValueError, LookupError, TypeError):
        return None
    for detail in details if isinstance(details, list) else ():
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            delay = detail.get("retryDelay")
            return reset_seconds(delay) if isinstance(delay, str) and delay.endswith("s") else None
    return None


class _NoSyncCalls(httpx2.BaseTransport):
    """The SDK's synchronous client, which the arena never uses: it is given this
    transport so that nothing could ever leave the arena around the URL guard."""

    def handle_request(self, request):
        raise RuntimeError("the arena calls Gemini asynchronously only")


class GeminiClient(ChatCompletionClient):
    """Calls ``models.generate_content`` with retries.

    `base_url` is the API root ("https://generativelanguage.googleapis.com"); one that
    already ends in "/v1beta" or "/v1" keeps that version. `model` is e.g.
    "gemini-2.5-flash" ("models/..." and "tunedModels/..." names are accepted).
    `temperature` / `max_tokens` of None are left out of the generation config;
    `extra_body`'s ``generationConfig`` (the reasoning setting's ``thinkingConfig``) is
    merged into it. The connection options are those of `HTTPModelClient`.
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
        # The version is read from the path: a gateway's query string stays after the
        # route (the SDK joins its route onto the path alone).
        base = urllib.parse.urlsplit(check_base_url(base_url, [self._api_key], "Gemini base URL"))
        path, version = base.path.rstrip("/"), "v1beta"
        for suffix in ("/v1beta", "/v1"):
            if path.endswith(suffix):
                path, version = path[: -len(suffix)], suffix[1:]
                break
        model = (model or "").strip()
        if not model:
            raise ValueError("GeminiClient needs a model name")
        resource = model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self._think = ThinkSplitter()
        # The signed parts of this client's answers (a client serves one episode).
        self._answers = AnswerMemory()
        self._root = urllib.parse.urlunsplit(base._replace(path=path + "/", fragment=""))
        self._version = version
        url = urllib.parse.urlunsplit(base._replace(path=f"{path}/{version}/{resource}:generateContent", fragment=""))
        super().__init__(url, secrets=[self._api_key], **connection)

    def _sdk(self, http: httpx2.AsyncClient) -> genai.Client:
        # The SDK insists on a key; an endpoint without one (a proxy holding it) gets
        # none on the wire.
        headers = {} if self._api_key else {"x-goog-api-key": ""}
        return genai.Client(
            api_key=self._api_key or "no-key",
            http_options=types.HttpOptions(
                base_url=self._root, api_version=self._version, headers=headers,
                httpx_async_client=http, httpx_client=httpx2.Client(transport=_NoSyncCalls()),
            ),
        )

    def _status_failure(self, status: int, headers: httpx2.Headers, body: bytes) -> AttemptFailed:
        failure = super()._status_failure(status, headers, body)
        if status == 400 and (b"API_KEY_INVALID" in body or b"API key not valid" in body):
            # Gemini reports a bad key as a 400, not a 401.
            failure.message = failure.message.replace("HTTP 400:", "HTTP 400 (check the API key):", 1)
            failure.kind = ErrorKind.AUTH
        return failure

    def _retry_after(self, status: int, headers: httpx2.Headers, body: bytes) -> float | None:
        from_header = super()._retry_after(status, headers, body)
        return from_header if from_header is not None else _retry_delay_from_body(body)

    def _request(self, messages: list[dict], max_tokens: int | None = None) -> dict:
        instruction, contents = to_gemini_contents(messages, self._answers)
        config: dict[str, Any] = {}
        if instruction is not None:
            config["system_instruction"] = instruction
        if self.temperature is not None:
            config["temperature"] = self.temperature
        max_tokens = self.max_tokens if max_tokens is None else max_tokens
        if max_tokens is not None:
            config["max_output_tokens"] = max_tokens
        extra = self.extra_body.get("generationConfig")
        if isinstance(extra, dict):
            config.update(extra)
        return {"model": self.model, "contents": contents, "config": config}

    async def _call(self, request: dict):
        config = types.GenerateContentConfig(
            **request["config"], http_options=types.HttpOptions(timeout=int(self.timeout_seconds * 1000))
        )
        return await self.sdk.aio.models.generate_content(
            model=request["model"], contents=request["contents"], config=config
        )

    def _parse(self, response, data: dict, status: int) -> ModelReply:
        candidates = getattr(response, "candidates", None)
        if data.get("error") is not None and not candidates:
            raise self._malformed(f"The Gemini API reported an error: {error_message(data)}", status)
        if not candidates:
            feedback = getattr(response, "prompt_feedback", None)
            reason = getattr(feedback, "block_reason", None)
            if reason:
                detail = getattr(feedback, "block_reason_message", None)
                detail = f": {detail}" if isinstance(detail, str) and detail else ""
                raise self._unusable(
                    f"The Gemini API blocked the prompt (promptFeedback.blockReason: {_name(reason)}){detail}", status
                )
            raise self._unusable("The Gemini API answered without any candidates (empty 'candidates')", status)

        candidate = candidates[0]
        finish_reason = _name(candidate.finish_reason) if candidate.finish_reason is not None else None
        parts = (candidate.content.parts if candidate.content is not None else None) or []
        texts: list[str] = []
        thoughts: list[str] = []
        for part in parts:
            if isinstance(part.text, str):
                (thoughts if part.thought is True else texts).append(part.text)
        if not texts and finish_reason in _WITHHELD:
            raise self._unusable(f"The Gemini API withheld the answer (finishReason: {finish_reason})", status)
        text, reasoning = self._think.split("".join(texts), finish_reason, "".join(thoughts))
        # The answer as it came, less the unsigned thought summaries: what goes back.
        signed = [part.model_dump(mode="json", exclude_none=True, by_alias=True)
                  for part in parts if part.thought is not True or part.thought_signature]
        if not any(part.thought_signature for part in parts):
            signed = []
        self._answers.remember(text, signed)

        usage = response.usage_metadata
        thoughts_count = int_or_none(getattr(usage, "thoughts_token_count", None))
        return ModelReply(
            text=text,
            reasoning=reasoning,
            finish_reason=finish_reason,
            tokens_in=int_or_none(getattr(usage, "prompt_token_count", None)),
            tokens_out=sum_or_none(getattr(usage, "candidates_token_count", None), thoughts_count),
            http_status=status,
            cached_tokens_in=int_or_none(getattr(usage, "cached_content_token_count", None)),
            reasoning_tokens=thoughts_count,
            reasoning_items=signed,
        )


def _name(value) -> str:
    """An SDK enum's wire name ("MAX_TOKENS"), or the string the server sent."""
    return getattr(value, "value", None) or str(value)

