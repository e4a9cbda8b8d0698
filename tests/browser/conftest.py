"""The real site for browser tests: Daphne and `manage.py arena_worker`, the processes
`make serve` starts, on a throw-away database (one per test module); and Debian's
Chromium driven by Playwright."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import sync_playwright

from tests.support.processes import stop_all

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclasses.dataclass
class Site:
    url: str
    env: dict

    def django(self, code: str):
        """Run Python in the site's Django (its database, its queue) and return what
        the code printed, parsed as JSON: how a test sets up data the pages show."""
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=ROOT, env=self.env, check=True, capture_output=True, text=True,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])


def _site_environment(var: str) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ARENA_VAR_DIR": var,
        "ARENA_ALLOW_LOOPBACK": "1",
        "ARENA_QUEUE": "sqlite",
        "ARENA_LIVE_POLL_SECONDS": "0.2",
        "LOG_LEVEL": "WARNING",
    }


@pytest.fixture(scope="session")
def migrated_var(tmp_path_factory) -> Path:
    """A site's data folder right after `migrate`, made once per test process: each
    module's site starts from a copy of it, as if it had migrated a database of its own
    (a migrate costs a Django start and every migration, seconds of CPU per module)."""
    var = tmp_path_factory.mktemp("browser-migrated")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT, env=_site_environment(str(var)), check=True,
    )
    return var


@pytest.fixture(scope="module")
def site(migrated_var):
    var = tempfile.mkdtemp(prefix="arena-browser-")
    # The whole folder: the keys `migrate` generated belong with the database it wrote.
    shutil.copytree(migrated_var, var, dirs_exist_ok=True)
    env = _site_environment(var)
    python = sys.executable
    port = _free_port()
    processes = [
        subprocess.Popen(
            [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        ),
        subprocess.Popen(
            [python, "manage.py", "arena_worker", "--concurrency", "8"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        ),
    ]
    base = f"http://127.0.0.1:{port}"
    # A loaded 2-core machine can take a while to import Django twice over.
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    else:
        # Stopped first: reading a live process's stderr would wait for it to end.
        stop_all(processes)
        pytest.fail("the site did not start: " + processes[0].stderr.read().decode()[-2000:])
    try:
        yield Site(url=base, env=env)
    finally:
        stop_all(processes)
        shutil.rmtree(var, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()
