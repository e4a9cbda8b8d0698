"""Statements the ORM wrote once (arena.services.prepared) are the statements it would
write for every call: same SQL, same parameters value for value and type for type, and
the same results, for the claim and the finish of an episode."""

from datetime import datetime, timezone

import pytest
from django.db import connection
from django.utils import timezone as django_timezone

from arena.play import loading
from arena.models import Episode, Run, Step
from arena.services import episodes, runs, turns
from arena.services.aggregates import step_totals, step_totals_through_orm
from arena.services.episodes import episode_claim, episode_finish, episode_has_steps
from arena.services.prepared import Prepared
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True)


def _sent_by(call) -> list[tuple[str, tuple]]:
    sent = []

    def capture(execute, sql, params, many, context):
        sent.append((sql, tuple(params or ())))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        call()
    return sent


def _typed(params) -> list:
    return [(type(p), p) for p in params]


NOW = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=timezone.utc)

# Each prepared statement of the claim and the finish, with values of every kind it is
# called with (an int score and a float one: the ORM may write them apart).
CASES = [
    (episodes._CLAIM_EPISODE, {"episode_id": 12, "worker": "worker-1", "now": NOW}),
    (episodes._RUN_ID_OF_EPISODE, {"episode_id": 12}),
    (episodes._FIRST_STORED_STEP, {"episode_id": 12}),
    (episodes._START_RUN, {"run_id": 3, "now": NOW}),
    (runs._FINISH_RUN, {"run_id": 3, "now": NOW}),
    (runs._FAIL_RUN, {"run_id": 3, "now": NOW}),
    (episodes._RUN_EPISODE_DONE, {
        "run_id": 3, "score": 0.75, "score_sq": 0.5625, "steps_total": 40, "illegal_total": 3,
        "illegal_fraction_sum": 0.075, "illegal_episodes": 1, "cut_off_total": 0, "reasoning_tokens": 0,
        "tokens_in": 1200, "tokens_out": 30, "model_calls": 40, "model_latency_ms": 812.5,
    }),
    (episodes._RUN_EPISODE_DONE, {
        "run_id": 3, "score": 1, "score_sq": 1, "steps_total": 0, "illegal_total": 0, "illegal_fraction_sum": 0.0,
        "illegal_episodes": 1, "cut_off_total": 0, "reasoning_tokens": 0, "tokens_in": 0, "tokens_out": 0,
        "model_calls": 0, "model_latency_ms": 0.0,
    }),
    # Asked by a worker for every episode it takes (arena.play.worker).
    (loading._ENDPOINT_OF_EPISODE, {"episode_id": 12}),
    (turns._QUEUED_EPISODE_ACCOUNT, {"episode_id": 12}),
]


@pytest.mark.parametrize("prepared, values", CASES)
def test_a_prepared_statement_is_the_one_the_orm_sends(prepared, values):
    (expected_sql, expected_params), = _sent_by(lambda: prepared.statement(**values))
    sql, params = prepared._bind(connection, values)
    assert sql == expected_sql
    assert _typed(params) == _typed(expected_params)
    # A second call, other values: still the ORM's statement for those.
    other = {k: (v + 1 if type(v) in (int, float) else v) for k, v in values.items()}
    (expected_sql, expected_params), = _sent_by(lambda: prepared.statement(**other))
    sql, params = prepared._bind(connection, other)
    assert sql == expected_sql
    assert _typed(params) == _typed(expected_params)


def test_a_statement_that_does_not_send_a_value_is_refused():
    ignoring = Prepared(lambda run_id: list(Run.objects.filter(pk=1).values_list("id", flat=True)))
    with pytest.raises(RuntimeError, match="run_id"):
        ignoring.execute(run_id=5)


def _step(episode, index, **fields):
    values = dict(observation_text="o", completion="c", parsed_action="a", executed_action="a", legal=True)
    values.update(fields)
    Step.objects.create(episode=episode, index=index, **values)


