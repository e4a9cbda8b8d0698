"""A claimed episode is loaded by SQL written once (arena.services.prepared.PreparedGet):
the episode, its run and its submission hold the values, types and deferred fields the
ORM's select_related query gives, so the runner plays from the same state as before."""

import pytest
from django.db import connection
from django.db.models.query_utils import DeferredAttribute

from arena.models import Episode, Run, Submission
from arena.play.loading import EPISODE_RUN_SUBMISSION as _EPISODE_RUN_SUBMISSION, claim_and_load as _claim_and_load
from arena.services.episodes import episode_claim
from arena.services.prepared import PreparedGet
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True)


def _values(instance) -> list:
    # Every concrete field, the deferred ones as the marker the ORM leaves (not loaded).
    loaded = instance.get_deferred_fields()
    return [
        (field.attname, "deferred") if field.attname in loaded
        else (field.attname, type(getattr(instance, field.attname)), getattr(instance, field.attname))
        for field in type(instance)._meta.concrete_fields
    ]


def _queries(call) -> list[str]:
    sent = []

    def capture(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        call()
    return sent


@pytest.fixture
def played_episode(make_model_submission):
    # Values of every kind the loader converts: JSON (dicts, lists, null), datetimes,
    # booleans, floats, an encrypted key, empty and null columns.
    submission = make_model_submission(api_key="sk-loaded-0123456789", endpoint_probe=None)
    Submission.objects.filter(pk=submission.pk).update(
        endpoint_probe={"server_kind": "llama.cpp", "content_parts": False}, thinking_budget_tokens=512)
    run = new_run(Submission.objects.get(pk=submission.pk), episodes=2)
    Run.objects.filter(pk=run.pk).update(metric_sums={"success": [1.0, 2]}, budget_usd=1.25)
    episode = run.episodes.order_by("index").first()
    assert episode_claim(episode.pk, "w")
    Episode.objects.filter(pk=episode.pk).update(
        prompt_prefix=[{"role": "user", "content": "x"}], demonstration_seeds=[4, 5], score=0.5)
    return episode


def test_the_claimed_episode_run_and_submission_are_those_the_orm_loads(played_episode):
    expected = Episode.objects.select_related("run__submission").get(pk=played_episode.pk)
    loaded = _EPISODE_RUN_SUBMISSION.get(played_episode.pk)
    assert _values(loaded) == _values(expected)
    assert _values(loaded.run) == _values(expected.run)
    assert _values(loaded.run.submission) == _values(expected.run.submission)
    assert loaded.run.submission.get_api_key() == "sk-loaded-0123456789"
    assert loaded.run.submission.endpoint_probe == {"server_kind": "llama.cpp", "content_parts": False}
    assert (loaded._state.db, loaded._state.adding) == (expected._state.db, expected._state.adding)
    # The run and the submission come with the episode: reading them sends no query.
    assert _queries(lambda: loaded.run.submission.base_url) == []


def test_claim_and_load_sends_one_query_for_the_three_rows(played_episode):
    Episode.objects.filter(pk=played_episode.pk).update(status=Episode.QUEUED, worker="")
    sent = _queries(lambda: _claim_and_load(played_episode.pk, "w2"))
    # Before, the ORM's select_related query was built afresh for each claimed episode.
    loads = [sql for sql in sent if sql.startswith("SELECT") and '"arena_submission"' in sql]
    assert len(loads) == 1 and '"arena_episode"' in loads[0] and '"arena_run"' in loads[0]
    assert loads[0] == _EPISODE_RUN_SUBMISSION._compiled[(connection.alias, connection.vendor)][0]


def test_only_loads_the_fields_named_and_defers_the_others(played_episode):
    load = PreparedGet(Episode, ("run",), only={Episode: {"status", "worker", "run"}, Run: {"metric_sums"}})
    loaded = load.get(played_episode.pk)
    assert loaded.get_deferred_fields() == {
        f.attname for f in Episode._meta.concrete_fields} - {"id", "status", "worker", "run_id"}
    assert (loaded.status, loaded.worker, loaded.run.metric_sums) == (Episode.RUNNING, "w", {"success": [1.0, 2]})
    assert isinstance(Episode.__dict__["score"], DeferredAttribute)
    assert loaded.score == 0.5  # a deferred field is read on demand, as after .only()


def test_a_missing_row_raises_does_not_exist():
    with pytest.raises(Episode.DoesNotExist):
        _EPISODE_RUN_SUBMISSION.get(987654)


def _stored_row(episode_id) -> tuple:
    with connection.cursor() as cursor:
        columns = ", ".join(f'"{f.column}"' for f in Episode._meta.concrete_fields)
        cursor.execute(f'SELECT {columns} FROM "arena_episode" WHERE "id" = %s', [episode_id])
        return cursor.fetchone()


def test_update_row_stores_what_save_with_update_fields_stores(baseline):
    from django.utils import timezone

    from arena.services.episodes import _FINISHED_FIELDS
    from arena.services.prepared import update_row

    run = new_run(baseline("random"), episodes=2)
    saved, updated = run.episodes.order_by("index")
    finished_at = timezone.now()
    for episode in (saved, updated):
        episode.status, episode.finished_at, episode.score = Episode.FINISHED, finished_at, 2.5
        episode.end_reason, episode.error, episode.error_kind = "goal reached", "", ""
        episode.num_steps, episode.illegal_steps, episode.tokens_in, episode.first_trimmed_step = 7, 1, 300, None
        episode.final_observation_text, episode.metrics, episode.reflection = "final\nview", {"success": 1.0}, "lesson"
    saved.save(update_fields=list(_FINISHED_FIELDS))
    assert update_row(updated, _FINISHED_FIELDS) == 1
    columns = [f.column for f in Episode._meta.concrete_fields]
    differing = [
        column for column, a, b in zip(columns, _stored_row(saved.pk), _stored_row(updated.pk))
        if a != b and column not in ("id", "index", "seed", "queue_priority")  # the two episodes' own
    ]
    assert differing == []
    assert Episode.objects.get(pk=updated.pk).metrics == {"success": 1.0}


def test_the_prefix_is_stored_as_the_orms_update_stored_it_and_only_by_the_holder(baseline):
    from arena.services.episodes import episode_set_prefix
    from arena.services.steps import LeaseLost

    run = new_run(baseline("random"), episodes=2)
    through_orm, prepared = run.episodes.order_by("index")
    for episode in (through_orm, prepared):
        assert episode_claim(episode.pk, "w")
    prefix = [{"type": "text", "text": "Preamble ☕\n"}, {"type": "image", "sha256": "ab" * 32}]
    capped = {"requested": 4, "used": 2}
    Episode.objects.filter(pk=through_orm.pk).update(
        prompt_prefix=prefix, demonstration_seeds=[7, 9], demonstrations_capped=capped)
    episode_set_prefix(prepared.pk, "w", prefix, [7, 9], capped=capped)
    differing = [
        f.column for f, a, b in zip(Episode._meta.concrete_fields, _stored_row(through_orm.pk), _stored_row(prepared.pk))
        if a != b and f.column not in ("id", "index", "seed", "queue_priority", "heartbeat_at", "started_at")
    ]
    assert differing == []
    with pytest.raises(LeaseLost):
        episode_set_prefix(prepared.pk, "another worker", [], [])
    assert Episode.objects.get(pk=prepared.pk).prompt_prefix == prefix
    Episode.objects.filter(pk=prepared.pk).update(status=Episode.FINISHED)
    with pytest.raises(LeaseLost):
        episode_set_prefix(prepared.pk, "w", [], [])
