"""Limits per client address (issue 29): sign-up, export downloads and endpoint tests
answer 429 with Retry-After past their hourly limit, counted in the shared cache."""

import runpy
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from rest_framework.test import APIClient

from arena.services.submissions import submission_create
from arena.web.throttles import DOWNLOADS
from tests.arena.test_scaled_mode import redis_url  # noqa: F401  (a real Redis server)
from tests.support.clock import clock  # noqa: F401
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

HOME, ELSEWHERE = "203.0.113.7", "198.51.100.23"
SETTINGS_FILE = str(Path(__file__).resolve().parents[3] / "config" / "settings.py")


def _sign_up(client, name, address=HOME, password="a sturdy pass phrase 42"):
    client.logout()
    return client.post(
        "/signup/", {"username": name, "password1": password, "password2": password}, REMOTE_ADDR=address
    )


def test_sign_up_past_the_limit_is_a_429_with_retry_after_and_creates_nothing(client, settings):
    settings.ARENA_SIGNUPS_PER_HOUR_PER_ADDRESS = 2
    assert _sign_up(client, "mismatch", password="a").status_code == 200  # refused by the form: not counted
    assert [_sign_up(client, name).status_code for name in ("first", "second")] == [302, 302]
    refused = _sign_up(client, "third")
    assert refused.status_code == 429
    assert 3500 <= int(refused["Retry-After"]) <= 3600
    assert "Too many new accounts from your address: this arena allows 2 an hour" in refused.content.decode()
    assert not User.objects.filter(username="third").exists()
    assert _sign_up(client, "third", address=ELSEWHERE).status_code == 302


def test_the_sign_up_limit_is_an_hour_from_the_first(client, settings, clock):
    settings.ARENA_SIGNUPS_PER_HOUR_PER_ADDRESS = 1
    assert _sign_up(client, "first").status_code == 302
    clock.advance(3000)
    refused = _sign_up(client, "second")
    assert refused.status_code == 429 and int(refused["Retry-After"]) == 600
    clock.advance(601)
    assert _sign_up(client, "second").status_code == 302


@pytest.mark.django_db(transaction=True)  # the episode is played by the worker's own database thread
def test_exports_past_the_download_limit_are_a_429_with_retry_after(client, settings, baseline, play):
    settings.ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS = 4
    submission = baseline("expert")
    run = new_run(submission, task="lmact/gridworld", fmt="rgb", episodes=1)  # pictures for the GIF
    episode = run.episodes.get()
    play(episode.id)
    downloads = [
        f"/episodes/{episode.pk}/steps.jsonl", f"/runs/{run.pk}/episodes.zip",
        f"/episodes/{episode.pk}/frames.gif", f"/submissions/{submission.pk}/balrog.tgz",
    ]
    answered = [client.get(url, REMOTE_ADDR=HOME).status_code for url in downloads]
    assert answered[:3] == [200, 200, 200] and answered[3] == 404  # no BALROG runs, still counted
    for url in downloads:
        refused = client.get(url, REMOTE_ADDR=HOME)
        assert refused.status_code == 429, url
        assert int(refused["Retry-After"]) > 0
        assert "Too many downloads from your address" in refused.content.decode()
    # Pages are not downloads; another address has its own count.
    assert client.get(episode.get_absolute_url(), REMOTE_ADDR=HOME).status_code == 200
    assert client.get(downloads[0], REMOTE_ADDR=ELSEWHERE).status_code == 200


def test_a_forwarded_for_header_does_not_escape_the_download_limit(client, settings, baseline):
    settings.ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS = 1
    run = new_run(baseline("expert"))
    url = f"/runs/{run.pk}/episodes.zip"
    assert client.get(url, REMOTE_ADDR=HOME, HTTP_X_FORWARDED_FOR="192.0.2.1").status_code == 200
    assert client.get(url, REMOTE_ADDR=HOME, HTTP_X_FORWARDED_FOR="192.0.2.2").status_code == 429


