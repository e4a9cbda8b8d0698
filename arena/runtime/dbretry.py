"""Retrying a transaction that the database aborted to resolve a conflict.

PostgreSQL breaks a deadlock by aborting one of the transactions in it ("deadlock
detected", SQLSTATE 40P01), and may abort a transaction whose snapshot conflicts with
another's ("could not serialize access", 40001). Neither says anything about the data:
the same transaction, run again, succeeds. The arena's writes take their row locks in
one order (images by hash, then episodes by id, then runs by id), so these should not
happen; when one does all the same, the transaction is run again a few times, with a
log line, rather than failing an episode.
"""

from __future__ import annotations

import functools
import logging
import random
import time

from django.db import OperationalError, transaction

logger = logging.getLogger(__name__)

CONFLICTS = {"40P01": "deadlock", "40001": "serialization failure"}
ATTEMPTS = 5
# The first retry waits up to this long, each later one up to twice as long as the one
# before; the random part keeps two retrying transactions from meeting again.
FIRST_BACKOFF_SECONDS = 0.02


def conflict_of(exc: BaseException) -> str | None:
    """"deadlock" or "serialization failure" when `exc` is the database aborting a
    transaction for one; None for any other error."""
    seen = exc
    while seen is not None:
        # psycopg 3 names the SQLSTATE `sqlstate`; psycopg2 named it `pgcode`.
        code = getattr(seen, "sqlstate", None) or getattr(seen, "pgcode", None)
        if code in CONFLICTS:
            return CONFLICTS[code]
        seen = seen.__cause__
    return None


def retry_on_conflict(func):
    """Run `func` again (up to ATTEMPTS times in all) when the database aborted its
    transaction for a deadlock or a serialization failure.

    Only a transaction of its own can be run again: called inside another transaction,
    `func` runs once, and that outer transaction's caller decides."""

    name = getattr(func, "__qualname__", type(func).__name__)

    @functools.wraps(func)
    def retrying(*args, **kwargs):
        if transaction.get_connection().in_atomic_block:
            return func(*args, **kwargs)
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return func(*args, **kwargs)
            except OperationalError as exc:
                conflict = conflict_of(exc)
                if conflict is None or attempt == ATTEMPTS:
                    raise
                logger.warning(
                    "%s: the database aborted the transaction (%s); running it again (attempt %d of %d)",
                    name, conflict, attempt + 1, ATTEMPTS,
                )
                time.sleep(random.uniform(0, FIRST_BACKOFF_SECONDS * 2 ** (attempt - 1)))

    return retrying