def test_step_totals_equal_the_orms_value_for_value_and_type_for_type(baseline):
    run = new_run(baseline("random"), episodes=3)
    empty, plain, modelled = run.episodes.order_by("index")
    for index in range(4):
        _step(plain, index, legal=index != 2)
    _step(modelled, 0, tokens_in=120, tokens_out=7, latency_ms=250.5, reasoning_tokens=3)
    _step(modelled, 1, legal=False, cut_off=True, tokens_in=130, tokens_out=64, latency_ms=99.0,
          info={"context": {"dropped": 1}})
    _step(modelled, 2, legal=False, tokens_in=140, tokens_out=5, info={"context": {"dropped": 2}})
    _step(modelled, 3, info={"other": 1})
    for episode in (empty, plain, modelled):
        totals = step_totals(episode)
        expected = step_totals_through_orm(episode)
        assert list(totals) == list(expected)
        assert _typed(totals.values()) == _typed(expected.values())
    assert step_totals(modelled)["first_trimmed"] == 1
    assert step_totals(modelled)["illegal"] == 1 and step_totals(modelled)["cut_off"] == 1


def test_claim_and_finish_store_what_they_did_through_the_orm(baseline):
    run = new_run(baseline("random"), episodes=2)
    first, second = run.episodes.order_by("index")
    before = django_timezone.now()
    assert episode_claim(first.pk, "w")
    assert not episode_claim(first.pk, "other")
    first.refresh_from_db()
    run.refresh_from_db()
    assert (first.status, first.worker, first.attempts, run.status) == (Episode.RUNNING, "w", 1, Run.RUNNING)
    assert first.started_at == first.heartbeat_at == run.started_at and first.started_at >= before
    _step(first, 0, legal=False, tokens_in=10, tokens_out=2, latency_ms=5.0)
    _step(first, 1, tokens_in=11, tokens_out=3, latency_ms=7.5)
    episode_finish(first.pk, "w", score=0.5, end_reason="episode over")
    run.refresh_from_db()
    assert (run.episodes_done, run.score_sum, run.score_sq_sum, run.steps_total, run.illegal_total) == (
        1, 0.5, 0.25, 2, 1)
    assert (run.illegal_fraction_sum, run.illegal_episodes, run.model_calls, run.model_latency_ms) == (0.5, 1, 2, 12.5)
    assert (run.tokens_in, run.tokens_out, run.status) == (21, 5, Run.RUNNING)
    assert episode_has_steps(first.pk) and not episode_has_steps(second.pk)
    assert episode_claim(second.pk, "w")
    episode_finish(second.pk, "w", score=1, end_reason="episode over")
    run.refresh_from_db()
    assert (run.episodes_done, run.score_sum, run.score_sq_sum, run.status) == (2, 1.5, 1.25, Run.FINISHED)
    assert run.finished_at is not None


@pytest.mark.parametrize("kind", ["numpy", "decimal"])
def test_values_no_stand_in_can_stand_for_go_through_the_orm(baseline, kind):
    # numpy's float64 is a float that the ORM turns into a plain one on the way.
    from decimal import Decimal

    import numpy

    of = numpy.float64 if kind == "numpy" else lambda v: Decimal(str(v))
    run = new_run(baseline("random"), episodes=1)
    prepared, values = next(case for case in CASES if case[0] is episodes._RUN_EPISODE_DONE)
    values = {**values, "run_id": run.pk, "score": of(0.5), "score_sq": of(0.25)}
    assert prepared.execute(**values) == (1, None, [])
    # Not compiled with a stand-in for them: the ORM was asked.
    assert all(("score", type(values["score"])) not in key for key in prepared._compiled)
    run.refresh_from_db()
    assert (run.episodes_done, run.score_sum, run.score_sq_sum, run.tokens_in) == (1, 0.5, 0.25, 1200)


@pytest.mark.parametrize("prepared", [loading._ENDPOINT_OF_EPISODE, turns._QUEUED_EPISODE_ACCOUNT])
def test_a_row_of_several_columns_is_the_same_written_once_or_through_the_orm(baseline, prepared):
    episode = new_run(baseline("random"), episodes=1).episodes.get()
    written_once = prepared.execute(episode_id=episode.pk)[1]
    through_orm = prepared.execute_through_orm(episode_id=episode.pk)[1]
    assert written_once == through_orm
    assert len(written_once) > 1 and episode.run.submission_id in written_once
    assert prepared.execute(episode_id=episode.pk + 1000)[1] is None
    assert prepared.execute_through_orm(episode_id=episode.pk + 1000)[1] is None
