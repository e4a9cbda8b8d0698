"""The real site for browser tests: Daphne and `manage.py arena_worker`, the processes
`make serve` starts, on a throw-away database; and Debian's Chromium driven by
Playwright. One Daphne and one Django shell serve every module of a test process (Chromium
starts per module), and each module starts on the site's data as `migrate` left them, with a worker
of its own (tests/browser/live_site.py)."""

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

from tests.browser.live_site import ROOT, DjangoShell, new_page_generation, reset_data, start_worker
from tests.support.processes import stop_all

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]

# A loaded 2-core machine can take a while to import Django.
STARTUP_SECONDS = 90

__all__ = ["ROOT"]  # the tests that run a manage.py command of their own take it from here


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclasses.dataclass
class Site:
    url: str
    env: dict
    shell: DjangoShell
    logs: Path  # Daphne's and the workers' logs

    def django(self, code: str):
        """Run Python in the site's Django (its database, its queue) and return what
        the code printed last, parsed as JSON: how a test sets up data the pages show."""
        return json.loads(self.shell.run(code).strip().splitlines()[-1])


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
    """A site's data folder right after `migrate`, made once per test process: the site
    starts from a copy of it, and each module from its data again (a migrate costs a
    Django start and every migration, seconds of CPU)."""
    var = tmp_path_factory.mktemp("browser-migrated")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT, env=_site_environment(str(var)), check=True,
    )
    return var


@pytest.fixture(scope="session")
def _live_site(migrated_var, tmp_path_factory):
    """Daphne and a Django shell on a copy of the migrated folder, for the whole process."""
    var = tempfile.mkdtemp(prefix="arena-browser-")
    # A file, not a pipe nobody reads: a process writing more than a pipe holds would block.
    log = tmp_path_factory.mktemp("browser-site") / "daphne.log"
    # The whole folder: the keys `migrate` generated belong with the database it wrote.
    shutil.copytree(migrated_var, var, dirs_exist_ok=True)
    env = _site_environment(var)
    port = _free_port()
    with log.open("wb") as output:
        daphne = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=output,
        )
    shell = DjangoShell(env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + STARTUP_SECONDS
    while time.time() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    else:
        stop_all([daphne])
        shell.stop()
        pytest.fail("the site did not start: " + log.read_text(errors="replace")[-2000:])
    try:
        yield Site(url=base, env=env, shell=shell, logs=log.parent)
    finally:
        stop_all([daphne])
        shell.stop()
        shutil.rmtree(var, ignore_errors=True)


@pytest.fixture(scope="module")
def site(_live_site, migrated_var):
    """The site as `migrate` left it, with a worker of its own, for one module."""
    var = Path(_live_site.env["ARENA_VAR_DIR"])
    reset_data(var, migrated_var)
    new_page_generation(var)
    worker = start_worker(_live_site.env, _live_site.logs / "worker.log", patience=STARTUP_SECONDS)
    try:
        yield _live_site
    finally:
        stop_all([worker])


@pytest.fixture(scope="module")
def browser():
    """Chromium, for one module. Playwright's sync API keeps an event loop running in
    the test process while it is started, and every asyncio test the process runs after
    a browser module would then fail ("cannot be called from a running event loop"): so
    Playwright stops at each module's end (a launch costs about a second; the site's
    processes stay up)."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()
