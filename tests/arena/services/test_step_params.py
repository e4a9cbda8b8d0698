"""The step writer's prepared insert hands the database exactly what the fields would.

`_StepSQL.insert_params` passes values of the types a field stores unchanged straight
through and sends every other value through its field; whatever the values, the
parameters must equal those of `get_db_prep_save` on every field, value for value and
type for type (an int given to a FloatField is stored as a float, "" as a NULL key).
"""

import dataclasses
from datetime import datetime, timezone

import pytest
from django.db import connections
from django.utils.functional import lazy

from arena.storage import steptext
from arena.models import Episode
from arena.services.steps import StepRecord, _StepSQL, calls_to_store

lazy_text = lazy(lambda: "lazy text", str)


def fields_of(record: StepRecord) -> dict:
    fields = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    fields["calls"] = calls_to_store(record.completion, record.calls)
    image = fields.pop("observation_image")
    fields.pop("viewer_frame")
    fields["observation_image_id"] = image
    return steptext.to_store(fields)


RECORDS = [
    # What the runner stores for a zero-latency baseline and a model step.
    StepRecord(index=3, observation_text="You see a wall", observation_image=None, prompt_added=[], completion="",
               reasoning="", parsed_action="turn left", executed_action="turn left", legal=True, reward=0.0,
               done=False, end_reason="", tokens_in=None, tokens_out=None, latency_ms=None, error="",
               info={"viewer_frame": "ab" * 32}),
    StepRecord(index=7, observation_text="obs " * 40, observation_image=None,
               prompt_added=[{"type": "text", "text": "before obs " + "obs " * 40 + " after"}],
               completion=" go forward ", reasoning="go forward", parsed_action="go forward",
               executed_action="go forward", legal=False, reward=1.5, done=True, end_reason="mission accomplished",
               tokens_in=120, tokens_out=9, latency_ms=210.25, error="", info={"match": True},
               calls=[{"purpose": "act", "tokens_in": 120, "tokens_out": 9, "latency_ms": 210.25,
                       "completion": " go forward "}], cached_tokens_in=64, cut_off=True, reasoning_tokens=3),
    # Values of other types than the field's own: each goes through its field.
    StepRecord(index=True, observation_text=lazy_text(), observation_image=None, prompt_added=[],
               completion=lazy_text(), reasoning=None, parsed_action=None, executed_action="x", legal=1,
               reward=2, done=0, end_reason="", tokens_in=True, tokens_out=4.0, latency_ms=7, error="",
               reasoning_tokens=False),
]


@pytest.mark.django_db
@pytest.mark.parametrize("record", RECORDS, ids=["baseline", "model", "other-types"])
@pytest.mark.parametrize("image", ["", None, "cd" * 32], ids=["empty-key", "no-image", "image"])
def test_insert_params_equal_the_fields_own_preparation(record, image):
    connection = connections[Episode.objects.db]
    sql = _StepSQL.for_connection(connection)
    now = datetime(2026, 11, 26, 18, 0, 0, 123456, tzinfo=timezone.utc)
    fields = {**fields_of(record), "observation_image_id": image}

    fast = sql.insert_params(41, now, fields)
    through_fields = [f.get_db_prep_save({**fields, "episode_id": 41, "created_at": now}[f.attname], connection)
                      for f in sql.step_fields]

    assert [(type(value), value) for value in fast] == [(type(value), value) for value in through_fields]
    assert fast == sql.insert_params_through_fields(41, now, fields)


@pytest.mark.django_db
def test_heartbeat_params_prepare_each_batchs_time():
    connection = connections[Episode.objects.db]
    sql = _StepSQL.for_connection(connection)
    first = datetime(2026, 11, 26, 18, 0, 0, tzinfo=timezone.utc)
    second = datetime(2026, 11, 26, 18, 0, 1, tzinfo=timezone.utc)
    heartbeat_at = Episode._meta.get_field("heartbeat_at")

    assert sql.heartbeat_params(first, 4, 9, "w") == [
        heartbeat_at.get_db_prep_value(first, connection), 5, 9, "w", Episode.RUNNING]
    assert sql.heartbeat_params(second, 0, 9, "w")[0] == heartbeat_at.get_db_prep_value(second, connection)


@pytest.mark.django_db
def test_insert_params_prepare_each_batchs_creation_time_and_json():
    connection = connections[Episode.objects.db]
    sql = _StepSQL.for_connection(connection)
    fields = fields_of(RECORDS[1])
    created_at = [f for f in sql.step_fields if f.attname == "created_at"][0]
    first = datetime(2026, 11, 26, 18, 0, 0, tzinfo=timezone.utc)
    second = datetime(2026, 11, 26, 18, 0, 1, tzinfo=timezone.utc)
    position = sql.step_fields.index(created_at)
    assert sql.insert_params(41, first, fields)[position] == created_at.get_db_prep_save(first, connection)
    assert sql.insert_params(41, second, fields)[position] == created_at.get_db_prep_save(second, connection)
    # JSON as its field writes it, nested values and non-ASCII text included.
    fields = {**fields, "info": {"context": {"dropped": 2}, "note": "café ☕", "seeds": [1, 2.5, None, True]}}
    info = [f for f in sql.step_fields if f.attname == "info"][0]
    sent = sql.insert_params(41, second, fields)[sql.step_fields.index(info)]
    expected = info.get_db_prep_save(fields["info"], connection)
    # PostgreSQL's adapter (psycopg's Jsonb) compares by identity: compare what it wraps.
    assert (type(sent), getattr(sent, "obj", sent)) == (type(expected), getattr(expected, "obj", expected))
