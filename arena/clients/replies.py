"""What an endpoint's answer becomes before anything stores or shows it: error bodies
cut to a readable excerpt, JSON read without Python's recursion limit, model text
cleaned (valid Unicode, no NULs) and within its cap, token counts bounded or None
(`normalise_reply`). Shared by every HTTP model client and the agent-endpoint client."""

from __future__ import annotations

import json
from typing import Any

import orjson

from arena.clients.base import ModelReply

EXCERPT_CHARS = 300


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` on one line, cut to `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_excerpt(body: bytes) -> str:
    """The useful part of an error body.

    OpenAI, Anthropic and Gemini all put a human-readable text in ``error.message``;
    FastAPI-style servers use ``detail``, others a top-level ``message``. A gateway
    passing on its upstream's failure (OpenRouter) says only "Provider returned error"
    there and puts what the upstream said in ``error.metadata.raw``: that goes after it.
    """
    text = body.decode("utf-8", errors="replace")
    try:
        data = parse_json(text)
    except ValueError:
        return excerpt(text) if text.strip() else "(empty body)"
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            metadata = error.get("metadata") if isinstance(error.get("metadata"), dict) else {}
            upstream = metadata.get("raw")
            if isinstance(upstream, str) and upstream.strip():
                return excerpt(f"{error['message']} ({upstream})")
            return excerpt(error["message"])
        if isinstance(error, str):
            return excerpt(error)
    return excerpt(text)


def error_message(data: dict) -> str:
    """The excerpt of ``error.message`` of an error object a provider sent with a 2xx
    status (Anthropic and Gemini do, when overloaded mid-request)."""
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return excerpt(error["message"])
    return excerpt(str(error))


class JSONTooDeep(ValueError):
    """JSON nested deeper than Python's parser goes (it would raise RecursionError)."""


def parse_json(body: bytes | str) -> Any:
    """`json.loads` for what an endpoint sent: ValueError for anything that is not JSON
    the arena can read, including JSON nested too deeply (JSONTooDeep)."""
    try:
        # Several times faster (it reads an integer past 64 bits as a float: no field
        # of a reply is one); what it refuses (NaN, a lone surrogate, deep nesting) the
        # standard library reads or refuses in its words.
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(body)
    except RecursionError:
        raise JSONTooDeep("JSON nested too deeply to read") from None


# Token counts beyond this are not counts a server could mean: they are dropped like any
# other nonsense. A step adds up a few of them (a provider's cached and uncached input,
# self-correction's two calls), and the sum must still fit the step's 32-bit columns.
MAX_TOKEN_COUNT = 100_000_000


def int_or_none(value: Any) -> int | None:
    """A count the server reported: a non-negative int in range, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    return None


def clean_text(text: str) -> str:
    """Model text as something every database and page can hold: lone surrogates (a
    JSON "\\ud800" with no partner, which tiny or broken models do emit) and NUL
    characters are replaced."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, replaced by "?"
            text = text.encode("utf-8", "replace").decode("utf-8")
    return text.replace("\x00", "\ufffd")


# The most characters each text an endpoint returns may keep (a step stores them as they
# are, and pages and the API serve them): the completion (an agent's action), each
# call's completion, the reasoning, an error or retry note, a finish reason. 64 Ki
# characters is far more than any game answer needs and at most 256 KiB of UTF-8.
MAX_COMPLETION_CHARS = 64 * 1024
MAX_REASONING_CHARS = 64 * 1024
MAX_ERROR_CHARS = 4 * 1024
MAX_FINISH_REASON_CHARS = 64
# Of a text that is cut, the part kept from its end: answers put their action last
# ("Action: …"), and the beginning keeps what formats that want a first line need.
CUT_TAIL_SHARE = 0.25


def capped_text(text: str, limit: int) -> str:
    """`text` cleaned (see `clean_text`) and at most `limit` characters long: a longer
    text keeps its beginning and its end around a line saying how much was cut."""
    text = clean_text(text)
    if len(text) <= limit:
        return text
    marker_room = len(_cut_marker(len(text)))
    kept = max(0, limit - marker_room)
    tail = int(kept * CUT_TAIL_SHARE)
    head = kept - tail
    return text[:head] + _cut_marker(len(text) - kept) + (text[len(text) - tail:] if tail else "")


def _cut_marker(cut: int) -> str:
    return f"\n[… the arena cut {cut:,} characters here …]\n"


def normalise_reply(reply: ModelReply) -> ModelReply:
    """`reply` made safe to store: every text cleaned and within its cap, every token
    count a bounded non-negative integer or None (the parsers read counts with
    `int_or_none`; this also covers a parser that did not)."""
    reply.text = capped_text(reply.text if isinstance(reply.text, str) else "", MAX_COMPLETION_CHARS)
    reply.reasoning = capped_text(reply.reasoning if isinstance(reply.reasoning, str) else "", MAX_REASONING_CHARS)
    reply.error = capped_text(reply.error or "", MAX_ERROR_CHARS)
    if reply.finish_reason is not None:
        reply.finish_reason = capped_text(str(reply.finish_reason), MAX_FINISH_REASON_CHARS)
    reply.tokens_in = int_or_none(reply.tokens_in)
    reply.tokens_out = int_or_none(reply.tokens_out)
    reply.cached_tokens_in = int_or_none(reply.cached_tokens_in)
    reply.reasoning_tokens = int_or_none(reply.reasoning_tokens)
    return reply


def sum_or_none(*values: Any) -> int | None:
    """The sum of the values that are ints; None if none of them is."""
    ints = [v for v in (int_or_none(value) for value in values) if v is not None]
    return sum(ints) if ints else None
