"""Limits on volume and rate (issue 15, finding 3): one user cannot flood the queue with
duplicated tasks or huge submissions, nor submit or guess passwords without end."""

import json
import runpy
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.services.submissions import run_specs, submission_create
from arena.models import Episode, Experiment, Run, Submission
from tests.arena.test_scaled_mode import redis_url  # noqa: F401  (a real Redis server)
from tests.support.accounts import PASSWORD, USERNAME, api, browser, user  # noqa: F401 (fixtures)
from tests.support.clock import clock  # noqa: F401

SETTINGS_FILE = str(Path(__file__).resolve().parents[3] / "config" / "settings.py")

pytestmark = pytest.mark.django_db


def _api_body(base_url, **overrides):
    body = {
        "name": "m", "base_url": base_url, "model": "fake-model", "api_key": "sk-x",
        "tasks": ["lmact/gridworld:ascii"], "episodes_per_task": 2,
    }
    body.update(overrides)
    return body


def _form(base_url, **overrides):
    data = {
        "name": "m", "provider": "openai", "base_url": base_url, "model": "fake-model", "api_key": "sk-x",
        "temperature": "0", "max_tokens": "64", "num_demonstrations": "0", "history_window": "16",
        "reflection": "none", "tasks": ["lmact/gridworld:ascii"], "episodes_per_task": "2",
    }
    data.update(overrides)
    return data


# -- volume ------------------------------------------------------------------------------


def test_duplicated_tasks_are_merged_into_one_run(api, fake_model, allow_loopback):
    # The attack: a 252-byte body naming the same task again and again made one run each.
    tasks = ["lmact/gridworld:ascii"] * 30 + ["lmact/gridworld"] * 30
    response = api.post("/api/submissions/", _api_body(fake_model.base_url, tasks=tasks), format="json")
    assert response.status_code == 201, response.content
    assert Run.objects.count() == 1 and Episode.objects.count() == 2


def test_duplicated_tasks_are_merged_in_the_form_too(browser, fake_model, allow_loopback):
    response = browser.post("/submit/", _form(fake_model.base_url, tasks=["lmact/gridworld:ascii"] * 5))
    assert response.status_code == 302
    assert Run.objects.count() == 1


def test_more_distinct_tasks_than_allowed_is_a_clear_error(api, settings, fake_model, allow_loopback):
    settings.ARENA_MAX_TASKS_PER_SUBMISSION = 2
    tasks = ["lmact/gridworld:ascii", "lmact/gridworld:coords", "lmact/tictactoe:ascii"]
    response = api.post("/api/submissions/", _api_body(fake_model.base_url, tasks=tasks), format="json")
    assert response.status_code == 400
    assert "At most 2 different tasks" in json.dumps(response.json()["tasks"])
    assert not Submission.objects.exists() and not fake_model.requests  # refused before any probe


def test_the_episode_cap_counts_the_runs_that_task_options_multiply(api, settings, fake_model, allow_loopback):
    # infogather plays one run per number of colours: 2 episodes per task become 16 × 2.
    settings.ARENA_MAX_EPISODES_PER_SUBMISSION = 20
    body = _api_body(fake_model.base_url, tasks=["infogather/conjunction"], episodes_per_task=2)
    response = api.post("/api/submissions/", body, format="json")
    assert response.status_code == 400
    message = json.dumps(response.json()["episodes_per_task"])
    runs = len(run_specs([("infogather/conjunction", "text")], 2))
    assert runs > 1 and f"{2 * runs} episodes in {runs} runs" in message
    assert f"plays {runs} runs" in message and "20 per submission" in message
    assert not Submission.objects.exists() and not Run.objects.exists() and not fake_model.requests


def test_the_episode_cap_holds_in_the_form(browser, settings, fake_model, allow_loopback):
    settings.ARENA_MAX_EPISODES_PER_SUBMISSION = 3
    data = _form(fake_model.base_url, tasks=["lmact/gridworld:ascii", "lmact/gridworld:coords"])
    response = browser.post("/submit/", data)
    assert response.status_code == 200
    assert "would queue 4 episodes" in " ".join(response.context["form"].errors["episodes_per_task"])
    assert not Submission.objects.exists()


