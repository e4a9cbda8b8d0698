"""The head-to-head opt-in travels through the submit form and the API."""

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    return User.objects.create_user("alice", password="correct horse battery staple")


def test_the_api_takes_and_shows_the_opt_in(alice, fake_model, allow_loopback):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    body = {
        "name": "m", "base_url": fake_model.base_url, "model": "fake-model", "api_key": "sk-x",
        "tasks": ["lmact/tictactoe:ascii"], "episodes_per_task": 1, "head_to_head": True,
    }
    response = api.post("/api/submissions/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["head_to_head"] is True
    assert Submission.objects.get(pk=response.json()["id"]).head_to_head is True
    body.pop("head_to_head")
    assert api.post("/api/submissions/", body, format="json").json()["head_to_head"] is False


def test_the_submit_form_takes_the_opt_in(client, alice, fake_model, allow_loopback):
    client.force_login(alice)
    assert "Head-to-head matches" in client.get("/submit/").content.decode()
    data = {
        "name": "m", "provider": "openai", "base_url": fake_model.base_url, "model": "fake-model", "api_key": "sk-x",
        "temperature": "0", "max_tokens": "64", "num_demonstrations": "0", "history_window": "16",
        "reflection": "none", "tasks": ["lmact/tictactoe:ascii"], "episodes_per_task": "1", "head_to_head": "on",
    }
    response = client.post("/submit/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Submission.objects.get(name="m").head_to_head is True


def test_an_agent_endpoint_cannot_opt_in(alice, fake_model, allow_loopback):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    body = {
        "name": "agent", "provider": "agent", "base_url": fake_model.base_url, "model": "",
        "tasks": ["lmact/tictactoe:ascii"], "episodes_per_task": 1, "head_to_head": True,
    }
    response = api.post("/api/submissions/", body, format="json")
    assert response.status_code == 400 and "head_to_head" in response.json(), response.content
    assert not Submission.objects.filter(name="agent").exists()
