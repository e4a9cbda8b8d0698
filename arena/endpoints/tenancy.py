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

The slots of a local server are the server's, whoever calls it: the tenants of one
server (`server_key`: its scheme, host and port, whatever the path) take their slot
numbers from one pool in a worker, so two accounts' episodes are never pinned to the
same llama.cpp slot (arena.clients.limits).
"""

from __future__ import annotations

from urllib.parse import urlsplit


def endpoint_key(base_url: str, owner_id: int | None, submission_id: int | None) -> str:
    """The key of one tenant's use of `base_url` (module docstring)."""
    tenant = f"owner-{owner_id}" if owner_id is not None else f"submission-{submission_id}"
    return f"{tenant} {(base_url or '').strip().rstrip('/')}"


def submission_endpoint_key(submission) -> str:
    return endpoint_key(submission.base_url, submission.owner_id, submission.pk)


def server_key(base_url: str) -> str:
    """The model server `base_url` reaches: scheme, host and port, in lower case with the
    default port spelt out; the path and query are left out (a gateway routing paths to
    servers makes its tenants share numbering, which costs pinning, never a clash)."""
    url = (base_url or "").strip()
    try:
        split = urlsplit(url)
        port = split.port or {"http": 80, "https": 443}.get(split.scheme.lower())
        host = (split.hostname or "").lower()
    except ValueError:
        return url.lower()
    return f"{split.scheme.lower()}://{host}:{port}" if host else url.lower()
