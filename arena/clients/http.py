"""The provider-independent half of every HTTP model client.

`HTTPModelClient` owns what does not depend on the wire format:

* one `httpx.AsyncClient` per client instance (a shared connection pool for all the
  episodes that play one model), sending through `arena.clients.urlguard.GuardedTransport`
  unless a test injects a transport, never following redirects, ignoring environment
  proxies, asking for an uncompressed body;
* the retry loop (see `arena.clients.base` for what is retried, the backoff, jitter
  and Retry-After rules) and the per-attempt deadline (`total_timeout_seconds`) that
  cuts a server trickling its answer a byte at a time;
* reading the body with a size cap, and the wording of every transport error;
* redaction: each secret the subclass registers is removed from every error message;
* normalising what came back before anything stores it (`normalise_reply`): text as
  valid Unicode without NULs, each field within its cap (MAX_*_CHARS), token counts as
  bounded non-negative integers or None, JSON too deep to read as a malformed answer.

A provider client subclasses it, builds the request body, and implements `_parse`
(body bytes of a 2xx answer -> ModelReply, or raise AttemptFailed via `_malformed` /
`_unusable`). Optional hooks: `_attempt_headers` (per-attempt headers, e.g. a fresh
signature), `_status_hint`, `_status_failure`, `_retry_after`.

What a reply becomes before it is stored is in `arena.clients.replies`; the readers of
OpenAI-style chat messages the other providers convert are in
`arena.clients.chat_messages`.
"""

from __future__ import annotations

import abc
import asyncio
import random
import time
from collections.abc import Iterable, Mapping

import httpx

from arena.clients.base import (
    ModelCallError,
    ModelReply,
    RetryPolicy,
    is_retryable_status,
    parse_retry_after,
    redact,
)
from arena.clients.errors import KINDS, ErrorKind, classify_status
from arena.clients.replies import (
    MAX_ERROR_CHARS,
    JSONTooDeep,
    capped_text,
    error_excerpt,
    excerpt,
    normalise_reply,
    parse_json,
)
from arena.clients.urlguard import GuardedTransport, UnsafeURL, parse_url

DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class AttemptFailed(Exception):
    """One attempt went wrong; the retry loop decides what happens next.

    `malformed` marks a 2xx answer whose body could not be read as the provider's
    format; those are retried at most `RetryPolicy.malformed_retries` times.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
        malformed: bool = False,
        kind: ErrorKind | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.malformed = malformed
        self.kind = kind or (ErrorKind.BAD_ANSWER if malformed else None)


def check_base_url(base_url: str, secrets: Iterable[str | None] = (), what: str = "model base URL") -> str:
    """`base_url` stripped, or ValueError("Invalid <what>: ...") if it is not an http(s)
    URL the arena could call (the DNS part of the check happens at connect time)."""
    base_url = (base_url or "").strip()
    try:
        parse_url(base_url)
    except UnsafeURL as exc:
        raise ValueError(f"Invalid {what}: {redact(str(exc), *secrets)}") from None
    return base_url


# --- the client ------------------------------------------------------------------------


class HTTPModelClient(abc.ABC):
    """A POST-JSON-get-JSON client with retries; subclasses speak one provider's format.

    `timeout_seconds` is the connect and read (and write/pool) timeout; the whole of one
    attempt is also bounded by `total_timeout_seconds` (default twice
    `timeout_seconds`) so a server that trickles bytes cannot hold an episode forever.
    `secrets` are redacted from every error message; `headers` are sent with every
    request (put credentials there, never in the URL).
    """

    #: How error messages name the other side ("The model endpoint answered HTTP 500").
    endpoint_label = "model endpoint"
    #: Appended to the "response too large" message.
    too_big_hint = " (is max_tokens very large?)"

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        secrets: Iterable[str | None] = (),
        timeout_seconds: float = 60.0,
        total_timeout_seconds: float | None = None,
        max_retries: int = 3,
        backoff_base_seconds: float = 1.0,
        max_wait_seconds: float = 60.0,
        malformed_retries: int = 2,
        allow_loopback: bool = False,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 256,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        self._url_parsed: tuple[str, httpx.URL] | None = None  # see _parsed_url
        # Told of every attempt's status and headers, or of its timeout
        # (arena.clients.limits.EndpointGate.observe paces the endpoint by them).
        self.observer = None
        self._secrets = tuple(secret for secret in secrets if secret)
        self.timeout_seconds = timeout_seconds
        self.total_timeout_seconds = total_timeout_seconds or 2 * timeout_seconds
        self.max_response_bytes = max_response_bytes
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
        all_headers = {
            "Accept": "application/json",
            # Ask for an uncompressed body so the size cap counts what is really read.
            "Accept-Encoding": "identity",
            "User-Agent": "the-arena/1",
        }
        all_headers.update(headers or {})
        # Requests go straight to the transport (see `_request`): httpx.AsyncClient's
        # per-request machinery (auth and redirect flows, event hooks, cookie merging,
        # stream wrappers) cost a model call more CPU than the transport itself. What of
        # it the arena relies on is done here: the same headers in the same order, the
        # endpoint's cookies kept and sent back, redirects answered and never followed
        # (every hop must be checked; see arena.clients.urlguard), no environment
        # proxies (they would bypass the guard).
        self._transport = transport
        # The guard's direct path (no httpx request and response objects) when the
        # connections are the lean transport's; any other transport gets httpx.Request.
        self._direct = bool(getattr(transport, "sends_direct", False))
        # httpx.AsyncClient's defaults updated with the arena's: only its
        # "Connection: keep-alive" is left of them, first, as it always was sent.
        self._headers = httpx.Headers({"Connection": "keep-alive"})
        self._headers.update(all_headers)
        self._merged_headers: tuple[tuple, tuple[httpx.Headers, bool]] | None = None  # see _request_headers
        self.cookies = httpx.Cookies()
        self._closed = False

    def __repr__(self) -> str:  # no secret here, ever
        model = getattr(self, "model", None)
        shown = f", model={model!r}" if model is not None else ""
        return f"{type(self).__name__}(url={self.url!r}{shown})"

    def set_timeout(self, seconds: float) -> None:
        """Change the per-attempt timeout for the next calls (arena.clients.limits
        adapts it to the endpoint's measured latency); the whole-attempt deadline keeps
        its ratio to it."""
        ratio = self.total_timeout_seconds / self.timeout_seconds if self.timeout_seconds else 2.0
        self.timeout_seconds = seconds
        self.total_timeout_seconds = seconds * ratio

    # --- lifecycle ---------------------------------------------------------------------

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self._transport.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    # --- hooks for subclasses ----------------------------------------------------------

    @abc.abstractmethod
    def _parse(self, body: bytes, status: int) -> ModelReply:
        """Turn a 2xx body into a reply, or raise `_malformed(...)` / `_unusable(...)`."""

    def _attempt_headers(self, payload: bytes) -> dict[str, str]:
        """Headers for one attempt (computed again for every retry)."""
        return {"Content-Type": "application/json"}

    def _status_hint(self, status: int) -> str:
        if status in (401, 403):
            return " (check the API key)"
        if status == 404:
            return " (check the base URL and the model name)"
        return ""

    def _retry_after(self, status: int, headers: httpx.Headers, body: bytes) -> float | None:
        return parse_retry_after(headers.get("retry-after"))

    def _status_failure(self, status: int, headers: httpx.Headers, body: bytes) -> AttemptFailed:
        """What a non-2xx, non-3xx answer means. A 5xx is normally worth another try,
        but not when the server says why it can never succeed (a text-only model
        refusing an image, a prompt longer than the context window)."""
        said = error_excerpt(body)
        kind = classify_status(status, said)
        retryable = is_retryable_status(status) and KINDS[kind].transient
        return AttemptFailed(
            f"The {self.endpoint_label} answered HTTP {status}{self._status_hint(status)}: {said}",
            retryable=retryable,
            status=status,
            retry_after=self._retry_after(status, headers, body) if retryable else None,
            kind=kind,
        )

    # --- helpers for _parse ------------------------------------------------------------

    @staticmethod
    def _malformed(what: str, status: int) -> AttemptFailed:
        """A 2xx answer that is not in the expected format: retried (a little)."""
        return AttemptFailed(what, retryable=True, status=status, malformed=True)

    @staticmethod
    def _unusable(what: str, status: int) -> AttemptFailed:
        """A well-formed answer without a usable reply: asking again would not help."""
        return AttemptFailed(what, retryable=False, status=status, kind=ErrorKind.BAD_ANSWER)

    def _json_object(self, body: bytes, status: int) -> dict:
        """The body as a JSON object, or a malformed-answer failure."""
        label = self.endpoint_label
        if not body.strip():
            raise self._malformed(f"The {label} answered HTTP {status} with an empty body", status)
        try:
            data = parse_json(body)
        except JSONTooDeep:
            raise self._malformed(f"The {label}'s answer was JSON nested too deeply to read", status) from None
        except ValueError:
            text = body.decode("utf-8", errors="replace")
            raise self._malformed(
                f"The {label}'s answer was not valid JSON: {excerpt(text, 120)}", status
            ) from None
        if not isinstance(data, dict):
            raise self._malformed(f"The {label}'s answer was JSON but not an object", status)
        return data

    # --- the call ----------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        """`text` without the secrets, cleaned and cut to what an error may hold (it is
        shown on pages and stored with steps and episodes)."""
        return capped_text(redact(text, *self._secrets), MAX_ERROR_CHARS)

    async def _send(self, payload: bytes) -> ModelReply:
        """POST `payload` to `self.url` with retries; the parsed reply or ModelCallError."""
        policy = self.policy
        attempts = 0
        malformed = 0
        last_problem = ""
        while True:
            attempts += 1
            started = time.perf_counter()
            try:
                reply = await self._attempt(payload)
            except AttemptFailed as failure:
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
                        self._redact(message),
                        attempts=attempts,
                        http_status=failure.status,
                        retryable=failure.retryable,
                        latency_ms=elapsed_ms,
                        kind=failure.kind,
                    ) from None
                last_problem = self._redact(failure.message)
                await asyncio.sleep(policy.delay(attempts, failure.retry_after))
                continue
            reply.latency_ms = (time.perf_counter() - started) * 1000.0
            reply.attempts = attempts
            if reply.error:  # the parser's own verdict (agent endpoints) comes first
                reply.error = self._redact(reply.error)
                if last_problem:
                    reply.error += f" (an earlier attempt failed: {last_problem})"
            else:
                reply.error = last_problem
            return normalise_reply(reply)

    async def _attempt(self, payload: bytes) -> ModelReply:
        label = self.endpoint_label
        status: int | None = None
        try:
            async with asyncio.timeout(self.total_timeout_seconds):
                response = await self._request(payload)
                try:
                    status = response.status_code
                    self._observe(status, response.headers)
                    if 300 <= status < 400:
                        location = response.headers.get("location", "")
                        where = f" to {excerpt(location, 200)}" if location else ""
                        raise AttemptFailed(
                            f"The {label} answered with a redirect (HTTP {status}{where}); "
                            "the arena does not follow redirects, so give the final URL instead",
                            retryable=False,
                            status=status,
                            kind=ErrorKind.BAD_REQUEST,
                        )
                    body = await self._read_capped(response)
                finally:
                    await response.aclose()
        except AttemptFailed:
            raise
        except UnsafeURL as exc:
            raise AttemptFailed(str(exc), retryable=False, kind=ErrorKind.URL_REFUSED) from None
        except httpx.TimeoutException:
            self._observe(None, None, timed_out=True)
            raise AttemptFailed(
                f"The {label} did not answer within {self.timeout_seconds:g} s", retryable=True,
                kind=ErrorKind.TIMEOUT,
            ) from None
        except TimeoutError:  # asyncio.timeout: the whole attempt took too long
            self._observe(None, None, timed_out=True)
            got = f" (HTTP {status} headers arrived, the body was still coming)" if status else ""
            raise AttemptFailed(
                f"The {label} did not finish answering within {self.total_timeout_seconds:g} s, "
                f"the limit for one attempt{got}",
                retryable=True,
                status=status,
                kind=ErrorKind.TIMEOUT,
            ) from None
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            detail = str(exc) or type(exc).__name__
            raise AttemptFailed(
                f"Could not talk to the {label}: {excerpt(detail, 200)}", retryable=True,
                kind=ErrorKind.CONNECTION,
            ) from None
        except httpx.DecodingError as exc:
            raise AttemptFailed(
                f"The response body could not be decoded: {excerpt(str(exc), 200)}",
                retryable=True,
                status=status,
                malformed=True,
            ) from None
        except httpx.HTTPError as exc:
            raise AttemptFailed(
                f"The request to the {label} failed: {excerpt(str(exc) or type(exc).__name__, 200)}",
                retryable=False,
                kind=ErrorKind.CONNECTION,
            ) from None

        if not 200 <= status < 300:
            raise self._status_failure(status, response.headers, body)
        return self._parse(body, status)

    async def _request(self, payload: bytes) -> httpx.Response:
        """POST `payload` through the transport: the request httpx.AsyncClient would
        build (its headers, then this attempt's, the cookie jar's ``Cookie``, then
        ``Host`` first and ``Content-Length`` last), its cookies kept, a redirect's
        ``Location`` read as httpx reads it (a malformed one is a protocol error) and
        never followed. The caller closes the response."""
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        seconds = self.timeout_seconds
        extensions = {"timeout": {"connect": seconds, "read": seconds, "write": seconds, "pool": seconds}}
        url = self._parsed_url()
        headers, plain = self._request_headers(self._attempt_headers(payload))
        if plain and payload and not self.cookies:
            # What httpx.Request adds to such headers, put in place at once: Host first,
            # Content-Length last (see httpx.Request._prepare), the body already read.
            lines = [(b"Host", url.netloc), *headers.raw, (b"Content-Length", b"%d" % len(payload))]
            if self._direct:
                return await self._request_direct(url, lines, payload, extensions)
            request = httpx.Request("POST", url, headers=lines, stream=httpx.ByteStream(payload), extensions=extensions)
            request.read()
        else:
            request = httpx.Request("POST", url, content=payload, headers=headers,
                                    cookies=self.cookies if self.cookies else None, extensions=extensions)
        response = await self._transport.handle_async_request(request)
        response.request = request
        return await self._answered(response, request)

    async def _request_direct(self, url: httpx.URL, lines: list, payload: bytes, extensions: dict):
        """`_request` through the guard's direct path (GuardedTransport.send_direct):
        the same request on the wire, no httpx.Request or httpx.Response built unless
        the answer sets a cookie or is encoded (then the ones `_request` builds)."""
        response = await self._transport.send_direct(url, lines, payload, extensions["timeout"])
        headers = response.headers
        if ("set-cookie" in headers or "set-cookie2" in headers or "content-encoding" in headers
                or response.has_redirect_location):
            request = httpx.Request("POST", url, headers=lines, stream=httpx.ByteStream(payload), extensions=extensions)
            return await self._answered(response.as_httpx(request), request)
        return response

    async def _answered(self, response: httpx.Response, request: httpx.Request) -> httpx.Response:
        """`response` with its cookies kept and a redirect's Location checked."""
        try:
            headers = response.headers
            # Without a Set-Cookie header the standard library's jar sets nothing, and
            # building its request and response shims costs more than the rest here.
            if "set-cookie" in headers or "set-cookie2" in headers:
                self.cookies.extract_cookies(response)
            if response.has_redirect_location:
                try:
                    httpx.URL(headers["location"])
                except httpx.InvalidURL as exc:
                    raise httpx.RemoteProtocolError(
                        f"Invalid URL in location header: {exc}.", request=request
                    ) from None
        except BaseException:
            await response.aclose()
            raise
        return response

    def _request_headers(self, attempt_headers: Mapping[str, str]) -> tuple[httpx.Headers, bool]:
        """The client's headers updated with this attempt's, as httpx merges them (an
        attempt header replaces the client's and goes after them), and whether they
        leave Host, Content-Length, Transfer-Encoding and Cookie to the request (then
        `_request` adds them itself). The same attempt headers at every call (most
        providers) are merged once."""
        key = tuple(attempt_headers.items())
        merged = self._merged_headers
        if merged is None or merged[0] != key:
            headers = httpx.Headers(self._headers)
            headers.update(attempt_headers)
            plain = not any(name in headers for name in ("host", "content-length", "transfer-encoding", "cookie"))
            merged = self._merged_headers = (key, (headers, plain))
        return merged[1]

    def _parsed_url(self) -> httpx.URL:
        """`self.url` parsed once, not at every call (parsing costs more than the rest
        of building the request)."""
        parsed = self._url_parsed
        if parsed is None or parsed[0] != self.url:
            parsed = self._url_parsed = (self.url, httpx.URL(self.url))
        return parsed[1]

    def _observe(self, status: int | None, headers, timed_out: bool = False) -> None:
        if self.observer is not None:
            self.observer(status, headers, timed_out)

    async def _read_capped(self, response: httpx.Response) -> bytes:
        cap = self.max_response_bytes
        too_big = (
            f"The response was larger than the {cap:,} byte limit; "
            f"the arena stopped reading it{self.too_big_hint}"
        )
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise AttemptFailed(too_big, retryable=False, status=response.status_code, kind=ErrorKind.BAD_ANSWER)
        chunks: list[bytes] = []
        size = 0
        # A body without Content-Encoding is the transport's bytes as they are: read
        # from its stream, not through httpx's decoder and chunker layers (the asked-for
        # identity encoding is the normal case; anything else is decoded by httpx).
        body = response.stream if "content-encoding" not in response.headers else response.aiter_bytes()
        async for chunk in body:
            size += len(chunk)
            if size > cap:
                raise AttemptFailed(too_big, retryable=False, status=response.status_code, kind=ErrorKind.BAD_ANSWER)
            chunks.append(chunk)
        return b"".join(chunks)


class ChatCompletionClient(HTTPModelClient):
    """A client that answers OpenAI-style chat messages; providers build the body."""

    @abc.abstractmethod
    def _payload(self, messages: list[dict], max_tokens: int | None = None) -> bytes:
        """The request body for `messages` (OpenAI chat format)."""

    #: Leading characters of the first message that never change (see `complete`).
    frozen_chars = 0

    def recall(self, text: str, items: list) -> None:
        """An answer of this conversation that an earlier client received (the episode
        resumed after a worker restart), with its ModelReply.reasoning_items, remembered
        as if this client had made the call, so later requests send what they would
        have. Only providers that want something given back keep it."""

    async def complete(self, messages: list[dict], *, max_tokens: int | None = None, frozen_chars: int = 0) -> ModelReply:
        """Send `messages` (content a string or a list of text / image_url parts) and
        return the reply, or raise ModelCallError. `max_tokens` overrides the client's
        own for this call (a prompt near the end of a context window leaves less room
        for the answer). `frozen_chars`: how many leading characters of the first
        message's text are the same at every call of the episode (a provider that
        caches only marked prefixes marks them). ValueError if the messages cannot be
        converted."""
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list of chat messages")
        self.frozen_chars = frozen_chars
        return await self._send(self._payload(messages, max_tokens))
