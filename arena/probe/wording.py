"""What the probe asks every endpoint, and how it quotes an endpoint's refusals in its
notes: shared by the probe's steps (arena.probe.run, arena.probe.shapes)."""

from __future__ import annotations

import re
import secrets

from arena.clients.base import ModelCallError

# Asks for more than 16 tokens of easy output, so the 16-token call uses all of them.
PROBE_QUESTION = "Count from 1 to 40, separated by spaces."
PROBE_MESSAGES = [{"role": "user", "content": PROBE_QUESTION}]
# Filler for the prompt-speed call: a prompt long enough that reading it takes
# measurably longer than reading the short one.
READING_TEXT = "The quick brown fox jumps over the lazy dog while the farmer counts his sheep. "
READING_REPEATS = 24


def fresh(text: str) -> str:
    """`text` after a random tag of its own: a server's prompt cache matches prompts
    from their first token, so no earlier prompt (the probe's or an episode's) can
    answer this one from the cache, and a speed measured on it is the server's own."""
    return f"[{secrets.token_hex(6)}] {text}"


def probe_messages() -> list[dict]:
    """PROBE_MESSAGES, made fresh (see `fresh`) for one call."""
    return [{"role": "user", "content": fresh(PROBE_QUESTION)}]


def reading_messages() -> list[dict]:
    """A fresh prompt about READING_REPEATS times longer than `probe_messages`'s."""
    return [{"role": "user", "content": fresh(READING_TEXT * READING_REPEATS + PROBE_QUESTION)}]
# The client's retry bookkeeping, which says nothing to the person reading a probe.
GAVE_UP = re.compile(r"\s*\(gave up after \d+ attempts?\)")
# "The model endpoint answered HTTP 404 (check the base URL and the model name): <the
# server's words>": the client's own hint must not count as the server naming the model.
SERVER_WORDS = re.compile(r"answered HTTP \d{3}(?: \([^)]*\))?: (.*)$", re.DOTALL)


def sentence(text: str) -> str:
    """`text` without retry bookkeeping or a trailing full stop, to quote in a sentence."""
    return GAVE_UP.sub("", text).strip().rstrip(".")


def server_words(message: str) -> str | None:
    """The part of a client's error message that quotes the server, if there is one."""
    match = SERVER_WORDS.search(message)
    return match.group(1) if match else None


def quote(exc: ModelCallError) -> str:
    """What went wrong with a call, briefly: "HTTP 500: <the server's words>", or the
    client's own description when no HTTP answer came."""
    words = server_words(exc.message)
    if exc.http_status is not None and words is not None:
        return sentence(f"HTTP {exc.http_status}: {words}")
    return sentence(exc.message)


def answered(exc: ModelCallError) -> bool:
    """A 2xx without usable text (a reasoning model that spent its one token thinking):
    the endpoint, the key and the model all worked."""
    return exc.http_status is not None and 200 <= exc.http_status < 300
