"""The API refuses a field it does not have instead of dropping it: a script sending the
experiments API's `num_episodes` to the submissions API used to get ten episodes per task
without a word. The refusal names the field and the one meant, and changes nothing."""

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Experiment, Run, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    user = User.objects.create_user("strict", password="a-long-enough-password")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def _body(base_url, **extra):
    return {"name": "Strict", "base_url": base_url, "model": "fake-model", "tasks": ["lmact/gridworld:ascii"], **extra}


@pytest.mark.parametrize("query", ["", "?dry_run=1"])
@pytest.mark.parametrize(
    "field, value, meant",
    [("num_episodes", 2, "episodes_per_task"), ("temprature", 0.5, "temperature"), ("task", "lmact/gridworld", "tasks")],
)
def test_a_submission_with_a_field_the_api_lacks_is_refused_with_the_field_meant(
    api, allow_loopback, fake_model, query, field, value, meant
):
    response = api.post(f"/api/submissions/{query}", _body(fake_model.base_url, **{field: value}), format="json")

    assert response.status_code == 400, response.content
    assert response.json() == {field: [f'Unknown field. Did you mean "{meant}"?']}
    assert not Submission.objects.exists() and not Run.objects.exists()
    assert fake_model.requests == []  # refused before the endpoint is called


def test_a_field_nothing_resembles_is_named_without_a_guess(api, allow_loopback, fake_model):
    response = api.post("/api/submissions/", _body(fake_model.base_url, colour="blue"), format="json")

    assert response.status_code == 400
    assert response.json() == {"colour": ["Unknown field."]}


def test_fields_a_submission_reads_back_are_refused_when_sent(api, allow_loopback, fake_model):
    # docs/api.md: refused, never dropped. A script that posts back what it read is told
    # which fields to leave out, and nothing is created.
    response = api.post("/api/submissions/", _body(fake_model.base_url, episodes_per_task=1, id=99, runs=[]), format="json")

    assert response.status_code == 400, response.content
    assert set(response.json()) == {"id", "runs"}
    assert not Run.objects.exists()


def test_an_experiment_with_the_submissions_spelling_is_refused(api):
    response = api.post(
        "/api/experiments/", {"submission": 1, "task": "lmact/gridworld:ascii", "episodes_per_task": 5}, format="json"
    )

    assert response.status_code == 400
    assert response.json() == {"episodes_per_task": ['Unknown field. Did you mean "num_episodes"?']}
    assert not Experiment.objects.exists()


@pytest.mark.parametrize("field, value", [("id", 7), ("kind", "baseline"), ("moderation", "verified"), ("created_at", "2020-01-01T00:00:00Z")])
def test_a_read_only_field_in_a_submission_is_refused_not_dropped(api, allow_loopback, fake_model, field, value):
    response = api.post("/api/submissions/", _body(fake_model.base_url, **{field: value}), format="json")

    assert response.status_code == 400, response.content
    assert response.json() == {field: ["Read-only field: the arena sets it; leave it out."]}
    assert not Submission.objects.exists() and fake_model.requests == []
