"""The REST API: public reads, token-authenticated writes, clear errors."""

import json

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Episode, Run, Submission
from tests.conftest import as_preset, new_run

pytestmark = pytest.mark.django_db

CANARY = "sk-canary-never-shown-4242"


@pytest.fixture
def client_with_token():
    user = User.objects.create_user("researcher", password="a-long-enough-password")
    token = Token.objects.create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def _body(**overrides):
    body = {
        "name": "My model",
        "base_url": "https://api.example.com/v1",
        "model": "some-model",
        "api_key": CANARY,
        "tasks": ["lmact/gridworld:ascii", "lmact/tictactoe:rgb"],
        "episodes_per_task": 3,
    }
    body.update(overrides)
    return body


@pytest.fixture(autouse=True)
def public_dns(monkeypatch):
    """api.example.com resolves to a public address without touching the network."""
    import socket

    real = socket.getaddrinfo

    def fake(host, *args, **kwargs):
        if host == "api.example.com":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


def test_it_lists_tasks_with_their_formats():
    response = APIClient().get("/api/tasks/")
    assert response.status_code == 200
    tasks = {t["id"]: t for t in response.json()}
    assert tasks["lmact/gridworld"]["formats"] == ["ascii", "ascii-annotated", "coords", "rgb"]
    assert tasks["lmact/tictactoe"]["formats"] == ["ascii", "ascii-annotated", "rgb"]


def test_it_creates_a_submission_with_its_runs_and_never_returns_the_key(client_with_token, fake_model, allow_loopback):
    response = client_with_token.post("/api/submissions/", _body(base_url=fake_model.base_url), format="json")
    assert response.status_code == 201, response.content
    data = response.json()
    assert "api_key" not in data and data["has_api_key"] is True
    assert CANARY not in response.content.decode()
    submission = Submission.objects.get(pk=data["id"])
    assert submission.get_api_key() == CANARY
    assert CANARY not in submission.api_key_encrypted
    assert {(r.task, r.format) for r in submission.runs.all()} == {("lmact/gridworld", "ascii"), ("lmact/tictactoe", "rgb")}
    assert Episode.objects.filter(run__submission=submission).count() == 6

    listing = APIClient().get(f"/api/submissions/{submission.pk}/")
    assert listing.status_code == 200 and CANARY not in listing.content.decode()


def test_writes_need_a_token():
    response = APIClient().post("/api/submissions/", _body(), format="json")
    assert response.status_code in (401, 403)
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    "overrides, field, words",
    [
        ({"base_url": "file:///etc/passwd"}, "base_url", "http"),
        ({"base_url": "http://10.0.0.7/v1"}, "base_url", "private"),
        ({"base_url": "http://169.254.169.254/latest"}, "base_url", "169.254.169.254"),
        ({"base_url": "http://127.0.0.1:8000/v1"}, "base_url", "127.0.0.1"),
        ({"model": ""}, "model", "model"),
        ({"max_tokens": -5}, "max_tokens", "greater than or equal"),
        ({"tasks": ["lmact/pinball:ascii"]}, "tasks", "Unknown task"),
        ({"tasks": ["lmact/gridworld:fen"]}, "tasks", "no format"),
        ({"episodes_per_task": 100000}, "episodes_per_task", "At most"),
    ],
)
def test_bad_input_gets_a_clear_error_and_creates_nothing(client_with_token, overrides, field, words):
    response = client_with_token.post("/api/submissions/", _body(**overrides), format="json")
    assert response.status_code == 400
    errors = response.json()
    assert field in errors, errors
    assert words.lower() in json.dumps(errors[field]).lower()
    assert not Submission.objects.exists() and not Run.objects.exists()


def test_a_malformed_body_gets_a_clear_error_and_creates_nothing(client_with_token):
    response = client_with_token.post("/api/submissions/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]
    assert not Submission.objects.exists()


def test_loopback_is_accepted_when_the_operator_allows_it(client_with_token, settings, fake_model):
    settings.ARENA_ALLOW_LOOPBACK = True
    response = client_with_token.post("/api/submissions/", _body(base_url=fake_model.base_url), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["endpoint_probe"]["ok"] is True


def test_an_unknown_model_is_a_model_error_and_creates_nothing(client_with_token, allow_loopback):
    from tests.support.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(models=["llama-3-8b"]) as server:
        response = client_with_token.post("/api/submissions/", _body(base_url=server.base_url), format="json")
    assert response.status_code == 400
    assert "model" in response.json() and "llama-3-8b" in json.dumps(response.json()["model"])
    assert not Submission.objects.exists() and not Run.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_episode_steps_are_paged_in_index_order(baseline, play):
    run = new_run(baseline("expert"), task="lmact/gridworld", episodes=1, first_seed=3)
    episode = run.episodes.get()
    from asgiref.sync import async_to_sync

    from arena.play.runner import EpisodeRunner

    async_to_sync(EpisodeRunner("w").run)(episode.id)
    episode.refresh_from_db()
    assert episode.num_steps >= 2

    client = APIClient()
    detail = client.get(f"/api/episodes/{episode.id}/").json()
    assert detail["status"] == "finished" and detail["steps_url"] == f"/api/episodes/{episode.id}/steps/"
    first = client.get(detail["steps_url"] + "?page_size=1").json()
    assert first["count"] == episode.num_steps and first["results"][0]["index"] == 0
    second = client.get(first["next"]).json()
    assert second["results"][0]["index"] == 1


def test_the_leaderboard_ranks_models_and_shows_baselines_unranked(baseline, make_model_submission):
    expert = new_run(baseline("expert"), task="lmact/tictactoe", episodes=2)
    model = as_preset(new_run(make_model_submission(), task="lmact/tictactoe", episodes=2))
    Run.objects.filter(pk=expert.pk).update(episodes_done=2, score_sum=1.8, score_sq_sum=1.62, status="finished")
    Run.objects.filter(pk=model.pk).update(episodes_done=2, score_sum=1.0, score_sq_sum=1.0, status="finished")

    rows = APIClient().get("/api/leaderboard/?task=lmact/tictactoe").json()
    assert [(r["rank"], r["run"]["submission"]["name"]) for r in rows] == [(None, "Expert"), (1, "Fake model")]
    assert rows[1]["run"]["score_mean"] == pytest.approx(0.5)
    assert rows[1]["run"]["score_stderr"] == pytest.approx(0.5)


def test_the_leaderboard_rejects_an_unknown_task():
    response = APIClient().get("/api/leaderboard/?task=nope")
    assert response.status_code == 400 and "Unknown task" in response.json()["task"][0]


def test_the_openapi_schema_is_served():
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert "/api/submissions/" in schema["paths"] and "/api/episodes/{id}/steps/" in schema["paths"]
