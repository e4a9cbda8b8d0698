"""A base URL whose query string is encrypted at rest, like the API key.

Some gateways take their credential in the query string (`…/v1?key=…`), so the query is
a secret: in the database (hence in every backup) the column holds the URL with its
query replaced by a Fernet token under ARENA_ENCRYPTION_KEY (arena.crypto), marked so
that a stored URL is told from one still in plain text:

    http://gpu7.example:8443/tenant/acme/v1?arena-encrypted-query=gAAAAAB…

The model gives the code the URL as submitted; only the column is different. Lookups
by an exact URL with a query do not match (each encryption differs), so nothing
looks submissions up by their address.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit, urlunsplit

from django.db import models

from arena.crypto import decrypt_secret, encrypt_secret

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


class EndpointURLField(models.URLField):
    """A URLField stored with its query string encrypted (module docstring)."""

    def from_db_value(self, value, expression, connection):
        return reveal_query(value)

    def get_prep_value(self, value):
        return conceal_query(super().get_prep_value(value))
