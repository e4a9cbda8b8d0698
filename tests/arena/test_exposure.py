"""What a public page or API must not give away, and how cookies travel (issue 15,
finding 7): the token page is never cached, cookies follow ARENA_HTTPS, and worker host
names and process ids stay private."""

import runpy
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from arena.services.episodes import worker_heartbeat
from arena.models import Episode
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

SETTINGS_FILE = str(Path(__file__).resolve().parents[2] / "config" / "settings.py")
HOST, PID = "db-internal-7.corp.example", 48213


def test_the_token_page_is_never_stored_by_a_browser_or_proxy(client):
    client.force_login(User.objects.create_user("alice", password="long enough password"))
    response = client.get("/submissions/mine/")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


@pytest.mark.parametrize("value, secure", [("1", True), ("on", True), ("0", False)])
def test_cookies_are_secure_when_the_operator_says_the_site_is_https(monkeypatch, value, secure):
    monkeypatch.setenv("ARENA_HTTPS", value)
    configured = runpy.run_path(SETTINGS_FILE)
    assert configured["SESSION_COOKIE_SECURE"] is secure and configured["CSRF_COOKIE_SECURE"] is secure


def test_a_malformed_https_setting_stops_start_up(monkeypatch):
    monkeypatch.setenv("ARENA_HTTPS", "maybe")
    with pytest.raises(ImproperlyConfigured, match="ARENA_HTTPS"):
        runpy.run_path(SETTINGS_FILE)


def test_the_session_cookie_carries_secure_under_https(client, settings):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    User.objects.create_user("alice", password="long enough password")
    client.get("/login/")
    response = client.post("/login/", {"username": "alice", "password": "long enough password"})
    assert response.status_code == 302
    assert response.cookies["sessionid"]["secure"] and response.cookies["csrftoken"]["secure"]


def test_healthz_does_not_name_worker_hosts_or_processes(client):
    worker_heartbeat(f"{HOST}-{PID}-a1b2c3", HOST, PID, 3)
    response = client.get("/healthz")
    body = response.json()
    assert body["worker"] == "ok" and body["workers"][0]["episodes_in_flight"] == 3
    assert HOST not in response.content.decode() and str(PID) not in response.content.decode()


def test_episode_json_and_run_page_do_not_name_the_worker(client, baseline):
    run = new_run(baseline("expert"))
    episode = run.episodes.get()
    Episode.objects.filter(pk=episode.pk).update(
        status=Episode.RUNNING, worker=f"{HOST}-{PID}-a1b2c3", heartbeat_at=timezone.now()
    )
    for url in (f"/api/episodes/{episode.pk}/", episode.get_absolute_url(), run.get_absolute_url()):
        page = client.get(url)
        assert page.status_code == 200, url
        assert HOST not in page.content.decode() and str(PID) not in page.content.decode(), url
    assert "running" in client.get(run.get_absolute_url()).content.decode()
