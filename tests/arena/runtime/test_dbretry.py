"""A transaction the database aborted for a deadlock or a serialization failure is run
again, a bounded number of times, and only when it is a transaction of its own.

(The same against a real PostgreSQL deadlock: tests/arena/test_postgres_scaled_mode.py.)"""

import logging

import pytest
from django.db import OperationalError, transaction

from arena.runtime import dbretry
from arena.runtime.dbretry import conflict_of, retry_on_conflict


class DriverError(Exception):
    """What a PostgreSQL driver raises: the SQLSTATE in `sqlstate`."""

    def __init__(self, sqlstate):
        super().__init__(f"sqlstate {sqlstate}")
        self.sqlstate = sqlstate


def database_error(sqlstate):
    """The error as Django raises it: its own OperationalError, the driver's as cause."""
    error = OperationalError("the database says no")
    error.__cause__ = DriverError(sqlstate)
    return error


class Flaky:
    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, value):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return value


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    monkeypatch.setattr(dbretry, "FIRST_BACKOFF_SECONDS", 0.0)


def test_deadlocks_and_serialization_failures_are_told_from_other_errors():
    assert conflict_of(database_error("40P01")) == "deadlock"
    assert conflict_of(database_error("40001")) == "serialization failure"
    assert conflict_of(database_error("23505")) is None  # a unique violation is no conflict
    assert conflict_of(OperationalError("database is locked")) is None


@pytest.mark.django_db(transaction=True)
def test_a_deadlocked_transaction_is_run_again_with_a_log_line(caplog):
    flaky = Flaky(database_error("40P01"), database_error("40001"))
    with caplog.at_level(logging.WARNING, logger="arena.runtime.dbretry"):
        assert retry_on_conflict(flaky)("stored") == "stored"
    assert flaky.calls == 3
    assert [r.getMessage().split(": the database")[1] for r in caplog.records] == [
        " aborted the transaction (deadlock); running it again (attempt 2 of 5)",
        " aborted the transaction (serialization failure); running it again (attempt 3 of 5)",
    ]


@pytest.mark.django_db(transaction=True)
def test_retries_are_bounded():
    flaky = Flaky(*[database_error("40P01")] * (dbretry.ATTEMPTS + 1))
    with pytest.raises(OperationalError):
        retry_on_conflict(flaky)("never")
    assert flaky.calls == dbretry.ATTEMPTS


@pytest.mark.django_db(transaction=True)
def test_other_errors_are_not_retried():
    flaky = Flaky(database_error("23505"))
    with pytest.raises(OperationalError):
        retry_on_conflict(flaky)("never")
    assert flaky.calls == 1


@pytest.mark.django_db(transaction=True)
def test_inside_another_transaction_it_runs_once():
    """The outer transaction was aborted with it: only its caller can run it again."""
    flaky = Flaky(database_error("40P01"))
    with pytest.raises(OperationalError), transaction.atomic():
        retry_on_conflict(flaky)("never")
    assert flaky.calls == 1
