"""A base URL's query string (where gateways take a credential) is encrypted at rest like
the API key (issue 41): the database column, hence every backup, holds a Fernet token in
its place; the code reads the URL as submitted; existing rows are encrypted by the
migration; the edit history keeps the query's names only."""

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.db.models import TextField, Value

from arena.endpoints.url import ENCRYPTED_QUERY, conceal_query, reveal_query, without_query
from arena.models import Submission, SubmissionEdit
from arena.services.run_actions import submission_update_endpoint

URL = "https://gateway.example/tenant/acme/v1?key=sk-gw-Secret-77&region=eu"

migration = importlib.import_module("arena.migrations.0025_privacy41_encrypted_url_query")


def _column(submission) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT base_url FROM arena_submission WHERE id = %s", [submission.pk])
        return cursor.fetchone()[0]


def test_a_query_is_stored_as_a_token_and_read_back_as_submitted():
    stored = conceal_query(URL)
    assert stored.startswith("https://gateway.example/tenant/acme/v1?" + ENCRYPTED_QUERY)
    assert "Secret-77" not in stored and "region" not in stored
    assert reveal_query(stored) == URL
    assert conceal_query(stored) == stored  # never encrypted twice
    assert conceal_query("http://10.0.0.7:8000/v1") == "http://10.0.0.7:8000/v1"
    assert reveal_query("http://10.0.0.7:8000/v1?plain=1") == "http://10.0.0.7:8000/v1?plain=1"


def test_a_rotated_key_leaves_the_query_encrypted_never_garbled_into_plain_text(settings):
    stored = conceal_query(URL)
    settings.ARENA_ENCRYPTION_KEY = "x" * 43 + "="
    assert reveal_query(stored) == stored


@pytest.mark.django_db
def test_the_column_holds_no_query_and_the_model_gives_it_back(make_model_submission):
    submission = make_model_submission(base_url=URL)
    assert "Secret-77" not in _column(submission)
    assert Submission.objects.get(pk=submission.pk).base_url == URL


@pytest.mark.django_db
def test_the_migration_encrypts_the_queries_stored_in_plain_text(make_model_submission):
    submission = make_model_submission(base_url=URL)
    Submission.objects.filter(pk=submission.pk).update(base_url=Value(URL, output_field=TextField()))
    SubmissionEdit.objects.create(submission=submission, changes={"base_url": ["http://old.example/v1?key=Old-1", URL]})
    assert _column(submission) == URL  # as a row written before the migration
    migration.encrypt_queries(apps, None)
    assert "Secret-77" not in _column(submission) and Submission.objects.get(pk=submission.pk).base_url == URL
    edit = SubmissionEdit.objects.get(submission=submission)
    assert edit.changes["base_url"] == ["http://old.example/v1?key=…", "https://gateway.example/tenant/acme/v1?key=…&region=…"]
    migration.decrypt_queries(apps, None)
    assert _column(submission) == URL


@pytest.mark.django_db
def test_an_edit_of_the_base_url_keeps_no_query_value_in_the_history(make_model_submission):
    submission = make_model_submission()
    edit = submission_update_endpoint(submission, changed_by=None, changes={"base_url": URL}, api_key=None)
    assert edit.changes["base_url"][1] == without_query(URL) == "https://gateway.example/tenant/acme/v1?key=…&region=…"
    assert Submission.objects.get(pk=submission.pk).base_url == URL


@pytest.mark.django_db
def test_errors_stored_under_the_old_redaction_are_hidden_again(make_model_submission):
    from arena.models import Episode
    from tests.conftest import new_run

    rehide = importlib.import_module("arena.migrations.0026_privacy41_rehide_stored_errors").rehide
    submission = make_model_submission(base_url="http://10.0.0.7:18757/Tenant-Acme/v1?key=Sk-Old-9")
    episode = new_run(submission).episodes.get()
    old = "model endpoint failed: Cannot POST /Tenant-Acme/v1/chat/completions; query key=Sk-Old-9; ('10.0.0.7', 18757)"
    Episode.objects.filter(pk=episode.pk).update(error=old)
    rehide(apps, None)
    error = Episode.objects.get(pk=episode.pk).error
    assert error.startswith("model endpoint failed: Cannot POST [endpoint]/chat/completions")
    for piece in ("Acme", "Sk-Old-9", "10.0.0.7", "18757"):
        assert piece not in error, error
