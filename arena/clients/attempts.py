"""One attempt's failure in the arena's words, whatever library raised it.

`AttemptFailed` is what the retry loop (`arena.clients.http.HTTPModelClient._send`)
decides on; `AttemptReading` turns what went wrong in an attempt (an HTTP answer the
guard showed before reading its body, an SDK's, httpx2's or the guard's exception, a
2xx body that is not the provider's format) into one. A status, a body that is not JSON or a body too
large reads the same for every provider, and no message quotes the endpoint's address.
"""

from __future__ import annotations

import dataclasses
import json

import httpx2

from arena.clients.base import is_retryable_status, parse_retry_after
from arena.clients.errors import KINDS, ErrorKind, classify_status
from arena.clients.replies import JSONTooDeep, error_excerpt, excerpt, parse_json
from arena.clients.urlguard import ResponseTooLarge, UnsafeURL


class RedirectRefused(Exception):
    """A 3xx answer: the arena never follows one (every hop would need the guard)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


def causes(exc: BaseException):
    """`exc` and the exceptions it was raised from (an SDK wraps the transport's)."""
    seen = 0
    while exc is not None and seen < 8:
        yield exc
        exc = exc.__cause__ or exc.__context__
        seen += 1


def network_problem(exc: Exception) -> str:
    """What went wrong on the network, without the address (an OS error message quotes
    the host and port it could not reach)."""
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    for words, said in (
        ("refused", "connection refused"),
        ("reset", "connection reset"),
        ("disconnect", "the server closed the connection without an answer"),
        ("without sending", "the server closed the connection without an answer"),
        ("closed", "the server closed the connection"),
        ("name or service", "the host name could not be resolved"),
        ("resolve", "the host name could not be resolved"),
        ("ssl", "the TLS handshake failed"),
        ("certificate", "the TLS certificate was refused"),
        ("unreachable", "the network is unreachable"),
    ):
        if words in lowered:
            return said
    return type(exc).__name__


@dataclasses.dataclass(eq=False)
class AttemptFailed(Exception):
    """One attempt went wrong; the retry loop decides what happens next.

    `malformed` marks a 2xx answer whose body could not be read as the provider's
    format; those are retried at most `RetryPolicy.malformed_retries` times.
    """

    message: str
    _: dataclasses.KW_ONLY
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    malformed: bool = False
    kind: ErrorKind | None = None

    def __post_init__(self) -> None:
        super().__init__(self.message)
        if self.kind is None and self.malformed:
            self.kind = ErrorKind.BAD_ANSWER


_STATUS_HINTS = {
    401: " (check the API key)", 403: " (check the API key)", 404: " (check the base URL and the model name)",
}


class AttemptReading:
    """What a model client makes of a failed attempt; providers refine the status part.

    Expects `endpoint_label`, `too_big_hint`, `timeout_seconds`,
    `total_timeout_seconds` and `observer` on the client.
    """

    endpoint_label = "model endpoint"
    too_big_hint = ""
    observer = None

    def _status_hint(self, status: int) -> str:
        return _STATUS_HINTS.get(status, "")

    def _retry_after(self, status: int, headers: httpx2.Headers, body: bytes) -> float | None:
        return parse_retry_after(headers.get("retry-after"))

    def _status_failure(self, status: int, headers: httpx2.Headers, body: bytes) -> AttemptFailed:
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
            raise self._malformed(f"The {label}'s answer was not valid JSON: {excerpt(text, 120)}", status) from None
        if not isinstance(data, dict):
            raise self._malformed(f"The {label}'s answer was JSON but not an object", status)
        return data

    def _timed_out(self, answers: list, whole: bool) -> AttemptFailed:
        if self.observer is not None:
            self.observer(None, None, True)
        label = self.endpoint_label
        if not whole:
            return AttemptFailed(f"The {label} did not answer within {self.timeout_seconds:g} s", retryable=True,
                                 kind=ErrorKind.TIMEOUT)
        status = answers[-1].status_code if answers else None
        got = f" (HTTP {status} headers arrived, the body was still coming)" if status else ""
        return AttemptFailed(
            f"The {label} did not finish answering within {self.total_timeout_seconds:g} s, "
            f"the limit for one attempt{got}",
            retryable=True, status=status, kind=ErrorKind.TIMEOUT,
        )

    def _failure(self, exc: Exception, answers: list) -> AttemptFailed:
        """What an exception out of `_call` (an SDK's, httpx2's, the guard's) means, in
        the arena's words: a status answer is read from the answer itself."""
        label = self.endpoint_label
        for cause in causes(exc):
            failure = self._failure_of_cause(cause, answers)
            if failure is not None:
                return failure
        if answers:
            response = answers[-1]
            status = response.status_code
            if not 200 <= status < 300:
                return self._status_failure(status, response.headers, response.content)
            # A 2xx answer the SDK could not read: ours to say why, in the same words
            # for every provider.
            try:
                self._json_object(response.content, status)
            except AttemptFailed as failure:
                return failure
            return self._malformed(f"The {label}'s answer is not in its documented format: "
                                   f"{excerpt(str(exc) or type(exc).__name__, 200)}", status)
        if isinstance(exc, (ValueError, TypeError)) and not isinstance(exc, json.JSONDecodeError):
            raise exc  # the request could not be built: the caller's messages are wrong
        return AttemptFailed(f"The request to the {label} failed: {type(exc).__name__}", retryable=False,
                             kind=ErrorKind.CONNECTION)

    def _failure_of_cause(self, cause: BaseException, answers: list) -> AttemptFailed | None:
        label = self.endpoint_label
        if isinstance(cause, AttemptFailed):
            return cause
        if isinstance(cause, RedirectRefused):
            return AttemptFailed(
                f"The {label} answered with a redirect (HTTP {cause.status}); the arena does not "
                "follow redirects, so give the final URL instead",
                retryable=False, status=cause.status, kind=ErrorKind.BAD_REQUEST,
            )
        if isinstance(cause, ResponseTooLarge):
            status = answers[-1].status_code if answers else None
            return AttemptFailed(
                f"The response was larger than the {cause.cap:,} byte limit; "
                f"the arena stopped reading it{self.too_big_hint}",
                retryable=False, status=status, kind=ErrorKind.BAD_ANSWER,
            )
        if isinstance(cause, UnsafeURL):
            return AttemptFailed(f"The {label}'s address was refused: {cause.reason}", retryable=False,
                                 kind=ErrorKind.URL_REFUSED)
        if isinstance(cause, httpx2.TimeoutException):
            return self._timed_out(answers, whole=False)
        if isinstance(cause, (httpx2.NetworkError, httpx2.RemoteProtocolError)):
            return AttemptFailed(f"Could not talk to the {label}: {network_problem(cause)}", retryable=True,
                                 kind=ErrorKind.CONNECTION)
        if isinstance(cause, httpx2.DecodingError):
            return self._malformed("The response body could not be decoded",
                                   answers[-1].status_code if answers else None)
        return None
