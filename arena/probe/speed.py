"""How long one model call may take on an endpoint, from the speeds the probe measured.

A slow local server re-reads the whole prompt at every call whenever the prompt's start
changed: BALROG's window of the last 16 observations (BALROG §3) slides from step 16 on,
so every call then re-reads some 4,000 tokens, which a CPU server reading 2–3 tokens per
second needs half an hour for. A fixed call timeout cuts such calls in the middle and the
episode fails on retries that can never finish sooner. So a call is given the time the
server needs to read its prompt and write its answer at the speeds the probe measured
(arena.probe.run, step 4), with a margin, and never less than the operator's timeout. A
call that would need more than MAX_CALL_SECONDS is not sent: the episode ends with a
message saying that the server is too slow for the suite's protocol.
"""

from __future__ import annotations

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
