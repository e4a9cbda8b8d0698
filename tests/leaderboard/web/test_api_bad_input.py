"""Bad input to the API gets a clear 400 (or 404), never a server error."""

import json

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    client = APIClient()
    user = User.objects.create_user("deep", password="a-long-enough-password")
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.mark.parametrize(
    "query, field, words",
    [
        ("submission=abc", "submission", "valid integer"),
        (f"submission={10**25}", "submission", "less than or equal"),
        ("submission=0", "submission", "greater than or equal to 1"),
        ("submission=1.5", "submission", "valid integer"),
        ("status=bogus", "status", "not a valid choice"),
        ("task=lmact/pinball", "task", "Unknown task"),
    ],
)
def test_run_filters_are_checked(query, field, words):
    response = APIClient().get(f"/api/runs/?{query}")
    assert response.status_code == 400, response.content
    assert words.lower() in json.dumps(response.json()[field]).lower()


def test_good_run_filters_still_filter(baseline):
    from tests.conftest import new_run

    run = new_run(baseline("expert"), task="lmact/gridworld")
    client = APIClient()
    found = client.get(f"/api/runs/?submission={run.submission_id}&status=queued&task=lmact/gridworld").json()
    assert [r["id"] for r in found["results"]] == [run.pk]
    assert client.get("/api/runs/?status=finished").json()["results"] == []
    assert client.get("/api/runs/?submission=&status=&task=").json()["count"] == 1  # empty means no filter


@pytest.mark.parametrize(
    "url",
    [f"/api/runs/{10**25}/", f"/api/episodes/{10**25}/", f"/api/episodes/{10**25}/steps/",
     f"/api/submissions/{10**25}/", f"/api/experiments/{10**25}/", "/api/runs/abc/"],
)
def test_ids_out_of_range_are_not_found(url):
    assert APIClient().get(url).status_code == 404


@pytest.mark.parametrize("url", [f"/api/runs/{10**25}/requeue/", f"/api/runs/{10**25}/cancel/"])
def test_run_actions_on_ids_out_of_range_are_not_found(api, url):
    assert api.post(url).status_code == 404


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("url", ["/api/submissions/", "/api/experiments/", "/api/token/"])
@pytest.mark.parametrize("depth", [100, 100_000])
def test_a_deeply_nested_body_is_a_clear_400_and_creates_nothing(api, url, depth):
    body = '{"name": "deep", "tasks": ' + _nested(depth) + "}"
    response = api.post(url, body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert "nested" in response.json()["detail"]
    assert not Submission.objects.exists()


def test_ordinary_nesting_is_still_parsed(api):
    response = api.post("/api/submissions/", {"name": "x", "tasks": [["lmact/gridworld:ascii"]]}, format="json")
    assert response.status_code == 400
    assert "tasks" in response.json()  # the field's own error, not a parse error


def test_the_token_endpoint_still_takes_json_and_form_bodies():
    User.objects.create_user("tok", password="a-long-enough-password")
    credentials = {"username": "tok", "password": "a-long-enough-password"}
    as_json = APIClient().post("/api/token/", credentials, format="json")
    as_form = APIClient().post("/api/token/", credentials)
    assert as_json.status_code == as_form.status_code == 200
    assert as_json.json()["token"] == as_form.json()["token"]
