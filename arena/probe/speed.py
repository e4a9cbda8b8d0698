"""The speeds the probe measures (step 4 of arena.probe.run: `measure_speeds`), and how
long one model call may take on an endpoint at those speeds (`call_timeout`).

A slow local server re-reads the whole prompt at every call whenever the prompt's start
changed: BALROG's window of the last 16 observations (BALROG §3) slides from step 16 on,
so every call then re-reads some 4,000 tokens, which a CPU server reading 2–3 tokens per
second needs half an hour for. A fixed call timeout cuts such calls in the middle and the
episode fails on retries that can never finish sooner. So a call is given the time the
server needs to read its prompt and write its answer at the speeds the probe measured
(`measure_speeds`), with a margin, and never less than the operator's timeout. A
call that would need more than MAX_CALL_SECONDS is not sent: the episode ends with a
message saying that the server is too slow for the suite's protocol.
"""

from __future__ import annotations

from arena.clients.base import ModelCallError
from arena.probe.wording import probe_messages, quote, reading_messages

THROUGHPUT_TOKENS = 16
# Below this extra time for the extra tokens, the difference is the clock's noise.
SPEED_MIN_EXTRA_SECONDS = 0.01
# Measured speeds are one short sample on an idle server; a loaded one is slower.
MARGIN = 2.0
# The longest a call may take (arena.clients.limits caps every timeout at it too).
MAX_CALL_SECONDS = 1800.0


class TooSlow(Exception):
    """A call the endpoint could not answer within MAX_CALL_SECONDS at its speeds."""


def call_timeout(probe: dict | None, prompt_tokens: int | None, answer_tokens: int | None, base_seconds: float) -> float:
    """The timeout for one call sending about `prompt_tokens` and asking for up to
    `answer_tokens`, on the endpoint `probe` (a stored ProbeResult) describes; TooSlow
    when even MAX_CALL_SECONDS is not enough."""
    probe = probe or {}
    reading = probe.get("prompt_tokens_per_second") or None
    writing = probe.get("tokens_per_second") or None
    needed = 0.0
    if reading and prompt_tokens:
        needed += prompt_tokens / reading
    if writing and answer_tokens:
        needed += answer_tokens / writing
    needed *= MARGIN
    if needed > MAX_CALL_SECONDS:
        raise TooSlow(
            f"The endpoint is too slow for this suite's protocol: it reads about {reading or 0:,.1f} prompt tokens "
            f"and writes about {writing or 0:,.1f} tokens per second (as the probe measured), so a call sending "
            f"about {prompt_tokens or 0:,} prompt tokens and asking for up to {answer_tokens or 0:,} would take "
            f"about {needed / 60:,.0f} minutes, more than the {MAX_CALL_SECONDS / 60:,.0f} minutes the arena "
            "allows one call. Use a faster server, or a smaller context window or max tokens."
        )
    return max(base_seconds, needed)


def decoding_speed(first_tokens: int, first_ms: float, tokens: int, ms: float) -> float:
    """Tokens per second from a short answer and a longer one to the same prompt (step 4
    of the module docstring)."""
    extra_seconds = (ms - first_ms) / 1000.0
    if tokens - first_tokens >= 4 and extra_seconds >= SPEED_MIN_EXTRA_SECONDS:
        return (tokens - first_tokens) / extra_seconds
    return tokens / (ms / 1000.0)  # too little difference to measure: the whole call, which errs low


async def measure_speeds(probe) -> None:
    """Step 4 of arena.probe.run: the generation speed, then the prompt speed."""
    if probe.first_reply is None:
        return
    try:
        reply = await probe.client(max_tokens=THROUGHPUT_TOKENS, retries=0).complete(probe_messages())
    except ModelCallError as exc:
        probe.note(f"The generation speed could not be measured ({quote(exc)}).")
        return
    tokens = reply.tokens_out
    if not tokens:
        probe.note("The endpoint does not report token counts, so its generation speed was not measured.")
        return
    speed = decoding_speed(probe.first_reply.tokens_out or 1, probe.first_reply.latency_ms, tokens, reply.latency_ms)
    probe.result.tokens_per_second = round(speed, 1)
    probe.note(f"It generates about {speed:,.0f} tokens per second ({tokens} tokens in {reply.latency_ms:,.0f} ms).")
    await _measure_reading(probe)


async def _measure_reading(probe) -> None:
    """The prompt speed (step 4): a one-token answer to a longer fresh prompt."""
    first = probe.first_reply
    try:
        reply = await probe.client(max_tokens=1, retries=0).complete(reading_messages())
    except ModelCallError as exc:
        probe.note(f"The prompt-reading speed could not be measured ({quote(exc)}).")
        return
    if not reply.tokens_in or not first.tokens_in:
        return
    speed = decoding_speed(first.tokens_in, first.latency_ms, reply.tokens_in, reply.latency_ms)
    probe.result.prompt_tokens_per_second = round(speed, 1)
    probe.note(f"It reads a prompt at about {speed:,.0f} tokens per second "
               f"({reply.tokens_in:,} tokens in {reply.latency_ms:,.0f} ms).")
