"""leaderboard.selectors.statements keeps a read's SQL after its first use: the rows it
reads later are the ORM's rows of the data as they are then."""

import pytest

from arena.models import Run
from leaderboard.selectors import statements
from leaderboard.selectors.statements import kept_rows
from tests.conftest import new_run

pytestmark = pytest.mark.django_db


def _values():
    return Run.objects.filter(episodes_done__gt=0).order_by("id").values_list("id", "task", "score_sum", "harness_version")


def test_a_kept_statement_reads_the_data_as_they_are_now(baseline, django_assert_num_queries):
    first = new_run(baseline("random"), task="lmact/tictactoe")
    Run.objects.filter(pk=first.pk).update(episodes_done=1, score_sum=0.5)
    assert kept_rows(Run, "test: scored", _values) == [tuple(row) for row in _values()]
    second = new_run(baseline("random"), task="lmact/gridworld")
    Run.objects.filter(pk=second.pk).update(episodes_done=2, score_sum=-1.25, metric_sums={"a": {"n": 1}})
    with django_assert_num_queries(1):
        rows = kept_rows(Run, "test: scored", lambda: pytest.fail("the statement is kept"))
    assert rows == [tuple(row) for row in _values()] and len(rows) == 2


def test_values_the_orm_converts_and_empty_filters_are_read_by_the_orm(baseline, django_assert_num_queries):
    run = new_run(baseline("random"), task="lmact/tictactoe")
    converted = Run.objects.filter(pk=run.pk).values_list("created_at", "metric_sums")
    assert statements.statement_of(converted) is None  # a datetime and a JSON field
    assert kept_rows(Run, "test: converted", lambda: converted) == [tuple(row) for row in converted]
    assert ("test: converted", "default", "sqlite") not in statements._KEPT
    with django_assert_num_queries(0):
        assert kept_rows(Run, "test: empty", lambda: Run.objects.filter(pk__in=[]).values_list("id")) == []


def test_the_kept_statements_are_bounded(monkeypatch, baseline):
    monkeypatch.setattr(statements, "_KEPT", {})
    monkeypatch.setattr(statements, "KEPT_AT_MOST", 2)
    for key in range(4):
        assert kept_rows(Run, ("test: bound", key), _values) == []
    assert len(statements._KEPT) == 2
