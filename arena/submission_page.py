"""What the submission page shows besides the submission itself: its results, how they
stand among the other submissions, its scaling curves. Those are reads of the read
side, which the write side never imports; the read side registers its provider here
when the apps are ready (leaderboard.apps), as it does for live step frames."""

from __future__ import annotations

from typing import Callable

_provider: Callable | None = None


def show_results_with(provider: Callable) -> None:
    """Use `provider(submission)` → a dict of template context for the page."""
    global _provider
    _provider = provider


def results_context(submission) -> dict:
    """The registered provider's context ({} when none is registered)."""
    return _provider(submission) if _provider is not None else {}
