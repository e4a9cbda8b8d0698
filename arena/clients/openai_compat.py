"""A client for any OpenAI-compatible chat completions endpoint (vLLM, llama.cpp,
Ollama, OpenRouter, OpenAI itself...).

One `httpx.AsyncClient` per client instance, so the many episodes that play one model
at the same time share a connection pool. Every request goes through
`arena.urlguard.GuardedTransport` (unless a test injects its own transport): the host is
resolved and checked at connect time and redirects are never followed. See
`arena.clients.base` for what is retried and how long the waits are.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import httpx

from arena.clients.base import (
    ModelCallError,
    ModelReply,
    RetryPolicy,
    is_retryable_status,
    parse_retry_after,
    redact,
)
from arena.urlguard import GuardedTransport, UnsafeURL, parse_url

DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024
_EXCERPT_CHARS = 300


class _AttemptFailed(Exception):
    """One attempt went wrong; the retry loop decides what happens next."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
        malformed: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.malformed = malformed


def _excerpt(text: str, limit: int = _EXCERPT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_excerpt(body: bytes) -> str:
    """The useful part of an error body: OpenAI's error.message if present."""
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        return _excerpt(text) if text.strip() else "(empty body)"
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return _excerpt(error["message"])
        if isinstance(error, str):
            return _excerpt(error)
    return _excerpt(text)


def _content_text(content: Any) -> str | None:
    """A message's content as text: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class OpenAICompatibleClient:
    """Calls POST {base_url}/chat/completions (non-streaming) with retries.

    `base_url` is the API root, e.g. "http://host:8000/v1" (a URL that already ends in
    "/chat/completions" is used as is). An empty `api_key` sends no Authorization
    header. `timeout_seconds` is the connect and read (and write/pool) timeout; the
    whole of one attempt is also bounded by `total_timeout_seconds` (default twice
    `timeout_seconds`) so a server that trickles bytes cannot hold an episode forever.
    `temperature` / `max_tokens` of None are left out of the request.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str = "",
        model: str = "",
        *,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        timeout_seconds: float = 60.0,
        max_retries: int = 3,
        allow_loopback: bool = False,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff_base_seconds: float = 1.0,
        max_wait_seconds: float = 60.0,
        malformed_retries: int = 2,
        total_timeout_seconds: float | None = None,
        max_connections: int = 256,
        extra_body: dict[str, Any] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        base_url = base_url.strip()
        try:
            parse_url(base_url)
        except UnsafeURL as exc:
            raise ValueError(f"Invalid model base URL: {redact(str(exc), api_key)}") from None
        trimmed = base_url.rstrip("/")
        self.url = trimmed if trimmed.endswith("/chat/completions") else trimmed + "/chat/completions"
        self._api_key = api_key or ""
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_seconds = timeout_seconds
        self.total_timeout_seconds = total_timeout_seconds or 2 * timeout_seconds
        self.max_response_bytes = max_response_bytes
        self.extra_body = dict(extra_body or {})
        self.policy = RetryPolicy(
            max_retries=max_retries,
            backoff_base_seconds=backoff_base_seconds,
            max_wait_seconds=max_wait_seconds,
            malformed_retries=malformed_retries,
            rng=rng or random.Random(),
        )

        limits = httpx.Limits(
            max_connections=max_connections,
            max_keepalive_connections=max(1, max_connections // 4),
            keepalive_expiry=30.0,
        )
        if transport is None:
            transport = GuardedTransport(allow_loopback, limits=limits)
        headers = {
            "Accept": "application/json",
            # Ask for an uncompressed body so the size cap counts what is really read.
            "Accept-Encoding": "identity",
            "User-Agent": "the-arena/1",
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        self._http = httpx.AsyncClient(
            transport=transport,
            headers=headers,
            timeout=httpx.Timeout(timeout_seconds),
            follow_redirects=False,  # every hop must be checked; see arena.urlguard
            trust_env=False,  # environment proxies would bypass the guard
        )

    def __repr__(self) -> str:  # no key here, ever
        return f"OpenAICompatibleClient(url={self.url!r}, model={self.model!r})"

    # --- lifecycle ---------------------------------------------------------------------

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> OpenAICompatibleClient:
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    # --- the call ----------------------------------------------------------------------

    def _payload(self, messages: list[dict]) -> bytes:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        body.update(self.extra_body)
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    async def complete(self, messages: list[dict]) -> ModelReply:
        """Send `messages` (OpenAI chat format; content a string or a list of text /
        image_url parts) and return the reply, or raise ModelCallError."""
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list of chat messages")
        payload = self._payload(messages)
        policy = self.policy
        attempts = 0
        malformed = 0
        last_problem = ""
        while True:
            attempts += 1
            started = time.perf_counter()
            try:
                reply = await self._attempt(payload)
            except _AttemptFailed as failure:
                elapsed_ms = (time.perf_counter() - started) * 1000.0
                if failure.malformed:
                    malformed += 1
                give_up = (
                    not failure.retryable
                    or attempts >= policy.max_attempts
                    or (failure.malformed and malformed > policy.malformed_retries)
                )
                if give_up:
                    message = failure.message
                    if failure.retryable:
                        message += f" (gave up after {attempts} attempt{'s' if attempts > 1 else ''})"
                    raise ModelCallError(
                        redact(message, self._api_key),
                        attempts=attempts,
                        http_status=failure.status,
                        retryable=failure.retryable,
                        latency_ms=elapsed_ms,
                    ) from None
                last_problem = redact(failure.message, self._api_key)
                await asyncio.sleep(policy.delay(attempts, failure.retry_after))
                continue
            reply.latency_ms = (time.perf_counter() - started) * 1000.0
            reply.attempts = attempts
            reply.error = last_problem
            return reply

    async def _attempt(self, payload: bytes) -> ModelReply:
        status: int | None = None
        try:
            async with asyncio.timeout(self.total_timeout_seconds):
                async with self._http.stream(
                    "POST",
                    self.url,
                    content=payload,
                    headers={"Content-Type": "application/json"},
                ) as response:
                    status = response.status_code
                    if 300 <= status < 400:
                        location = response.headers.get("location", "")
                        where = f" to {_excerpt(location, 200)}" if location else ""
                        raise _AttemptFailed(
                            f"The model endpoint answered with a redirect (HTTP {status}{where}); "
                            "the arena does not follow redirects, so give the final URL instead",
                            retryable=False,
                            status=status,
                        )
                    body = await self._read_capped(response)
        except _AttemptFailed:
            raise
        except UnsafeURL as exc:
            raise _AttemptFailed(str(exc), retryable=False) from None
        except (httpx.TimeoutException, TimeoutError):
            raise _AttemptFailed(
                f"The model endpoint did not answer within {self.timeout_seconds:g} s",
                retryable=True,
            ) from None
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            detail = str(exc) or type(exc).__name__
            raise _AttemptFailed(
                f"Could not talk to the model endpoint: {_excerpt(detail, 200)}", retryable=True
            ) from None
        except httpx.DecodingError as exc:
            raise _AttemptFailed(
                f"The response body could not be decoded: {_excerpt(str(exc), 200)}",
                retryable=True,
                status=status,
                malformed=True,
            ) from None
        except httpx.HTTPError as exc:
            raise _AttemptFailed(
                f"The request to the model endpoint failed: {_excerpt(str(exc) or type(exc).__name__, 200)}",
                retryable=False,
            ) from None

        if not 200 <= status < 300:
            retryable = is_retryable_status(status)
            hint = ""
            if status in (401, 403):
                hint = " (check the API key)"
            elif status == 404:
                hint = " (check the base URL and the model name)"
            raise _AttemptFailed(
                f"The model endpoint answered HTTP {status}{hint}: {_error_excerpt(body)}",
                retryable=retryable,
                status=status,
                retry_after=parse_retry_after(response.headers.get("retry-after")) if retryable else None,
            )
        return self._parse(body, status)

    async def _read_capped(self, response: httpx.Response) -> bytes:
        cap = self.max_response_bytes
        too_big = (
            f"The response was larger than the {cap:,} byte limit; "
            "the arena stopped reading it (is max_tokens very large?)"
        )
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise _AttemptFailed(too_big, retryable=False, status=response.status_code)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > cap:
                raise _AttemptFailed(too_big, retryable=False, status=response.status_code)
            chunks.append(chunk)
        return b"".join(chunks)

    def _parse(self, body: bytes, status: int) -> ModelReply:
        def malformed(what: str) -> _AttemptFailed:
            return _AttemptFailed(what, retryable=True, status=status, malformed=True)

        def unusable(what: str) -> _AttemptFailed:
            return _AttemptFailed(what, retryable=False, status=status)

        if not body.strip():
            raise malformed(f"The model endpoint answered HTTP {status} with an empty body")
        try:
            data = json.loads(body)
        except ValueError:
            text = body.decode("utf-8", errors="replace")
            raise malformed(
                f"The model endpoint's answer was not valid JSON: {_excerpt(text, 120)}"
            ) from None
        if not isinstance(data, dict):
            raise malformed("The model endpoint's answer was JSON but not an object")

        choices = data.get("choices")
        if not choices:
            if data.get("error") is not None:
                # Some gateways report upstream failures as a 200 carrying an error object.
                raise malformed(f"The model endpoint reported an error: {_error_excerpt(body)}")
            raise unusable("The model endpoint answered without any choices (empty 'choices' list)")
        if not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise unusable("The model endpoint's 'choices' field is not a list of objects")
        choice = choices[0]
        message = choice.get("message")
        finish_reason = choice.get("finish_reason")
        finish_reason = finish_reason if isinstance(finish_reason, str) else None
        if not isinstance(message, dict):
            raise unusable("The first choice in the answer has no 'message'")

        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        if not isinstance(reasoning, str):
            reasoning = ""
        text = _content_text(message.get("content"))
        if text is None:
            refusal = message.get("refusal")
            if isinstance(refusal, str) and refusal:
                raise unusable(f"The model refused to answer: {_excerpt(refusal)}")
            why = f" (finish_reason: {finish_reason})" if finish_reason else ""
            if reasoning:
                why += "; it only produced reasoning, so max_tokens may be too small"
            raise unusable(f"The model's answer has no text content{why}")

        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return ModelReply(
            text=text,
            reasoning=reasoning,
            finish_reason=finish_reason,
            tokens_in=_int_or_none(usage.get("prompt_tokens")),
            tokens_out=_int_or_none(usage.get("completion_tokens")),
            http_status=status,
        )
