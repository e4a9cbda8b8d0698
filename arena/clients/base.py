"""What every model client returns or raises, and when a failed call is tried again.

Retry decisions (RetryPolicy, is_retryable_status; applied in arena.clients.http):

* retried, with exponential backoff plus jitter: HTTP 408, 429 and 5xx (except a 5xx
  that says it can never succeed: a text-only model refusing an image, a prompt past the
  context window — see arena.clients.errors); timeouts
  (connect, read, write, pool, and the client's overall per-attempt deadline); network
  errors (connection refused or reset, the server closing without an answer);
* a ``Retry-After`` header (seconds or an HTTP date) replaces the computed backoff, and
  every wait is capped at ``max_wait_seconds`` (default 60 s);
* retried at most ``malformed_retries`` times (default 2), on top of the overall
  ``max_retries`` bound: a 200 response whose body is empty, is not JSON (or is JSON
  nested too deeply to read), is not a JSON object, or carries an ``error`` object instead of choices. Proxies and gateways in
  front of model servers do produce truncated or HTML bodies under load, so one or two
  more tries are worth it; more would only burn the submitter's quota on a server that
  is consistently broken;
* never retried: any other 4xx (400, 401, 403, 404, 422...), a 3xx (redirects are not
  followed, see arena.clients.urlguard), a body larger than the client's cap, a URL the guard
  refuses, and a well-formed answer that has no usable reply (empty ``choices``, no
  message content): the same request would get the same answer.

Secrets: a ModelCallError message is built from our own words plus short excerpts of
what the server said; the client passes its API key to `redact` before building it, so
neither the key nor an Authorization header can appear in str() or repr().
"""

from __future__ import annotations

import dataclasses
import email.utils
import json
import random
import re
import time
from datetime import timezone

from arena.clients.reasoning import is_cut_off

REDACTED = "[redacted]"


@dataclasses.dataclass
class ModelReply:
    """One successful model call."""

    text: str
    reasoning: str = ""  # the provider's reasoning/thinking text, if it returned any
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: float = 0.0  # wall time of the attempt that succeeded
    http_status: int | None = None
    attempts: int = 1
    # "" when the first attempt succeeded. When retries were needed the call still
    # succeeded, and this holds what went wrong on the last failed attempt (a note for
    # the episode log, not a failure).
    error: str = ""
    # Token counts are normalised across providers: tokens_in counts the whole prompt,
    # cached part included; cached_tokens_in is the part of tokens_in the provider
    # served from its prompt cache; tokens_out counts everything generated, reasoning
    # included; reasoning_tokens is the reasoning part of tokens_out. None = not reported.
    cached_tokens_in: int | None = None
    # The part of tokens_in written into the provider's prompt cache by this call, where
    # the provider bills such writes above the input price (Anthropic).
    cache_write_tokens_in: int | None = None
    reasoning_tokens: int | None = None
    # What the provider wants back with this answer when the conversation goes on (its
    # own format, opaque to the arena): Anthropic's signed thinking blocks, the
    # Responses API's encrypted reasoning items with the output message they came with.
    # Kept by the client that made the call, and stored with the step so that a client
    # of a resumed episode is given them back (ChatCompletionClient.recall).
    reasoning_items: list = dataclasses.field(default_factory=list)

    @property
    def cut_off(self) -> bool:
        """The answer ended because it reached the token limit (it may have no text at
        all: a reasoning model that spent the whole limit thinking)."""
        return is_cut_off(self.finish_reason)


class ModelCallError(Exception):
    """A model call that failed for good (retries exhausted or not worth retrying).

    `message` is meant for people (logs, the episode page); it never contains the API
    key. `attempts` is how many HTTP requests were made, `http_status` the status of
    the last response (None if none arrived), `retryable` whether the last failure
    was of a kind that is normally retried (i.e. retries ran out).
    """

    def __init__(
        self,
        message: str,
        *,
        attempts: int,
        http_status: int | None = None,
        retryable: bool = False,
        latency_ms: float | None = None,
        kind: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.attempts = attempts
        self.http_status = http_status
        self.retryable = retryable
        self.latency_ms = latency_ms
        # arena.clients.errors.ErrorKind of the failure, when it is known.
        self.kind = kind

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):  # picklable despite the keyword-only arguments
        return (
            _rebuild_model_call_error,
            (self.message, self.attempts, self.http_status, self.retryable, self.latency_ms, self.kind),
        )

    def __repr__(self) -> str:
        return (
            f"ModelCallError({self.message!r}, attempts={self.attempts}, "
            f"http_status={self.http_status})"
        )


