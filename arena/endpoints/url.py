"""A base URL whose query string is encrypted at rest, like the API key.

Some gateways take their credential in the query string (`…/v1?key=…`), so the query is
a secret: in the database (hence in every backup) the column holds the URL with its
query replaced by a Fernet token under ARENA_ENCRYPTION_KEY (arena.endpoints.crypto), marked so
that a stored URL is told from one still in plain text:

    http://gpu7.example:8443/tenant/acme/v1?arena-encrypted-query=gAAAAAB…

The model gives the code the URL as submitted; only the column is different. Lookups
by an exact URL with a query do not match (each encryption differs), so nothing
looks submissions up by their address.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from django.db import models

from arena.endpoints.crypto import decrypt_secret, encrypt_secret

logger = logging.getLogger(__name__)

ENCRYPTED_QUERY = "arena-encrypted-query="
# Room for the Fernet token of the longest query a 500-character URL can have.
STORED_MAX_LENGTH = 1200


def _split(url: str):
    try:
        return urlsplit(url)
    except ValueError:
        return None


def conceal_query(url: str | None) -> str | None:
    """`url` as stored: its query string encrypted (a URL without one is unchanged)."""
    if not url:
        return url
    split = _split(url)
    if split is None or not split.query or split.query.startswith(ENCRYPTED_QUERY):
        return url
    return urlunsplit(split._replace(query=ENCRYPTED_QUERY + encrypt_secret(split.query)))


def reveal_query(stored: str | None) -> str | None:
    """The URL as submitted, from its stored form. A query that cannot be decrypted (the
    operator rotated the key without re-encrypting) stays encrypted: the endpoint then
    refuses the calls, and the log says why."""
    if not stored:
        return stored
    split = _split(stored)
    if split is None or not split.query.startswith(ENCRYPTED_QUERY):
        return stored
    try:
        query = decrypt_secret(split.query.removeprefix(ENCRYPTED_QUERY))
    except ValueError:
        logger.warning("a base URL's query string cannot be decrypted with the current ARENA_ENCRYPTION_KEY")
        return stored
    return urlunsplit(split._replace(query=query))


def without_query(url: str | None) -> str:
    """`url` with its query string's values left out, for records that keep addresses
    (the submission's edit history): `?key=…`."""
    if not url:
        return url or ""
    split = _split(url)
    if split is None or not split.query:
        return url
    names = [pair.split("=", 1)[0] for pair in split.query.split("&") if pair]
    return urlunsplit(split._replace(query="&".join(f"{name}=…" for name in names)))


def on_path(base_url: str, change: Callable[[str], str], query: str = "") -> str:
    """`base_url` with its path (trailing "/" removed) replaced by `change(path)` and its
    query string kept at the end, followed by `query` when given.

    A base URL is the API root a route hangs off; one with a query string
    (`http://gw.example/v1?key=…`, a gateway's credential) must keep the query after the
    route: appending the route to the URL as a string puts it inside the query
    (`/v1?key=…/chat/completions`), which the server reads as the path `/v1`. So a
    client builds its URL on the path alone:

        on_path(base, lambda path: path + "/messages" if path.endswith("/v1") else path + "/v1/messages")
    """
    split = urlsplit((base_url or "").strip())
    path = change(split.path.rstrip("/"))
    queries = [part for part in (split.query, query.lstrip("?")) if part]
    return urlunsplit(split._replace(path=path, query="&".join(queries), fragment=""))


def join_path(base_url: str, route: str, *, unless_ends_with: tuple[str, ...] = (), query: str = "") -> str:
    """The URL of `route` ("/chat/completions") under `base_url`, its query kept after
    the route (on_path); unchanged but for its trailing "/" when its path already ends
    with one of `unless_ends_with` (a base URL given as the full route)."""
    return on_path(base_url, lambda path: path if path.endswith(unless_ends_with) else path + route, query)


def url_path(url: str) -> str:
    """`url`'s path without its trailing "/": what the clients test for the version or
    route a base URL already ends with (never the URL string, whose end is its query)."""
    return urlsplit((url or "").strip()).path.rstrip("/")


class EndpointURLField(models.URLField):
    """A URLField stored with its query string encrypted (module docstring)."""

    def from_db_value(self, value, expression, connection):
        return reveal_query(value)

    def get_prep_value(self, value):
        return conceal_query(super().get_prep_value(value))
