"""ORM statements compiled once and run again with other values.

Building a query through the ORM (filters, expressions, the compiler) costs about a
millisecond of CPU a statement, several times what SQLite takes to run the statements
a worker issues when it claims or finishes an episode. A `Prepared` statement lets the
ORM write the SQL once per database connection, from the same queryset code, with
stand-in values that match no row; later calls put their own values where the stand-ins
were and run that SQL as it is. So the statement is exactly the one the ORM would send
(on SQLite as on PostgreSQL), minus the building (arena.services.steps writes its
statements by hand for the same reason).
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone as dt_timezone

from django.db import transaction

# Stand-in values: of the real value's type, far outside anything stored (negative ids
# match no row), and distinct from one another, so each is found in the compiled
# parameters by equality.
_STAND_IN_BASE = 7_315_903_482_117


def _stand_in(value, n: int):
    kind = type(value)
    if kind is int:
        return -(_STAND_IN_BASE + n)
    if kind is float:
        return -(_STAND_IN_BASE + n + 0.5)
    if kind is str:
        return f"prepared stand-in {_STAND_IN_BASE}-{n}"
    return datetime(1901, 1, 1, tzinfo=dt_timezone.utc) + timedelta(seconds=n)


# Values of these exact types have stand-ins. Any other (a bool, numpy's float64, a
# Decimal: the ORM may convert them on the way) makes the statement go through the ORM.
_STANDABLE = frozenset({int, float, str, datetime})


class Prepared:
    """`statement(**values)` runs one ORM statement; `execute(**values)` runs the SQL the
    ORM wrote for it the first time, with these values.

    `fields` names the model field of values the ORM converts before sending them (a
    datetime becomes text on SQLite): they are converted by the field, as the ORM does.
    The SQL is kept per connection and per kind of the values (the ORM may write an int
    and a float differently)."""

    def __init__(self, statement, fields: dict | None = None):
        self.statement = statement
        self.fields = fields or {}
        self._compiled: dict[tuple, tuple[str, list, list]] = {}

    def execute(self, **values) -> tuple[int, tuple | None, list[str]]:
        """The number of rows the statement changed, its first row (None for an update)
        and its column names."""
        if not all(type(value) in _STANDABLE for value in values.values()):
            return self.execute_through_orm(**values)
        connection = transaction.get_connection()
        sql, params = self._bind(connection, values)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if cursor.description is None:
                return cursor.rowcount, None, []
            return cursor.rowcount, cursor.fetchone(), [column[0] for column in cursor.description]

    def execute_through_orm(self, **values) -> tuple[int, tuple | None, list[str]]:
        """`execute` by the ORM statement as written, built afresh (values of other kinds
        than a stand-in can stand for, and the benches' rows without the fix)."""
        result = self.statement(**values)
        if isinstance(result, int):  # an update: the rows it changed
            return result, None, []
        if isinstance(result, list):  # one column of rows
            return len(result), ((result[0],) if result else None), ["value"]
        return 1, tuple(result.values()), list(result)  # an aggregate

    def _sent(self, connection, key: str, value):
        field = self.fields.get(key)
        return value if field is None else field.get_db_prep_save(value, connection)

    def _bind(self, connection, values: dict) -> tuple[str, list]:
        cache_key = (connection.alias, connection.vendor, *((k, type(v)) for k, v in sorted(values.items())))
        compiled = self._compiled.get(cache_key)
        if compiled is None:
            compiled = self._compiled[cache_key] = self._compile(connection, values)
        sql, template, slots = compiled
        params = list(template)
        for position, key, wrapper in slots:
            sent = self._sent(connection, key, values[key])
            params[position] = sent if wrapper is None else wrapper(sent)
        return sql, params

    def _compile(self, connection, values: dict) -> tuple[str, list, list]:
        counter = itertools.count(1)
        stand_ins = {key: _stand_in(value, next(counter)) for key, value in values.items()}
        seen: list[tuple[str, tuple]] = []

        def capture(execute, sql, params, many, context):
            seen.append((sql, tuple(params or ())))
            return execute(sql, params, many, context)

        with connection.execute_wrapper(capture):
            self.statement(**stand_ins)
        if len(seen) != 1:
            raise RuntimeError(f"a prepared statement must send one statement, this one sent {len(seen)}")
        sql, template = seen[0]
        slots = []
        for key, stand_in in stand_ins.items():
            sent = self._sent(connection, key, stand_in)
            # The ORM may hand the driver a value in a type of its own: psycopg's Int4 or
            # Int8 for an integer (a subclass of int), which the real value gets too.
            positions = [i for i, p in enumerate(template) if isinstance(p, type(sent)) and p == sent]
            if not positions:
                raise RuntimeError(f"the value {key!r} is not a parameter of the statement as the ORM wrote it")
            slots.extend(
                (position, key, None if type(template[position]) is type(sent) else type(template[position]))
                for position in positions
            )
        return sql, list(template), slots