def test_a_submission_at_the_cap_is_accepted(api, settings, fake_model, allow_loopback):
    settings.ARENA_MAX_EPISODES_PER_SUBMISSION = 4
    body = _api_body(fake_model.base_url, tasks=["lmact/gridworld:ascii", "lmact/gridworld:coords"])
    assert api.post("/api/submissions/", body, format="json").status_code == 201
    assert Episode.objects.count() == 4


def test_the_episode_cap_counts_an_experiments_runs(api, user, settings, make_model_submission):
    submission = make_model_submission()
    Submission.objects.filter(pk=submission.pk).update(owner=user)
    settings.ARENA_MAX_EPISODES_PER_SUBMISSION = 20
    # A sweep up to 8 demonstrations is 5 runs (0, 1, 2, 4, 8): 5 × 5 = 25 episodes.
    body = {"kind": "sweep", "submission": submission.pk, "task": "lmact/gridworld:ascii",
            "num_episodes": 5, "max_demonstrations": 8}
    response = api.post("/api/experiments/", body, format="json")
    assert response.status_code == 400
    assert "25 episodes in 5 runs" in json.dumps(response.json()["num_episodes"])
    assert not Experiment.objects.exists()
    body["num_episodes"] = 4
    assert api.post("/api/experiments/", body, format="json").status_code == 201


# -- submissions and experiments per hour ---------------------------------------------


def test_submissions_per_user_and_hour_are_limited_across_form_and_api(api, browser, settings, fake_model, allow_loopback):
    settings.ARENA_SUBMISSIONS_PER_HOUR = 3
    assert api.post("/api/submissions/", _api_body(fake_model.base_url), format="json").status_code == 201
    assert browser.post("/submit/", _form(fake_model.base_url)).status_code == 302
    assert api.post("/api/submissions/", _api_body(fake_model.base_url), format="json").status_code == 201
    probes = len(fake_model.requests)

    refused = api.post("/api/submissions/", _api_body(fake_model.base_url), format="json")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 3000
    assert "3 an hour per user" in refused.json()["detail"]
    page = browser.post("/submit/", _form(fake_model.base_url, name="kept name"))
    assert page.status_code == 429
    text = page.content.decode()
    assert "Too many submissions" in text and "kept name" in text  # what was typed is kept
    assert Submission.objects.count() == 3 and len(fake_model.requests) == probes  # no probe either

    # Reads do not count against it, and other users have their own count.
    assert api.get("/api/submissions/").status_code == 200
    bob = APIClient()
    bob.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=User.objects.create_user('bob')).key}")
    assert bob.post("/api/submissions/", _api_body(fake_model.base_url), format="json").status_code == 201


def test_the_submission_limit_is_an_hour_from_the_first(api, settings, fake_model, allow_loopback, clock):
    settings.ARENA_SUBMISSIONS_PER_HOUR = 1
    assert api.post("/api/submissions/", _api_body(fake_model.base_url), format="json").status_code == 201
    clock.advance(3590)
    refused = api.post("/api/submissions/", _api_body(fake_model.base_url), format="json")
    assert refused.status_code == 429 and int(refused["Retry-After"]) == 10
    clock.advance(11)
    assert api.post("/api/submissions/", _api_body(fake_model.base_url), format="json").status_code == 201


def test_experiments_per_user_and_hour_are_limited_across_form_and_api(api, browser, user, settings, make_model_submission):
    submission = make_model_submission()
    Submission.objects.filter(pk=submission.pk).update(owner=user)
    settings.ARENA_EXPERIMENTS_PER_HOUR = 2
    body = {"kind": "replay", "submission": submission.pk, "task": "lmact/gridworld:ascii", "num_episodes": 1}
    assert api.post("/api/experiments/", body, format="json").status_code == 201
    form = {"kind": "replay", "task": "lmact/gridworld:ascii", "episodes": "1", "max_demonstrations": "0"}
    assert browser.post(f"/submissions/{submission.pk}/", form).status_code == 302
    refused = api.post("/api/experiments/", body, format="json")
    assert refused.status_code == 429 and "Too many experiments" in refused.json()["detail"]
    page = browser.post(f"/submissions/{submission.pk}/", form)
    assert page.status_code == 429 and "Too many experiments" in page.content.decode()
    assert Experiment.objects.count() == 2


# -- passwords ------------------------------------------------------------------------------


def _login(client, password, username=USERNAME, address="203.0.113.5"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def _token(password, username=USERNAME, address="203.0.113.5"):
    return APIClient().post("/api/token/", {"username": username, "password": password}, format="json",
                            REMOTE_ADDR=address)


def test_the_login_form_locks_the_account_for_the_guessing_address_only(client, user, settings):
    settings.ARENA_LOGIN_MAX_FAILURES = 5
    for _ in range(5):
        assert "correct username and password" in _login(client, "wrong").content.decode()
    # The right password no longer works from the guessing address: 429 with Retry-After.
    response = _login(client, PASSWORD)
    assert response.status_code == 429 and "_auth_user_id" not in client.session
    assert "Too many failed sign-ins" in response.content.decode() and 800 < int(response["Retry-After"]) <= 900
    # The user, from their own address, signs in as usual.
    response = _login(client, PASSWORD, address="198.51.100.7")
    assert response.status_code == 302 and "_auth_user_id" in client.session


def test_the_token_endpoint_locks_an_account_after_repeated_failures(user, settings):
    settings.ARENA_LOGIN_MAX_FAILURES = 5
    for _ in range(5):
        assert _token("wrong").status_code == 400
    refused = _token(PASSWORD)
    assert refused.status_code == 429 and "token" not in refused.json()
    assert "Too many failed sign-ins" in refused.json()["detail"] and int(refused["Retry-After"]) > 800


def test_form_and_token_failures_count_together(client, user, settings):
    settings.ARENA_LOGIN_MAX_FAILURES = 4
    for _ in range(2):
        _login(client, "wrong")
        _token("wrong")
    assert _token(PASSWORD).status_code == 429


def test_one_address_guessing_many_accounts_is_locked_out(client, user, settings):
    settings.ARENA_LOGIN_MAX_FAILURES_PER_ADDRESS = 5
    for n in range(5):
        _token("guess", username=f"user{n}")
    assert _token(PASSWORD).status_code == 429  # a sixth account, from the same address
    assert _token(PASSWORD, address="198.51.100.7").status_code == 200  # the user, from elsewhere


def test_the_lock_out_ends_after_its_window(user, settings, clock):
    settings.ARENA_LOGIN_MAX_FAILURES = 3
    settings.ARENA_LOGIN_LOCKOUT_SECONDS = 600
    for _ in range(3):
        _token("wrong")
        clock.advance(10)
    refused = _token(PASSWORD)
    assert refused.status_code == 429 and int(refused["Retry-After"]) == 600 - 30
    clock.advance(571)  # the window opened by the first failure has closed
    assert _token(PASSWORD).status_code == 200


def test_successful_sign_ins_do_not_count(client, user, settings):
    settings.ARENA_LOGIN_MAX_FAILURES = 3
    for _ in range(10):
        assert _token(PASSWORD).status_code == 200
    assert client.login(username=USERNAME, password=PASSWORD)


def test_a_forwarded_for_header_does_not_escape_the_address_lock_out(user, settings):
    settings.ARENA_LOGIN_MAX_FAILURES_PER_ADDRESS = 3
    for n in range(3):
        APIClient().post("/api/token/", {"username": f"user{n}", "password": "x"}, format="json",
                         REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    refused = APIClient().post("/api/token/", {"username": USERNAME, "password": PASSWORD}, format="json",
                               REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert refused.status_code == 429


# -- the embedded mode's database cache ------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_migrate_creates_the_cache_table_the_embedded_mode_counts_in(user, settings):
    embedded = {"default": {"BACKEND": "arena.web.shared_cache.AtomicDatabaseCache", "LOCATION": "arena_cache"}}
    settings.ARENA_LOGIN_MAX_FAILURES = 2
    with override_settings(CACHES=embedded):
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS arena_cache")
        call_command("migrate", verbosity=0)
        assert "arena_cache" in connection.introspection.table_names()
        for _ in range(2):
            _token("wrong")
        assert _token(PASSWORD).status_code == 429
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM arena_cache")
            # the pair's count and window, the address's count and window
            assert cursor.fetchone()[0] == 4


def test_the_embedded_settings_count_in_the_database(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    embedded = runpy.run_path(SETTINGS_FILE)["CACHES"]["default"]
    assert embedded["BACKEND"] == "arena.web.shared_cache.AtomicDatabaseCache" and embedded["LOCATION"] == "arena_cache"


@pytest.mark.django_db(transaction=True)
def test_the_scaled_settings_count_in_redis(user, settings, monkeypatch, redis_url):
    import redis

    monkeypatch.setenv("REDIS_URL", redis_url)
    scaled = runpy.run_path(SETTINGS_FILE)["CACHES"]
    settings.ARENA_LOGIN_MAX_FAILURES = 2
    with override_settings(CACHES=scaled):
        for _ in range(2):
            _token("wrong")
        assert _token(PASSWORD).status_code == 429
    # the pair's count and window, the address's count and window
    assert len(redis.Redis.from_url(redis_url).keys("arena-cache*")) == 4


def test_testing_an_endpoint_is_limited_per_hour(client, settings, fake_model):
    from django.contrib.auth.models import User

    from arena.services.submissions import run_specs, submission_create

    settings.ARENA_ALLOW_LOOPBACK = True
    settings.ARENA_ENDPOINT_PROBES_PER_HOUR = 2
    owner = User.objects.create_user("prober", password="a long enough password")
    submission = submission_create(
        owner=owner, fields={"name": "m", "base_url": fake_model.base_url, "model": "m"}, api_key="", runs=[]
    )
    client.force_login(owner)
    for _ in range(2):
        client.post(f"/submissions/{submission.pk}/probe/")
    probes_before = len(fake_model.requests)
    refused = client.post(f"/submissions/{submission.pk}/probe/", follow=True)
    assert "Too many endpoint tests" in refused.content.decode()
    edit = client.post(f"/submissions/{submission.pk}/endpoint/", {"base_url": "http://example.org/v1", "model": "x"},
                       follow=True)
    assert "Too many endpoint tests" in edit.content.decode()
    assert len(fake_model.requests) == probes_before  # the endpoint was not called again
    submission.refresh_from_db()
    assert submission.base_url == fake_model.base_url and not submission.edits.exists()


# -- episodes waiting in the queue, per user ------------------------------------------------


def test_a_user_may_not_queue_more_episodes_than_the_cap(api, browser, user, settings, fake_model, allow_loopback):
    settings.ARENA_MAX_QUEUED_EPISODES_PER_USER = 5
    assert api.post("/api/submissions/", _api_body(fake_model.base_url, episodes_per_task=3), format="json").status_code == 201
    refused = api.post("/api/submissions/", _api_body(fake_model.base_url, episodes_per_task=3), format="json")
    assert refused.status_code == 400
    assert "you have 3 waiting in the queue; this arena allows 5 queued per user" in refused.json()["episodes_per_task"][0]
    page = browser.post("/submit/", _form(fake_model.base_url, episodes_per_task="3"))
    assert page.status_code == 200 and "allows 5 queued per user" in page.content.decode()
    assert Submission.objects.count() == 1
    # Within the cap it goes on; episodes that have started no longer count.
    assert api.post("/api/submissions/", _api_body(fake_model.base_url, episodes_per_task=2), format="json").status_code == 201
    Episode.objects.filter(status=Episode.QUEUED).update(status=Episode.RUNNING)
    assert api.post("/api/submissions/", _api_body(fake_model.base_url, episodes_per_task=5), format="json").status_code == 201


def test_an_experiment_counts_against_the_queued_cap_too(api, user, settings, make_model_submission):
    submission = make_model_submission()
    Submission.objects.filter(pk=submission.pk).update(owner=user)
    settings.ARENA_MAX_QUEUED_EPISODES_PER_USER = 3
    body = {"kind": "replay", "submission": submission.pk, "task": "lmact/gridworld:ascii", "num_episodes": 4}
    refused = api.post("/api/experiments/", body, format="json")
    assert refused.status_code == 400 and "allows 3 queued per user" in str(refused.json())
    assert not Experiment.objects.exists()
