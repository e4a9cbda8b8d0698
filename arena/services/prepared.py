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
        if isinstance(result, list):  # rows of one column, or of several (tuples)
            if not result:
                return 0, None, ["value"]
            first = result[0]
            return len(result), (first if isinstance(first, tuple) else (first,)), ["value"]
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


class PreparedGet:
    """`model.objects.select_related(*path).only(...).get(pk=…)` (optionally
    `select_for_update()`), its SQL written once per connection.

    Building that query (its joins, the select list of three wide tables, the value
    converters) cost the ORM some 15 ms of CPU an episode when a worker claimed and
    finished it, for statements SQLite runs in microseconds. The SQL is the ORM's own
    shape (the columns of each table in field order, INNER JOINs on the keys, LEFT
    OUTER where the key may be null); each value goes through the converters the ORM
    would apply (JSON, datetimes, booleans, encrypted fields' `from_db_value`), and the
    instances are built by `Model.from_db` with each related one cached on the one before,
    as select_related leaves them. `only` maps a model to the field names to load
    (others deferred, as `.only()` leaves them); its primary key is always loaded."""

    def __init__(self, model, path: tuple[str, ...] = (), *, only: dict | None = None, for_update: bool = False):
        self.model = model
        self.path = path
        self.only = only or {}
        self.for_update = for_update
        self._compiled: dict[tuple, tuple] = {}

    def get(self, pk):
        """The instance with primary key `pk` (its related ones cached); DoesNotExist if none."""
        connection = transaction.get_connection()
        compiled = self._compiled.get((connection.alias, connection.vendor))
        if compiled is None:
            compiled = self._compiled[(connection.alias, connection.vendor)] = self._compile(connection)
        sql, tables = compiled
        with connection.cursor() as cursor:
            cursor.execute(sql, [pk])
            row = cursor.fetchone()
        if row is None:
            raise self.model.DoesNotExist(f"{self.model._meta.object_name} matching query does not exist.")
        instances = []
        for model, fields, start, setter in tables:
            values = [
                _converted(row[start + i], converters, connection) for i, (_, converters) in enumerate(fields)
            ]
            if values[0] is None:  # a null key joined by LEFT OUTER JOIN: no related row
                instance = None
            else:
                instance = model.from_db(connection.alias, [f.attname for f, _ in fields], values)
            if setter is not None:
                setter(instances[-1], instance)
            instances.append(instance)
            if instance is None:
                break
        return instances[0]

    def _compile(self, connection) -> tuple[str, list]:
        quote = connection.ops.quote_name
        model, alias = self.model, "T0"
        columns, joins, tables = [], [], []
        setter = None
        for depth in range(len(self.path) + 1):
            wanted = self.only.get(model)
            fields = [
                f for f in model._meta.concrete_fields
                if wanted is None or f.primary_key or f.name in wanted or f.attname in wanted
            ]
            converted = []
            for field in fields:
                col = field.get_col(alias)
                # As the compiler applies them: the backend's, then the field's, each
                # given the column (a converter may read its output field).
                converters = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
                converted.append((field, [(converter, col) for converter in converters]))
            tables.append((model, converted, len(columns), setter))
            columns.extend(f"{alias}.{quote(f.column)}" for f in fields)
            if depth == len(self.path):
                break
            key = model._meta.get_field(self.path[depth])
            target, target_alias = key.related_model, f"T{depth + 1}"
            join = "LEFT OUTER JOIN" if key.null else "INNER JOIN"
            joins.append(
                f"{join} {quote(target._meta.db_table)} {target_alias} "
                f"ON ({alias}.{quote(key.column)} = {target_alias}.{quote(key.target_field.column)})"
            )
            setter = key.set_cached_value
            model, alias = target, target_alias
        sql = (
            f"SELECT {', '.join(columns)} FROM {quote(self.model._meta.db_table)} T0 {' '.join(joins)} "
            f"WHERE T0.{quote(self.model._meta.pk.column)} = %s"
        )
        if self.for_update and connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        return sql, tables


def _converted(value, converters, connection):
    for converter, col in converters:
        value = converter(value, col, connection)
    return value


_UPDATES: dict[tuple, str] = {}


def update_row(instance, field_names: tuple[str, ...], where: dict | None = None) -> int:
    """`instance.save(update_fields=field_names)` for a model no save signal is connected
    to, its UPDATE written once per connection and set of fields; the rows changed.

    Values are prepared by their fields as `save` prepares them (`pre_save`, then
    `get_db_prep_save`), so the row stored is the one `save` would store; building the
    ORM's UPDATE took most of an episode's finish. `where` adds conditions of equality
    on other fields (`filter(pk=…, **where).update(…)`: the row is changed only while they hold)."""
    model = type(instance)
    connection = transaction.get_connection()
    fields = [model._meta.get_field(name) for name in field_names]
    conditions = [(model._meta.get_field(name), value) for name, value in (where or {}).items()]
    key = (model, field_names, tuple(field.name for field, _ in conditions), connection.alias, connection.vendor)
    sql = _UPDATES.get(key)
    if sql is None:
        quote = connection.ops.quote_name
        sql = _UPDATES[key] = (
            f"UPDATE {quote(model._meta.db_table)} SET {', '.join(f'{quote(f.column)} = %s' for f in fields)} "
            f"WHERE {' AND '.join(f'{quote(f.column)} = %s' for f in (model._meta.pk, *(f for f, _ in conditions)))}"
        )
    params = [field.get_db_prep_save(field.pre_save(instance, False), connection) for field in fields]
    params.append(model._meta.pk.get_db_prep_value(instance.pk, connection))
    params.extend(field.get_db_prep_value(value, connection) for field, value in conditions)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount
