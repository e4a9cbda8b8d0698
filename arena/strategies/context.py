"""Keeping a prompt inside the model's context window.

Real servers have a context window (local set-ups often 2k–8k tokens) and refuse a
longer prompt with HTTP 400. A strategy therefore builds its prompt against a
`ContextBudget`: it drops the oldest droppable part of the prompt (past steps of the
trajectory, old chat turns) until the estimate fits, and raises `ContextExhausted` when
even the shortest prompt its protocol allows does not.

Estimates are the tokenizer-free rule of arena.strategies.tokens (about four characters per
token), corrected by what the server reports: after every call the budget learns the
ratio between the server's prompt token count and the estimate, and a "context
exceeded" answer raises that ratio (for the rest of the episode) so the retried prompt
is shorter. A window nobody
stated is learned the same way, from the first prompt the server refused.
"""

from __future__ import annotations

import dataclasses

# What is reserved for the answer is the submission's max_tokens, but never more than a
# quarter of the window: a 2,048-token answer budget would halve a 4,096-token window.
ANSWER_SHARE = 4
MIN_ANSWER_TOKENS = 64
# Room left for a prompt whose make-up differs a little from the last one measured.
LEARNED_MARGIN = 1.05
# How much a refused prompt raises the estimate's correction factor, at least.
OVERFLOW_GROWTH = 1.25


def answer_reserve(window: int | None, max_tokens: int) -> int:
    """The tokens kept free for the answer: the submission's max tokens, but never more
    than a quarter of a known window."""
    if window is None:
        return max_tokens
    return max(MIN_ANSWER_TOKENS, min(max_tokens, window // ANSWER_SHARE))


class ContextExhausted(Exception):
    """Nothing more can be dropped and the prompt still does not fit the window."""

    def __init__(self, estimated_tokens: int, window: int):
        super().__init__(
            f"the shortest prompt the protocol allows needs about {estimated_tokens:,} tokens; "
            f"the context window holds {window:,}"
        )
        self.estimated_tokens = estimated_tokens
        self.window = window


@dataclasses.dataclass
class ContextBudget:
    window: int | None
    max_tokens: int
    # Real tokens per estimated token, learned from the server's counts: the latest
    # call's ratio with a small margin (prompts grow a little from one step to the next
    # and keep their make-up, so the latest ratio predicts the next best), never below
    # what a refused prompt showed to be needed.
    scale: float = 1.0
    overflows: int = 0
    floor: float = 1.0

    @property
    def answer_reserve(self) -> int:
        return answer_reserve(self.window, self.max_tokens)

    @property
    def prompt_limit(self) -> int | None:
        """How many (real) tokens the prompt may take; None while the window is unknown."""
        return None if self.window is None else self.window - self.answer_reserve

    def tokens(self, estimate: int) -> int:
        return int(estimate * self.scale + 0.5)

    def fits(self, estimate: int) -> bool:
        limit = self.prompt_limit
        return limit is None or self.tokens(estimate) <= limit

    def require(self, estimate: int) -> None:
        """ContextExhausted unless a prompt of this estimate fits."""
        if not self.fits(estimate):
            raise ContextExhausted(self.tokens(estimate), self.window)

    def answer_tokens(self, estimate: int) -> int | None:
        """max_tokens for a call whose prompt has this estimate: the submission's, unless
        the window leaves less room (servers such as vLLM refuse prompt + max_tokens
        beyond the window). None means "the client's own"."""
        if self.window is None:
            return None
        room = self.window - self.tokens(estimate)
        if room >= self.max_tokens:
            return None
        return max(MIN_ANSWER_TOKENS // 4, room)

    def learn(self, estimate: int, tokens_in: int | None) -> None:
        """The server counted `tokens_in` for a prompt estimated at `estimate`."""
        if estimate > 0 and isinstance(tokens_in, int) and tokens_in > 0:
            self.scale = max(self.floor, tokens_in / estimate * LEARNED_MARGIN)

    def overflowed(self, estimate: int, stated_window: int | None = None) -> None:
        """The server refused a prompt of this estimate as too long for its window (and
        may have said how large the window is)."""
        self.overflows += 1
        if stated_window and (self.window is None or stated_window < self.window):
            self.window = stated_window
        if self.window is None:
            # Learn the window from the refusal: somewhat less than what was sent.
            self.window = max(2 * MIN_ANSWER_TOKENS, int(self.tokens(estimate) * 0.9))
            return
        limit = max(1, self.prompt_limit or 1)
        self.scale = self.floor = max(self.scale * OVERFLOW_GROWTH, (limit + 1) / max(1, estimate))


@dataclasses.dataclass
class Prompt:
    """The messages of one call, with what fitting them into the window cost."""

    messages: list[dict]
    estimated_tokens: int
    # How many of the oldest droppable items (LMAct: trajectory steps; chat: turns) were
    # left out to fit the window; stored on the step so the replay can say so.
    dropped: int = 0
    # How many leading characters of the first message's text never change during the
    # episode (LMAct's preamble and demonstrations, BALROG's instructions): providers
    # that cache only what is marked (Anthropic) mark the end of them.
    frozen_chars: int = 0

    def record(self, unit: str, budget: ContextBudget | None = None) -> dict | None:
        """What the step stores about it (None when nothing was dropped); the token
        figure is the estimate as corrected by the server's counts so far."""
        if not self.dropped:
            return None
        tokens = budget.tokens(self.estimated_tokens) if budget is not None else self.estimated_tokens
        return {"dropped": self.dropped, "unit": unit, "estimated_tokens": tokens}


def oldest_to_drop(fixed: int, sizes: list[int], budget: ContextBudget | None, keep_last: int = 1) -> int:
    """How many of the oldest items (of estimated `sizes`) to leave out so that `fixed`
    plus the rest fits; the last `keep_last` are never dropped. ContextExhausted when
    even that is too long."""
    if budget is None:
        return 0
    total = fixed + sum(sizes)
    start = 0
    droppable = max(0, len(sizes) - keep_last)
    while start < droppable and not budget.fits(total):
        total -= sizes[start]
        start += 1
    budget.require(total)
    return start
