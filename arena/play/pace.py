"""The pace a worker keeps with each endpoint (arena.clients.limits), shared through the
cache so the submission page can show it: the in-flight limit it has settled on within
the submission's cap, how often the server made it back off, a pause the server asked
for, and the last rate-limit figures the server sent.

Workers write it (from the database thread, never blocking the event loop); the page
reads it. Every worker writes the figures of its own gate: the page shows the latest.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time

from django.core.cache import cache

from arena.play.dbthread import db

logger = logging.getLogger(__name__)

# A pace nobody has refreshed for this long is no longer the endpoint's.
PACE_TTL_SECONDS = 600
_pending: set[asyncio.Future] = set()


def pace_key(base_url: str) -> str:
    return "arena:pace:" + hashlib.sha256(base_url.encode("utf-8")).hexdigest()[:32]


def publisher(base_url: str):
    """A gate's `on_change`: stores what it is given for `base_url`, off the loop."""
    key = pace_key(base_url)

    def publish(pace: dict) -> None:
        future = asyncio.ensure_future(db(cache.set, key, pace, PACE_TTL_SECONDS))
        _pending.add(future)
        future.add_done_callback(_settled)

    return publish


def _settled(future: asyncio.Future) -> None:
    _pending.discard(future)
    if not future.cancelled() and future.exception() is not None:
        logger.warning("the endpoint's pace could not be stored: %r", future.exception())


def endpoint_pace(base_url: str) -> dict | None:
    """The latest pace a worker stored for `base_url`, with its age in seconds."""
    pace = cache.get(pace_key(base_url)) if base_url else None
    if not isinstance(pace, dict):
        return None
    return {**pace, "age_seconds": max(0.0, time.time() - float(pace.get("at") or 0))}
