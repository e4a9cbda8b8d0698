"""The production posture (issue 29): ARENA_PRODUCTION=1 alone makes `manage.py check
--deploy` clean, and the site then redirects plain HTTP, sends HSTS and trusts the
reverse proxy's X-Forwarded-Proto."""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

ROOT = Path(__file__).resolve().parents[1]
SETTINGS_FILE = str(ROOT / "config" / "settings.py")
PUBLIC = "https://arena.example.org"


def _check_deploy(tmp_path, **env) -> subprocess.CompletedProcess:
    environment = {
        key: value for key, value in os.environ.items()
        if not key.startswith(("ARENA_", "DJANGO_")) and key not in ("DEBUG", "ALLOWED_HOSTS", "REDIS_URL", "DATABASE_URL")
    }
    environment.update(DJANGO_SETTINGS_MODULE="config.settings", ARENA_VAR_DIR=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300,
    )


def test_check_deploy_is_clean_under_the_production_switch_and_not_without_it(tmp_path):
    production = _check_deploy(tmp_path, ARENA_PRODUCTION="1", ARENA_PUBLIC_URL=PUBLIC)
    assert production.returncode == 0, production.stdout + production.stderr
    assert "System check identified no issues" in production.stdout
    development = _check_deploy(tmp_path)
    assert development.returncode != 0
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in development.stderr, development.stderr


def test_the_switch_sets_the_whole_posture(monkeypatch, tmp_path):
    monkeypatch.setenv("ARENA_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("ARENA_PRODUCTION", "1")
    monkeypatch.setenv("ARENA_PUBLIC_URL", PUBLIC)
    configured = runpy.run_path(SETTINGS_FILE)
    assert configured["SECURE_SSL_REDIRECT"] and configured["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert configured["SESSION_COOKIE_SECURE"] and configured["CSRF_COOKIE_SECURE"]
    assert configured["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert configured["CSRF_TRUSTED_ORIGINS"] == [PUBLIC]
    assert configured["ALLOWED_HOSTS"] == ["arena.example.org"]
    assert configured["REST_FRAMEWORK"]["NUM_PROXIES"] == 1


@pytest.mark.parametrize("env, message", [
    ({"ARENA_PUBLIC_URL": "http://arena.example.org"}, "https://"),
    ({"ARENA_PUBLIC_URL": PUBLIC, "DEBUG": "1"}, "DEBUG"),
])
def test_a_production_switch_that_cannot_be_honoured_stops_start_up(monkeypatch, tmp_path, env, message):
    monkeypatch.setenv("ARENA_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("ARENA_PRODUCTION", "1")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ImproperlyConfigured, match=message):
        runpy.run_path(SETTINGS_FILE)


@pytest.mark.django_db
def test_behind_the_proxy_http_is_redirected_and_https_carries_hsts(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    settings.SECURE_HSTS_SECONDS = 31_536_000
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    plain = client.get("/tasks/")
    assert plain.status_code == 301 and plain["Location"] == "https://testserver/tasks/"
    secure = client.get("/tasks/", HTTP_X_FORWARDED_PROTO="https")
    assert secure.status_code == 200 and secure["Strict-Transport-Security"].startswith("max-age=31536000")
    assert client.get("/healthz").status_code == 200  # the proxy's health check over plain HTTP
