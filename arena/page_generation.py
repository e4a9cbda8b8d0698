"""The public pages' generation: a token that changes whenever what the leaderboards,
suite pages and task pages show may have changed (an episode finished or failed, a run
was cancelled or re-queued, a submission or run was created, renamed or deleted).

The web processes' page cache (config.pagecache) keys every stored page by the
generation it was rendered under and re-reads the generation every few hundred
milliseconds, so a bump retires every stored page of every process at once.

Every bump writes a fresh random token instead of incrementing a counter: two bumps can
never produce the same value, whatever their interleaving, and a reader that saw the old
token always sees a different one afterwards. It lives where every web process can read
it: a file in the var folder on one machine (embedded mode), Django's cache — Redis — on
several machines (scaled mode).
"""

from __future__ import annotations

import logging
import os
import secrets
import tempfile
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save

logger = logging.getLogger(__name__)

CACHE_KEY = "arena:page-generation"


def _file() -> Path:
    return Path(settings.ARENA_PAGE_GENERATION_FILE)


def current() -> str:
    """The generation now ("" before the first bump)."""
    if settings.ARENA_PAGE_GENERATION_STORE == "cache":
        from django.core.cache import cache

        return str(cache.get(CACHE_KEY, ""))
    try:
        return _file().read_text()
    except FileNotFoundError:
        return ""


def bump() -> None:
    """Retire every page rendered so far, in every web process."""
    token = secrets.token_hex(8)
    try:
        if settings.ARENA_PAGE_GENERATION_STORE == "cache":
            from django.core.cache import cache

            cache.set(CACHE_KEY, token, timeout=None)
            return
        path = _file()
        # Written beside, then renamed over: a reader sees the old token or the new one,
        # never a half-written file.
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".page-generation-")
        with os.fdopen(fd, "w") as handle:
            handle.write(token)
        os.replace(temporary, path)
    except Exception:  # pages stay stale for a while; the write that triggered this must not fail
        logger.exception("could not bump the page generation")


def bump_on_commit() -> None:
    """Bump once the current transaction commits (at once outside one): pages rendered
    before the commit would otherwise be stored under the new generation."""
    transaction.on_commit(bump)


def _changed(sender, **kwargs) -> None:
    bump_on_commit()


def connect_signals() -> None:
    """Saves and deletions through the ORM (the admin, imports, renames) change what the
    public pages show; writes by UPDATE statements call bump_on_commit themselves."""
    from arena.models import Experiment, Match, Run, Submission

    # A finished match changes the ratings' pages and the overall leaderboard's column.
    for model in (Submission, Run, Experiment, Match):
        post_save.connect(_changed, sender=model, dispatch_uid=f"page-generation-save-{model.__name__}")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"page-generation-delete-{model.__name__}")
