"""The embedded mode's shared cache: Django's database cache with an atomic `incr`.

Every web process of the embedded mode counts its limits (arena.web.counters) in the
`arena_cache` table. Django's own `DatabaseCache.incr` reads the value and writes it
back in two statements, so two processes incrementing at once both write the same
number and one count is lost (16 sign-ups in a burst passed a limit of 5). Here the
read and the write are one transaction holding the row: SQLite's IMMEDIATE transactions
(config.settings) take the database's write lock at BEGIN, PostgreSQL's SELECT … FOR
UPDATE the row's. The expiry is kept, where Django's `incr` would reset it to the
default timeout.
"""

from __future__ import annotations

import base64
import pickle

from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction
from django.utils.timezone import now as tz_now


class AtomicDatabaseCache(DatabaseCache):
    def incr(self, key, delta=1, version=None):
        key = self.make_and_validate_key(key, version=version)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        quote_name = connection.ops.quote_name
        table, key_column = quote_name(self._table), quote_name("cache_key")
        lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
        now = connection.ops.adapt_datetimefield_value(tz_now().replace(microsecond=0))
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {quote_name('value')} FROM {table} WHERE {key_column} = %s AND {quote_name('expires')} >= %s{lock}",
                [key, now],
            )
            row = cursor.fetchone()
            if row is None:
                raise ValueError(f"Key '{key}' not found.")
            value = pickle.loads(base64.b64decode(connection.ops.process_clob(row[0]).encode())) + delta
            stored = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            cursor.execute(f"UPDATE {table} SET {quote_name('value')} = %s WHERE {key_column} = %s", [stored, key])
        return value
