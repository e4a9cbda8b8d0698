"""End to end in real Chromium: sign up, submit a model through the form, let the worker
play it against a local fake OpenAI-compatible server, and watch the replay.

The site and the worker are the real processes `make serve` starts (Daphne and
`manage.py arena_worker`), on a throw-away database.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.browser

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


@pytest.fixture(scope="module")
def site():
    var = tempfile.mkdtemp(prefix="arena-browser-")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ARENA_VAR_DIR": var,
        "ARENA_ALLOW_LOOPBACK": "1",
        "ARENA_QUEUE": "sqlite",
        "ARENA_LIVE_POLL_SECONDS": "0.2",
        "LOG_LEVEL": "WARNING",
    }
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
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
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    else:
        pytest.fail("the site did not start: " + processes[0].stderr.read().decode()[-2000:])
    try:
        yield base
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(var, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def test_a_researcher_submits_a_model_and_replays_its_episode(site, browser):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    with FakeOpenAIServer(default_action="up") as model:
        page.goto(f"{site}/signup/")
        page.fill("#id_username", "researcher")
        page.fill("#id_password1", "a long and unusual passphrase")
        page.fill("#id_password2", "a long and unusual passphrase")
        page.click("main form button[type=submit]")
        expect(page).to_have_url(re.compile(r"/submit/$"))

        page.fill("#id_name", "Local fake model")
        page.fill("#id_base_url", model.base_url)
        page.fill("#id_model", "fake-model")
        page.fill("#id_api_key", "sk-browser-canary")
        page.fill("#id_episodes_per_task", "1")
        page.check("input[name=tasks][value='lmact/gridworld:coords']")
        page.click("form.submission-form button[type=submit]")
        expect(page).to_have_url(re.compile(r"/submissions/\d+/$"))
        assert "sk-browser-canary" not in page.content()

        page.click("a[href^='/runs/']")
        expect(page).to_have_url(re.compile(r"/runs/\d+/$"))
        # run.js polls the API and reloads the page once the run is over.
        expect(page.locator("#run-status")).to_have_text("finished", timeout=30_000)
        assert model.requests, "the worker never called the model"

        page.click("a[href^='/episodes/']")
        expect(page.locator("#player[data-ready='1']")).to_be_attached(timeout=10_000)
        page.keyboard.press("End")
        expect(page.locator("#end-reason")).to_contain_text(re.compile(r"reached the target|step limit"))
        expect(page.locator("#executed-action")).to_have_text(re.compile(r"up|down|left|right"))

        page.keyboard.press("Home")
        expect(page.locator("#player")).to_have_attribute("data-current-step", "0")
        expect(page.locator("#completion")).to_contain_text("Action: up")
        page.keyboard.press("ArrowRight")
        expect(page.locator("#player")).to_have_attribute("data-current-step", "1")
        expect(page).to_have_url(re.compile(r"\?step=1$"))

    assert not errors, errors
