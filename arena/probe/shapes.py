"""Step 5 of the probe (arena.probe.run): which message shapes an OpenAI-compatible
endpoint accepts, one one-token request each, no retry.

* content parts: the question as [{"type": "text", ...}] — llama-cpp-python's server
  and chat templates that add strings to `message['content']` answer HTTP 500;
* a system message before the user's — Gemma's official template raises on it;
* two user messages in a row — Gemma's and Mistral's templates raise "roles must
  alternate".

An answer (even one without text) means yes, an HTTP error means no, no answer at all
leaves it unknown (None), and play then sends the faithful shape. How play adapts is
arena.strategies.shape.
"""

from __future__ import annotations

from arena.clients.base import ModelCallError
from arena.probe.wording import PROBE_QUESTION, answered, fresh, quote

SHAPE_SYSTEM_TEXT = "Answer briefly."


async def _accepts(probe, messages: list[dict], what: str) -> bool | None:
    try:
        await probe.client(max_tokens=1, retries=0).complete(messages)
    except ModelCallError as exc:
        if answered(exc):
            return True
        if exc.http_status is None:
            probe.note(f"Whether it accepts {what} is not known ({quote(exc)}).")
            return None
        probe.note(f"It refuses {what} ({quote(exc)}).")
        return False
    return True


async def probe_message_shape(probe) -> None:
    """Ask the three questions and store the answers on `probe.result.message_shape`."""
    parts = await _accepts(
        probe, [{"role": "user", "content": [{"type": "text", "text": fresh(PROBE_QUESTION)}]}],
        "text sent as content parts",
    )
    system = await _accepts(
        probe, [{"role": "system", "content": fresh(SHAPE_SYSTEM_TEXT)}, {"role": "user", "content": PROBE_QUESTION}],
        "a system message",
    )
    consecutive = await _accepts(
        probe, [{"role": "user", "content": fresh(SHAPE_SYSTEM_TEXT)}, {"role": "user", "content": PROBE_QUESTION}],
        "two consecutive user messages",
    )
    probe.result.message_shape = {"content_parts": parts, "system_role": system, "consecutive_roles": consecutive}
    adaptations = []
    if system is False:
        adaptations.append("the system text goes at the start of the first user message")
    if consecutive is False:
        adaptations.append("consecutive messages of one role are merged into one")
    if adaptations:
        probe.note("Prompts are adapted to it: " + "; ".join(adaptations) + ".")
