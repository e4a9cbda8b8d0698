"""The submission form, sign-up and the pages a submitter sees."""

import pytest
from django.contrib.auth.models import User

from arena.models import Episode, Run, Submission

pytestmark = pytest.mark.django_db

CANARY = "sk-form-canary-777"


@pytest.fixture
def user_client(client):
    user = User.objects.create_user("alice", password="correct horse battery")
    client.force_login(user)
    return client


def _form(**overrides):
    data = {
        "name": "Local llama",
        "provider": "openai",
        "base_url": "http://127.0.0.1:8080/v1",
        "model": "llama",
        "api_key": CANARY,
        "temperature": "0",
        "max_tokens": "256",
        "num_demonstrations": "1",
        "show_legal_actions": "on",
        "tasks": ["lmact/gridworld:coords"],
        "episodes_per_task": "2",
        "history_window": "16",
        "reflection": "none",
    }
    data.update(overrides)
    return data


def test_anonymous_users_browse_but_must_log_in_to_submit(client):
    assert client.get("/").status_code == 200
    response = client.get("/submit/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_it_signs_up_and_lands_on_the_form(client):
    response = client.post(
        "/signup/", {"username": "bob", "password1": "a quite long passphrase", "password2": "a quite long passphrase"}
    )
    assert response.status_code == 302 and response["Location"] == "/submit/"
    assert User.objects.filter(username="bob").exists()


def test_a_valid_form_creates_the_submission_and_queues_its_runs(user_client, settings, fake_model):
    settings.ARENA_ALLOW_LOOPBACK = True
    response = user_client.post("/submit/", _form(base_url=fake_model.base_url))
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/submissions/{submission.pk}/"
    assert submission.get_api_key() == CANARY
    run = Run.objects.get()
    assert (run.task, run.format, run.num_episodes, run.num_demonstrations) == ("lmact/gridworld", "coords", 2, 1)
    assert Episode.objects.filter(run=run, status="queued").count() == 2
    page = user_client.get(response["Location"]).content.decode()
    assert CANARY not in page and "set (write-only)" in page
    assert "created; 1 run queued." in page  # not "1 run(s)"


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"base_url": "file:///etc/passwd"}, "Only http and https"),
        ({"base_url": "http://192.168.1.10/v1"}, "private"),
        ({"base_url": "http://127.0.0.1:8080/v1"}, "127.0.0.1"),
        ({"model": "  "}, "Enter the model name"),
        ({"max_tokens": "-1"}, "greater than or equal to 1"),
        ({"tasks": []}, "Choose at least one task, or a whole suite"),
        ({"num_demonstrations": "9999"}, "less than or equal to 512"),
    ],
)
def test_bad_input_is_explained_next_to_the_field_and_creates_nothing(user_client, overrides, message):
    response = user_client.post("/submit/", _form(**overrides))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Submission.objects.exists() and not Run.objects.exists()
    # What the user typed is kept (except the key, which is never echoed back).
    assert CANARY not in response.content.decode()


def test_pages_carry_a_strict_content_security_policy(client):
    response = client.get("/")
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_healthz_reports_database_and_workers(client):
    from arena.services.episodes import worker_heartbeat

    body = client.get("/healthz").json()
    assert body["database"] == "ok" and body["worker"] == "no live worker"
    worker_heartbeat("w1", "host", 123, 4)
    body = client.get("/healthz").json()
    assert body["worker"] == "ok" and body["workers"][0]["episodes_in_flight"] == 4


def test_an_unreachable_endpoint_is_a_base_url_error_and_creates_nothing(user_client, settings):
    from tests.support.fake_openai import FakeOpenAIServer

    settings.ARENA_ALLOW_LOOPBACK = True
    with FakeOpenAIServer() as server:
        gone = server.base_url  # nothing listens there once the server stops
    response = user_client.post("/submit/", _form(base_url=gone))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "base_url" in errors, errors
    assert not Submission.objects.exists() and not Run.objects.exists()


def test_image_tasks_are_refused_for_a_model_that_refuses_images(user_client, settings):
    from tests.support.fake_openai import FakeOpenAIServer

    settings.ARENA_ALLOW_LOOPBACK = True
    with FakeOpenAIServer(accepts_images=False, props_n_ctx=4096) as server:
        response = user_client.post(
            "/submit/", _form(base_url=server.base_url, tasks=["lmact/gridworld:ascii", "lmact/tictactoe:rgb"])
        )
    errors = response.context["form"].errors
    assert "does not accept images" in errors["tasks"][0] and "lmact/tictactoe:rgb" in errors["tasks"][0]
    assert not Submission.objects.exists()


def test_the_probe_is_stored_and_the_submission_page_shows_the_window(user_client, settings):
    from tests.support.fake_openai import FakeOpenAIServer

    settings.ARENA_ALLOW_LOOPBACK = True
    with FakeOpenAIServer(accepts_images=False, props_n_ctx=4096, models=["llama"]) as server:
        response = user_client.post("/submit/", _form(base_url=server.base_url))
        submission = Submission.objects.get()
        assert submission.effective_context_window == 4096
        assert submission.accepts_images is False
        page = user_client.get(response["Location"]).content.decode()
        assert "4096 tokens" in page and "reported by the server" in page
        assert "refused (text-only model)" in page
        # "Test endpoint" probes again and keeps the answer.
        user_client.post(f"/submissions/{submission.pk}/probe/")
    submission.refresh_from_db()
    assert submission.endpoint_probe["context_window"] == 4096


def test_the_owner_fixes_the_endpoint_and_the_change_is_kept_in_history(user_client, settings, fake_model):
    from tests.support.fake_openai import FakeOpenAIServer

    settings.ARENA_ALLOW_LOOPBACK = True
    user_client.post("/submit/", _form(base_url=fake_model.base_url))
    submission = Submission.objects.get()
    with FakeOpenAIServer() as fixed:
        new_url = fixed.base_url
        response = user_client.post(
            f"/submissions/{submission.pk}/endpoint/", {"base_url": new_url, "model": "llama-2", "api_key": "sk-new-key-123"}
        )
    assert response.status_code == 302
    submission.refresh_from_db()
    assert (submission.base_url, submission.model, submission.get_api_key()) == (new_url, "llama-2", "sk-new-key-123")
    edit = submission.edits.get()
    assert edit.changes["model"] == ["llama", "llama-2"] and edit.changes["api_key"] == "changed"
    page = user_client.get(f"/submissions/{submission.pk}/endpoint/").content.decode()
    assert "sk-new-key-123" not in page and CANARY not in page and "API key changed" in page


def test_only_the_owner_can_requeue_or_cancel(user_client, settings, fake_model):
    from django.test import Client

    settings.ARENA_ALLOW_LOOPBACK = True
    user_client.post("/submit/", _form(base_url=fake_model.base_url))
    run = Run.objects.get()
    stranger = Client()
    stranger.force_login(User.objects.create_user("mallory", password="another long password"))
    assert stranger.post(f"/runs/{run.pk}/cancel/").status_code == 403
    assert stranger.post(f"/runs/{run.pk}/requeue/").status_code == 403
    run.refresh_from_db()
    assert run.status != Run.CANCELLED
    assert user_client.post(f"/runs/{run.pk}/cancel/").status_code == 302
    run.refresh_from_db()
    assert run.status == Run.CANCELLED
