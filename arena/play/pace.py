"""The pace a worker keeps with each endpoint (arena.clients.limits), shared through the
cache so the submission page can show it: the in-flight limit it has settled on within
the submission's cap, how often the server made it back off, a pause the server asked
for, and the last rate-limit figures the server sent.

Workers write it (from the database thread, never blocking the event loop); the page
reads it. Every worker writes the figures of its own gate: the page shows the latest.
Gates and their paces are one tenant's (arena.endpoints.tenancy): a page shows a submission the
pace of its owner's use of the URL, never another account's.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time

from django.core.cache import cache

from arena.clients.limits import EndpointGate, gate_for
from arena.play.dbthread import db
from arena.endpoints.tenancy import server_key, submission_endpoint_key

logger = logging.getLogger(__name__)

# A pace nobody has refreshed for this long is no longer the endpoint's.
PACE_TTL_SECONDS = 600
_pending: set[asyncio.Future] = set()


def pace_key(endpoint: str) -> str:
    return "arena:pace:" + hashlib.sha256(endpoint.encode("utf-8")).hexdigest()[:32]


def submission_gate(submission) -> EndpointGate:
    """The gate the submission's calls go through on the running loop: its tenant's
    (arena.endpoints.tenancy), publishing its pace for the submission page, numbering the server's
    slots with the other tenants of the server."""
    endpoint = submission_endpoint_key(submission)
    return gate_for(
        endpoint, submission.max_concurrent_requests, publisher(endpoint), server=server_key(submission.base_url)
    )


def publisher(endpoint: str):
    """A gate's `on_change`: stores what it is given for `endpoint` (a tenant's key,
    arena.endpoints.tenancy), off the loop."""
    key = pace_key(endpoint)

    def publish(pace: dict) -> None:
        future = asyncio.ensure_future(db(cache.set, key, pace, PACE_TTL_SECONDS))
        _pending.add(future)
        future.add_done_callback(_settled)

    return publish


def _settled(future: asyncio.Future) -> None:
    _pending.discard(future)
    if not future.cancelled() and future.exception() is not None:
        logger.warning("the endpoint's pace could not be stored: %r", future.exception())


def endpoint_pace(submission) -> dict | None:
    """The latest pace a worker stored for the submission's tenant of its endpoint, with
    its age in seconds."""
    pace = cache.get(pace_key(submission_endpoint_key(submission))) if submission.base_url else None
    if not isinstance(pace, dict):
        return None
    return {**pace, "age_seconds": max(0.0, time.time() - float(pace.get("at") or 0))}
