"""Opening step 73,512 of a 100,000-step episode: the windowed replay against the full
download the player did before.

Starts the site as `make serve` does (Daphne) on a throw-away SQLite database, writes a
finished 100,000-step episode (tests/support/long_episode.py), then measures:

  windowed  Chromium opens /episodes/<id>/?step=73512 and waits until that step is
            drawn and the scrubber's marks are in: time from navigation start to then,
            API requests and response bytes. Once with the marks not yet cached (the
            first viewer of the episode), once more (any later viewer).
  api       one window (GET steps/?from=&to=) and the marks, alone.
  full      what the player fetched before: every page of GET steps/?page_size=500,
            following `next` (time and bytes with an HTTP client; the browser also had
            to parse and hold all of it before showing the step).

Targets: the step shown in < 1 s, < 5 requests, < 2 MB.

    .venv/bin/python bench/replay_window.py [--steps 100000] [--step 73512] [--skip-full]
"""

from __future__ import annotations

import argparse
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
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_site(var: str) -> tuple[str, dict, subprocess.Popen]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "ARENA_VAR_DIR": var,
           "ARENA_QUEUE": "sqlite", "LOG_LEVEL": "WARNING"}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return base, env, server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("the site did not start")


def write_episode(env: dict, steps: int) -> int:
    code = (
        "import json\nfrom arena.services.submissions import baseline_submission\nfrom tests.support.long_episode import long_episode\n"
        f"print(json.dumps(long_episode(baseline_submission('random', 'Random'), {steps}).id))"
    )
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


STEP_DRAWN = "(step) => (document.getElementById('observation')?.textContent || '').endsWith('step ' + step)"
PLAYER_READY = "() => document.getElementById('player')?.dataset.ready === '1'"
# When the first window of steps was asked for and when it had arrived.
WINDOW_TIMING = """() => {
  const windows = performance.getEntriesByType('resource').filter((e) => e.name.includes('from='));
  return [Math.min(...windows.map((e) => e.startTime)), Math.min(...windows.map((e) => e.responseEnd))];
}"""


def open_in_browser(browser, url: str, step: int) -> dict:
    page = browser.new_page()
    traffic = {"requests": 0, "bytes": 0}

    def finished(request):
        if "/api/" in request.url:
            traffic["requests"] += 1
            traffic["bytes"] += request.sizes()["responseBodySize"]

    page.on("requestfinished", finished)
    page.goto(url, wait_until="commit")
    page.wait_for_function(STEP_DRAWN, arg=step, timeout=120_000, polling="raf")
    shown_ms = page.evaluate("performance.now()")
    page.wait_for_function(PLAYER_READY, timeout=120_000, polling="raf")
    ready_ms = page.evaluate("performance.now()")
    # When the page's HTML and the step's window had arrived, from navigation start.
    html_ms = page.evaluate("performance.getEntriesByType('navigation')[0].responseEnd")
    asked_ms, window_ms = page.evaluate(WINDOW_TIMING)
    page.wait_for_load_state("networkidle")
    page.close()
    seconds = {"shown_s": shown_ms, "ready_s": ready_ms, "html_s": html_ms, "window_s": window_ms, "asked_s": asked_ms}
    return {**{name: ms / 1000 for name, ms in seconds.items()}, **traffic}


def full_download(base: str, episode_id: int) -> dict:
    url = f"{base}/api/episodes/{episode_id}/steps/?page_size=500"
    requests = size = 0
    start = time.perf_counter()
    with httpx.Client(timeout=120) as client:
        while url:
            response = client.get(url)
            response.raise_for_status()
            requests += 1
            size += len(response.content)
            url = response.json()["next"]
    return {"seconds": time.perf_counter() - start, "requests": requests, "bytes": size}


def timed_get(url: str) -> tuple[float, int]:
    start = time.perf_counter()
    response = httpx.get(url, timeout=120)
    response.raise_for_status()
    return time.perf_counter() - start, len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--step", type=int, default=73_512)
    parser.add_argument("--skip-full", action="store_true", help="leave out the full download (minutes under load)")
    args = parser.parse_args()

    var = tempfile.mkdtemp(prefix="arena-bench-replay-")
    server = None
    try:
        base, env, server = start_site(var)
        start = time.perf_counter()
        episode_id = write_episode(env, args.steps)
        print(f"episode of {args.steps:,} steps written in {time.perf_counter() - start:.1f} s")
        load = os.getloadavg()
        page_url = f"{base}/episodes/{episode_id}/?step={args.step}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            cold = open_in_browser(browser, page_url, args.step)
            warm = open_in_browser(browser, page_url, args.step)
            browser.close()
        first = args.step - args.step % 100
        window_s, window_bytes = timed_get(f"{base}/api/episodes/{episode_id}/steps/?from={first}&to={first + 99}&page_size=100")
        marks_s, marks_bytes = timed_get(f"{base}/api/episodes/{episode_id}/marks/?window=100")
        print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        for name, run in (("windowed, marks computed", cold), ("windowed, marks cached", warm)):
            print(f"{name:26s} step {args.step} shown {run['shown_s']:.2f} s (target < 1 s), marks in at "
                  f"{run['ready_s']:.2f} s, {run['requests']} API requests (< 5), {run['bytes'] / 1e6:.3f} MB (< 2 MB); "
                  f"HTML in at {run['html_s']:.2f} s, window asked at {run['asked_s']:.2f} s, in at {run['window_s']:.2f} s")
        print(f"{'api':26s} one window {window_s * 1000:.0f} ms, {window_bytes / 1e3:.1f} KB; "
              f"marks (cached) {marks_s * 1000:.0f} ms, {marks_bytes / 1e3:.1f} KB")
        if not args.skip_full:
            full = full_download(base, episode_id)
            print(f"{'full download (before)':26s} {full['seconds']:.1f} s, {full['requests']} requests, "
                  f"{full['bytes'] / 1e6:.1f} MB")
            print(f"ratio: the windowed open is {full['seconds'] / warm['shown_s']:.0f}x faster and moves "
                  f"{full['bytes'] / max(1, warm['bytes']):.0f}x fewer bytes")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
