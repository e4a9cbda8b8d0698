"""Agents that submitters host themselves: the arena POSTs each step to their URL.

Protocol "arena-agent/1"
------------------------

For every step the arena sends one HTTP POST with a JSON body (AGENT_REQUEST_SCHEMA)
and expects a JSON object back (AGENT_RESPONSE_SCHEMA)::

    {"action": "up", "reasoning": "the goal is above me"}

``action`` is the move, written as one of ``legal_actions``; ``reasoning`` is optional
and is shown on the episode page.

Signing: every request carries two headers,

    X-Arena-Timestamp: <unix seconds when the request was sent>
    X-Arena-Signature: sha256=<hex HMAC-SHA256 of f"{timestamp}.{raw body}">

keyed with the submission's signing secret. Agents should recompute the signature over
the raw body bytes (before parsing the JSON), compare in constant time, and refuse
timestamps older than a few minutes (`verify` below does all three; agent authors can
copy this module or import it). An agent that refuses a request should answer 401: the
arena then reports "agent rejected the arena's signature".

Retries: a request is retried (with the backoff rules of arena.clients.base) when no
complete answer came back: timeouts, connection errors, HTTP 408, 429 and 5xx. Each
retry is signed again with a fresh timestamp. Agents that keep state should treat a
repeated (episode.id, step) as the same step. An answer that did come back with a 2xx
status is the agent's move for this step and is never retried: if it is not JSON (or
JSON nested too deeply to read), not an object, or has no non-empty string "action", `act` returns a ModelReply with
``text=""`` and ``error`` saying what was wrong, which the arena records as an illegal
action (the episode goes on). The action and the reasoning are cleaned and capped like
every reply (arena.clients.replies.normalise_reply). Transport failures and other HTTP
errors raise ModelCallError, as for the model clients.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from typing import Any

import httpx2

from arena.clients.base import ModelReply
from arena.clients.errors import ErrorKind
from arena.clients.http import AttemptFailed, HTTPModelClient, check_base_url
from arena.clients.replies import JSONTooDeep, error_excerpt, excerpt, parse_json

__all__ = [
    "AGENT_PROTOCOL",
    "AGENT_REQUEST_SCHEMA",
    "AGENT_RESPONSE_SCHEMA",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "AgentEndpointClient",
    "sign",
    "verify",
]

AGENT_PROTOCOL = "arena-agent/1"
TIMESTAMP_HEADER = "X-Arena-Timestamp"
SIGNATURE_HEADER = "X-Arena-Signature"
SIGNATURE_PREFIX = "sha256="
DEFAULT_MAX_AGE_SECONDS = 300
DEFAULT_HISTORY_LIMIT = 20
DEFAULT_AGENT_MAX_RESPONSE_BYTES = 1024 * 1024
SIGNATURE_REJECTED = "agent rejected the arena's signature"

AGENT_REQUEST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://the-arena/schemas/arena-agent-1/request.json",
    "title": "Arena agent request (arena-agent/1)",
    "description": (
        "What the arena POSTs to a self-hosted agent for every step. Signed with the "
        "headers X-Arena-Timestamp and X-Arena-Signature (sha256=<hex HMAC-SHA256 of "
        "'<timestamp>.<raw body>' keyed with the submission's secret). Unknown fields "
        "may be added in later versions of the same protocol; ignore them."
    ),
    "type": "object",
    "required": [
        "protocol", "task", "suite", "episode", "step", "observation", "legal_actions", "instructions", "history",
    ],
    "properties": {
        "protocol": {"const": AGENT_PROTOCOL, "description": "Protocol name and version."},
        "task": {"type": "string", "description": "The task (game) id, e.g. 'lmact/gridworld'."},
        "suite": {"type": "string", "description": "The benchmark suite the task belongs to."},
        "episode": {
            "type": "object",
            "description": "The episode being played; (id, step) identifies a request.",
            "required": ["id", "seed"],
            "properties": {
                "id": {"type": "integer", "description": "The arena's episode id."},
                "seed": {"type": "integer", "description": "The seed the episode was started with."},
            },
        },
        "step": {"type": "integer", "minimum": 0, "description": "0-based index of this step."},
        "observation": {
            "type": "object",
            "required": ["text", "image_url"],
            "properties": {
                "text": {
                    "type": ["string", "null"],
                    "description": "The observation as text, if the format has one.",
                },
                "image_url": {
                    "type": ["string", "null"],
                    "description": "The observation as an image (a data: URL), if the format has one.",
                },
            },
        },
        "legal_actions": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The actions allowed now; the reply's action should be one of them.",
        },
        "instructions": {"type": "string", "description": "The task's rules and answer format, in prose."},
        "history": {
            "type": "array",
            "description": (
                f"The most recent earlier steps of this episode, oldest first (at most "
                f"{DEFAULT_HISTORY_LIMIT} by default)."
            ),
            "items": {
                "type": "object",
                "required": ["step", "observation_text", "action", "reward"],
                "properties": {
                    "step": {"type": "integer", "minimum": 0},
                    "observation_text": {"type": ["string", "null"]},
                    "action": {"type": "string", "description": "What the agent answered at that step."},
                    "reward": {"type": "number"},
                },
            },
        },
    },
}

_REQUIRED_FIELDS = AGENT_REQUEST_SCHEMA["required"]

AGENT_RESPONSE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://the-arena/schemas/arena-agent-1/response.json",
    "title": "Arena agent response (arena-agent/1)",
    "description": (
        "What the agent answers, with HTTP 200 and a JSON body. A reply that is not JSON "
        "or has no non-empty string 'action' is recorded as an illegal action."
    ),
    "type": "object",
    "required": ["action"],
    "properties": {
        "action": {"type": "string", "minLength": 1, "description": "The chosen action."},
        "reasoning": {"type": "string", "description": "Optional explanation, shown on the episode page."},
    },
}


# --- signing ---------------------------------------------------------------------------


def _as_bytes(value: str | bytes) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def sign(secret: str | bytes, timestamp: int | str, body: str | bytes) -> str:
    """The X-Arena-Signature value: "sha256=" + hex HMAC-SHA256, keyed with `secret`,
    of f"{timestamp}.{body}" (`body` exactly as sent on the wire)."""
    message = str(timestamp).encode("ascii") + b"." + _as_bytes(body)
    digest = hmac.new(_as_bytes(secret), message, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def verify(
    secret: str | bytes,
    timestamp: int | str,
    body: str | bytes,
    signature: str | bytes,
    max_age_seconds: float = DEFAULT_MAX_AGE_SECONDS,
    now: float | None = None,
) -> bool:
    """Whether `signature` (the X-Arena-Signature header) signs `body` at `timestamp`
    (the X-Arena-Timestamp header) with `secret`, and the timestamp is no further than
    `max_age_seconds` from `now` (either way: clocks drift). Constant-time comparison."""
    try:
        stamp = str(timestamp)
        sent_at = int(stamp)
        expected = sign(secret, stamp, body).encode("ascii")
    except (TypeError, ValueError, UnicodeEncodeError):
        return False
    current = time.time() if now is None else now
    fresh = abs(current - sent_at) <= max_age_seconds
    given = signature.encode("utf-8", "replace") if isinstance(signature, str) else bytes(signature)
    matches = hmac.compare_digest(expected, given.strip())
    return fresh and matches


# --- the client ------------------------------------------------------------------------


class AgentEndpointClient(HTTPModelClient):
    """Plays steps by POSTing arena-agent/1 requests to a submitter's agent.

    `url` is the agent's full URL (used as is); `secret` is the submission's signing
    secret (never sent, only used for the HMAC; removed from every error message).
    `history_limit` bounds the ``history`` list sent (the most recent steps are kept).
    `clock` (returning unix seconds) exists for tests. The connection options (timeouts,
    retries, transport, ...) are those of `HTTPModelClient`.
    """

    endpoint_label = "agent endpoint"
    too_big_hint = ""

    def __init__(
        self,
        url: str,
        secret: str,
        *,
        history_limit: int = DEFAULT_HISTORY_LIMIT,
        max_age_seconds: float = DEFAULT_MAX_AGE_SECONDS,
        clock: Callable[[], float] | None = None,
        **connection,
    ) -> None:
        if not isinstance(secret, str) or not secret:
            raise ValueError("an agent endpoint needs a signing secret")
        if history_limit < 0:
            raise ValueError("history_limit must be >= 0")
        self._secret = secret
        url = check_base_url(url, [secret], "agent URL")
        self.history_limit = history_limit
        self.max_age_seconds = max_age_seconds
        self._clock = clock or time.time
        # An agent answers one step, not a long generation: shorter waits than a model's.
        options = {"timeout_seconds": 30.0, "max_retries": 2, "max_wait_seconds": 30.0,
                   "max_response_bytes": DEFAULT_AGENT_MAX_RESPONSE_BYTES, **connection}
        # 2xx answers are final, see the module docstring.
        super().__init__(url, secrets=[secret], malformed_retries=0, **options)

    # --- request -----------------------------------------------------------------------

    def build_payload(self, request: dict) -> bytes:
        """The exact bytes sent for `request` (protocol filled in, history bounded).

        ValueError if a required field is missing or the protocol is another one.
        """
        if not isinstance(request, dict):
            raise ValueError("an agent request must be a dict")
        body = dict(request)
        protocol = body.setdefault("protocol", AGENT_PROTOCOL)
        if protocol != AGENT_PROTOCOL:
            raise ValueError(f"unsupported agent protocol {protocol!r}")
        missing = [name for name in _REQUIRED_FIELDS if name not in body]
        if missing:
            raise ValueError(f"the agent request lacks {', '.join(missing)}")
        history = list(body.get("history") or [])
        body["history"] = history[-self.history_limit :] if self.history_limit else []
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    async def _call(self, payload: bytes) -> None:
        # Signed again at every attempt, with a fresh timestamp.
        timestamp = str(int(self._clock()))
        headers = {
            "Content-Type": "application/json",
            TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(self._secret, timestamp, payload),
        }
        await self.http.post(self.url, content=payload, headers=headers, timeout=self.timeout)

    def _read(self, result, response: httpx2.Response) -> ModelReply:
        return self._parse(result, response.content, response.status_code)

    async def act(self, request: dict) -> ModelReply:
        """Send one step (a dict following AGENT_REQUEST_SCHEMA) and return the agent's
        move: ``text`` is the action, ``reasoning`` its reasoning. An unusable answer
        gives ``text=""`` and ``error`` set; transport failures raise ModelCallError."""
        return await self._send(self.build_payload(request))

    # --- response ----------------------------------------------------------------------

    def _status_hint(self, status: int) -> str:
        return {403: " (the agent refused the request)", 404: " (check the agent URL)"}.get(status, "")

    def _status_failure(self, status: int, headers: httpx2.Headers, body: bytes) -> AttemptFailed:
        if status == 401:
            return AttemptFailed(
                f"The agent endpoint answered HTTP 401: {SIGNATURE_REJECTED} (check that the agent "
                "verifies with this submission's signing secret and that its clock is within "
                f"{self.max_age_seconds:g} s of the real time): {error_excerpt(body)}",
                retryable=False,
                status=status,
                kind=ErrorKind.AUTH,
            )
        return super()._status_failure(status, headers, body)

    def _parse(self, result, body: bytes, status: int) -> ModelReply:
        def invalid(problem: str) -> ModelReply:
            return ModelReply(text="", http_status=status, error=problem)

        if not body.strip():
            return invalid("agent reply was not JSON: (empty body)")
        text = body.decode("utf-8", "replace")
        try:
            data = parse_json(body)
        except JSONTooDeep:
            return invalid("agent reply was JSON nested too deeply to read")
        except ValueError:
            return invalid(f"agent reply was not JSON: {excerpt(text, 120)}")
        if not isinstance(data, dict):
            return invalid(f"agent reply was not a JSON object: {excerpt(text, 120)}")
        action = data.get("action")
        if not isinstance(action, str):
            got = "no \"action\" field" if "action" not in data else f"\"action\" is {type(action).__name__}"
            return invalid(f"agent reply has no string \"action\" ({got}): {excerpt(text, 120)}")
        action = action.strip()
        if not action:
            return invalid("agent reply has an empty \"action\"")
        reasoning = data.get("reasoning")
        # Cleaned and capped with every other reply (arena.clients.replies.normalise_reply).
        return ModelReply(text=action, reasoning=reasoning if isinstance(reasoning, str) else "", http_status=status)
