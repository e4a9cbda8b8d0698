"""Which context window the arena plays an endpoint with, and how to say why.

The server's own figure wins over a larger stated one where it states what it runs
with: a submitter's number is a guess about a server that may have been restarted with
other options since, and a window larger than the real one gets HTTP 400s (or, with
Ollama, prompts silently cut at the front) in the middle of episodes. A smaller stated
value wins: the submitter may want less (a cost cap, a slot shared with others). Without one the stated value is used,
capped by the model's maximum where the server gives that; without either, a safe
default.
"""

from __future__ import annotations

import dataclasses

from arena.probe.result import DEFAULT_CONTEXT_WINDOW
from arena.probe.servers import ContextFinding


@dataclasses.dataclass(frozen=True)
class ContextChoice:
    window: int
    source: str  # "server", "stated" or "default"
    server: int | None  # the figure the server gave (a runtime window or a model maximum)
    notes: tuple[str, ...]
    where: str = ""  # where the server's figure was read


def choose_context_window(
    *,
    context: ContextFinding | None,
    ceiling: ContextFinding | None,
    stated: int | None,
    fallback: int | None = None,
    fallback_reason: str = "",
) -> ContextChoice:
    """`context`: what the server runs with; `ceiling`: a model maximum it may run
    below; `stated`: the submitter's figure; `fallback` (default DEFAULT_CONTEXT_WINDOW)
    and `fallback_reason`: what to assume without any of them, and why."""
    if context is not None:
        notes = [f"The server reports a context window of {context.tokens:,} tokens ({context.where})."]
        if stated and stated < context.tokens:
            # A submitter may want less (a cost cap, or a slot shared with other users).
            notes.append(f"You stated {stated:,} tokens, less than the server's: the arena uses {stated:,}.")
            return ContextChoice(stated, "stated", context.tokens, tuple(notes), context.where)
        if stated and stated > context.tokens:
            notes.append(f"You stated {stated:,} tokens; the arena goes by the server's {context.tokens:,}.")
        return ContextChoice(context.tokens, "server", context.tokens, tuple(notes), context.where)

    notes = []
    limit = ceiling.tokens if ceiling is not None else None
    if ceiling is not None:
        notes.append(f"The model handles up to {limit:,} tokens ({ceiling.where}); the server may run it with less.")
    if stated:
        if limit and stated > limit:
            notes.append(f"You stated {stated:,} tokens, more than the model's {limit:,}; the arena uses {limit:,}.")
            return ContextChoice(limit, "stated", limit, tuple(notes), ceiling.where)
        notes.append(f"The arena uses the context window you stated: {stated:,} tokens.")
        return ContextChoice(stated, "stated", limit, tuple(notes), ceiling.where if ceiling else "")

    window = fallback or DEFAULT_CONTEXT_WINDOW
    if limit:
        window = min(window, limit)
    why = fallback_reason or "The endpoint does not say how long its context is"
    notes.append(
        f"{why}; the arena assumes {window:,} tokens. State the context window on the form if the server "
        "runs with more."
    )
    return ContextChoice(window, "default", limit, tuple(notes), ceiling.where if ceiling else "")
