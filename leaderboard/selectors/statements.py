"""Statements the read side sends at every request, built by the ORM once per process.

A page's queries are the same text at every request (the data are the rows they find,
not their SQL): building a filtered queryset and compiling it was a tenth of the front
page's read (bench/read_pages.py). A statement is kept by its caller's key, the database
and its vendor, and only where the ORM gives the values as the driver reads them (no
field or expression converts them); otherwise the ORM reads the rows as before.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from django.core.exceptions import EmptyResultSet
from django.db import connections, router
from django.db.models import Model, QuerySet

# By (caller's key, database, vendor): the SQL, its parameters and the database. A
# key holds at most a filter or a game's name, but a bound keeps a key made of a
# visitor's input from growing the process.
KEPT_AT_MOST = 256
_KEPT: dict[tuple, tuple[str, tuple, str]] = {}


def statement_of(values: QuerySet) -> tuple[str, tuple, str] | None:
    """The SQL, parameters and database of the values queryset `values`, when its rows
    are the driver's rows as the ORM gives them; None when a value is converted or the
    ORM sends nothing (a filter no row can pass, e.g. an empty IN)."""
    compiler = values.query.get_compiler(values.db)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return None
    if compiler.get_converters([column for column, _, _ in compiler.select]):
        return None
    return sql, tuple(params), values.db


def rows_of(statement: tuple[str, tuple, str]) -> list[tuple]:
    """The rows of a statement of `statement_of`."""
    sql, params, database = statement
    with connections[database].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def kept_rows(model: type[Model], key: Hashable, values: Callable[[], QuerySet]) -> list[tuple]:
    """The rows of the values_list queryset `values()` (of `model`), from its statement
    kept under `key` after the first call: `values` must build the same SQL whenever
    `key` is the same."""
    database = router.db_for_read(model)
    kept_as = (key, database, connections[database].vendor)
    statement = _KEPT.get(kept_as)
    if statement is None:
        queryset = values()
        statement = statement_of(queryset)
        if statement is None:
            return [tuple(row) for row in queryset]
        if len(_KEPT) < KEPT_AT_MOST:
            _KEPT[kept_as] = statement
    return rows_of(statement)