def test_the_download_count_lives_in_the_shared_cache(client, settings, baseline):
    from django.core.cache import cache

    settings.ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS = 5
    run = new_run(baseline("expert"))
    client.get(f"/runs/{run.pk}/episodes.zip", REMOTE_ADDR=HOME)
    keys = [key for key in cache._cache if "limit:address:downloads:" in key]  # the tests' in-memory cache
    assert len(keys) == 2 and not any(HOME in key for key in keys)  # count and window; the address hashed
    assert DOWNLOADS.counter.count(HOME) == 1


def test_endpoint_tests_are_limited_per_address_across_accounts_and_the_api(client, settings, fake_model):
    settings.ARENA_ALLOW_LOOPBACK = True
    settings.ARENA_ENDPOINT_PROBES_PER_HOUR_PER_ADDRESS = 2
    submissions = []
    for name in ("first", "second"):
        owner = User.objects.create_user(name, password="a long enough password")
        submissions.append(submission_create(
            owner=owner, fields={"name": name, "base_url": fake_model.base_url, "model": "fake-model"}, api_key="", runs=[]
        ))
    client.force_login(submissions[0].owner)
    for _ in range(2):
        client.post(f"/submissions/{submissions[0].pk}/probe/", REMOTE_ADDR=HOME)
    calls = len(fake_model.requests)
    client.force_login(submissions[1].owner)  # a fresh account on the same address
    refused = client.post(f"/submissions/{submissions[1].pk}/probe/", REMOTE_ADDR=HOME, follow=True)
    assert "Too many endpoint tests from your address" in refused.content.decode()
    api = APIClient()
    api.force_authenticate(submissions[1].owner)
    dry_run = api.post(
        "/api/submissions/?dry_run=1",
        {"name": "m", "base_url": fake_model.base_url, "model": "fake-model", "tasks": ["lmact/gridworld:ascii"]},
        format="json", REMOTE_ADDR=HOME,
    )
    assert dry_run.status_code == 429 and "from your address" in dry_run.json()["detail"]
    assert int(dry_run["Retry-After"]) > 0
    assert len(fake_model.requests) == calls  # the endpoint was not called again
    assert client.post(f"/submissions/{submissions[1].pk}/probe/", REMOTE_ADDR=ELSEWHERE).status_code == 302
    assert len(fake_model.requests) > calls


def test_the_embedded_mode_counts_sign_ups_in_the_database_cache_table(client, settings):
    embedded = {"default": {"BACKEND": "arena.web.shared_cache.AtomicDatabaseCache", "LOCATION": "arena_cache"}}
    settings.ARENA_SIGNUPS_PER_HOUR_PER_ADDRESS = 1
    with override_settings(CACHES=embedded):
        call_command("createcachetable", verbosity=0)
        # Earlier tests in the same process may have left their counts in the table.
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM arena_cache")
        assert _sign_up(client, "first").status_code == 302
        assert _sign_up(client, "second").status_code == 429
        with connection.cursor() as cursor:
            cursor.execute("SELECT cache_key FROM arena_cache")
            keys = [row[0] for row in cursor.fetchall()]
    assert len(keys) == 2 and all("limit:address:signups:" in key and HOME not in key for key in keys)


@pytest.mark.django_db(transaction=True)
def test_the_scaled_mode_counts_downloads_in_redis(client, settings, baseline, monkeypatch, redis_url):
    import redis

    monkeypatch.setenv("REDIS_URL", redis_url)
    scaled = runpy.run_path(SETTINGS_FILE)["CACHES"]
    settings.ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS = 1
    run = new_run(baseline("expert"))
    with override_settings(CACHES=scaled):
        assert client.get(f"/runs/{run.pk}/episodes.zip", REMOTE_ADDR=HOME).status_code == 200
        assert client.get(f"/runs/{run.pk}/episodes.zip", REMOTE_ADDR=HOME).status_code == 429
    keys = redis.Redis.from_url(redis_url).keys("arena-cache*")
    assert len(keys) == 2 and all(b"limit:address:downloads:" in key for key in keys)