def _rebuild_model_call_error(message, attempts, http_status, retryable, latency_ms, kind=None) -> ModelCallError:
    return ModelCallError(
        message, attempts=attempts, http_status=http_status, retryable=retryable, latency_ms=latency_ms, kind=kind
    )


#: How many leading characters of a secret make it recognisable: a word of an error
#: message that contains them is redacted whole, so an excerpt that cut the key short
#: (or quoted it with its own escaping) does not publish the part it kept.
RECOGNISABLE_PREFIX = 8

# The value of a credential header, however a library prints it ("Authorization:
# Bearer …", b'Bearer …', {'x-api-key': '…'}): secret whatever key it holds. A bare
# "bearer" in prose ("missing bearer token") is left alone.
_CREDENTIAL_VALUE = re.compile(
    r"""(?ix)
    ( \bauthorization['"]?\s*[:=]\s*['"]?(?:(?:bearer|basic|token)\s+)?
    | ['"]bearer\s+
    | \b(?:x-api-key|x-goog-api-key)['"]?\s*[:=]\s*['"]?
    )
    [^\s'",}]+
    """
)


def _written_forms(secret: str) -> set[str]:
    """`secret` as it is, and as Python's repr and a JSON encoder escape it (an HTTP
    library refusing a header quotes its bytes: a line break shows as a backslash-n)."""
    return {
        secret,
        secret.encode("unicode_escape").decode("ascii"),
        repr(secret.encode("utf-8", "backslashreplace"))[2:-1],
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
    }


def redact(text: str, *secrets: str | None) -> str:
    """`text` with each secret replaced by "[redacted]": the secret as written or
    escaped, any word that contains its first RECOGNISABLE_PREFIX characters, and the
    value of any Authorization / API-key header.

    Secrets shorter than 4 characters are left alone (they would garble the text and
    are not worth protecting); so is an empty one.
    """
    for secret in secrets:
        if not secret or len(secret) < 4:
            continue
        for form in sorted(_written_forms(secret), key=len, reverse=True):
            text = text.replace(form, REDACTED)
        prefix = re.escape(secret[:RECOGNISABLE_PREFIX])
        text = re.sub(rf"\S*{prefix}\S*", REDACTED, text)
    return _CREDENTIAL_VALUE.sub(lambda match: match.group(1) + REDACTED, text)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait according to a Retry-After header, or None if absent/unusable.

    Accepts delta-seconds ("120", also "1.5" which some servers send) and an HTTP date;
    a date in the past gives 0.
    """
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        if seconds != seconds or seconds in (float("inf"), float("-inf")):  # NaN / inf
            return None
        return max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now_ts = time.time() if now is None else now
    return max(0.0, when.timestamp() - now_ts)


RETRYABLE_STATUSES = frozenset({408, 429})


def is_retryable_status(status: int) -> bool:
    """429, 408 and every 5xx are worth another try; other statuses are not."""
    return status in RETRYABLE_STATUSES or 500 <= status <= 599


@dataclasses.dataclass
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter.

    The n-th retry (n = 1, 2, ...) waits ``backoff_base_seconds * 2**(n-1)`` scaled by a
    random factor in [0.5, 1.0] ("equal jitter", so concurrent episodes that failed
    together do not come back together), or what Retry-After asked for plus up to 10%
    jitter; never more than ``max_wait_seconds``.
    """

    max_retries: int = 3
    backoff_base_seconds: float = 1.0
    max_wait_seconds: float = 60.0
    malformed_retries: int = 2
    rng: random.Random = dataclasses.field(default_factory=random.Random, repr=False)

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.backoff_base_seconds < 0 or self.max_wait_seconds < 0:
            raise ValueError("waits must be >= 0")

    @property
    def max_attempts(self) -> int:
        return self.max_retries + 1

    def delay(self, retry_number: int, retry_after: float | None = None) -> float:
        """Seconds to sleep before retry number `retry_number` (1-based)."""
        if retry_after is not None:
            wait = retry_after + self.rng.uniform(0.0, 0.1 * retry_after)
        else:
            exponent = min(max(retry_number - 1, 0), 30)
            wait = self.backoff_base_seconds * (2**exponent) * self.rng.uniform(0.5, 1.0)
        return min(wait, self.max_wait_seconds)
