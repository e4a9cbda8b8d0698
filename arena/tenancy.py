"""Whose turns an endpoint's calls take.

A worker keeps, per endpoint, a limit on calls in flight, the back-off and pauses the
server asked for, slot leases for the server's prompt cache (arena.clients.limits), and
how many of its episodes it holds (arena.play.worker); the run page says how busy that
endpoint is. All of it is kept per tenant of a URL, never per URL alone: two accounts
submitting the same provider URL (`https://api.openai.com/v1`, or a guessed address of
someone's server) are two tenants, each with its own limit, its own back-off after its
own 429s and its own count of episodes. One owner's submissions to one URL are one
tenant: they share the server's slots, so they share one gate and its slot leases, as a
local server with one slot needs. A submission without an owner is its own tenant.
"""

from __future__ import annotations


def endpoint_key(base_url: str, owner_id: int | None, submission_id: int | None) -> str:
    """The key of one tenant's use of `base_url` (module docstring)."""
    tenant = f"owner-{owner_id}" if owner_id is not None else f"submission-{submission_id}"
    return f"{tenant} {(base_url or '').strip().rstrip('/')}"


def submission_endpoint_key(submission) -> str:
    return endpoint_key(submission.base_url, submission.owner_id, submission.pk)
