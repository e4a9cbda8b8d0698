"""manage.py arena_web: several Daphne processes accepting on one socket, on a
throw-away arena (SQLite) copied from the tests' database.

Which process answers a connection is the kernel's choice (each process has its own
SO_REUSEPORT socket, and the kernel spreads connections over them by their addresses). To
reach one in particular the tests SIGSTOP the others and SIGCONT them after: a stopped
process answers nothing, though the kernel still queues its share of new connections on
its socket, so each request or websocket is tried on several fresh connections (new
source ports) at once, and the first answer, necessarily the running process's, is taken.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import httpx
import pytest
from django.db import connection
from websockets.sync.client import connect

from arena.services.episodes import episode_claim, episode_finish
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission
from tests.support.episodes import WORKER, scripted_episode
from tests.support.worker_process import ROOT, Arena

pytestmark = pytest.mark.django_db(transaction=True)

CHECK_SECONDS = 0.2
# How long one try waits before it takes its connection for one queued on a stopped
# process and tries another: long enough for a websocket handshake on a machine whose two
# cores also run the other half of the suite (4 s timed out every try there for 90 s).
TRY_SECONDS = 12
# Start-up of a Daphne process can take many seconds on a busy machine.
PATIENCE = 90
# Fresh connections one try opens at once. Waiting out each connection queued on a stopped
# process, one after the other, cost TRY_SECONDS per unlucky try (this file took 271 s
# that way on a loaded machine; 96 and 104 s racing, 125 s starting one more connection
# after 0.5, 1, 2… s); with one process of two stopped, all RACE connections land on it
# once in 2**RACE tries.
RACE = 6


class Site:
    def __init__(self, arena: Arena, processes: int):
        self.log = Path(arena.var) / "web.log"
        with self.log.open("w") as output:
            self.launcher = subprocess.Popen(
                [sys.executable, "manage.py", "arena_web", "--port", "0", "--processes", str(processes)],
                cwd=ROOT, env=arena.env, stdout=output, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + PATIENCE
        while "\n" not in self.log.read_text():
            assert time.monotonic() < deadline and self.launcher.poll() is None, self.log.read_text()
            time.sleep(0.1)
        self.url = self.log.read_text().split()[2].rstrip("/")
        self.port = int(self.url.rsplit(":", 1)[1])

    def children(self) -> list[int]:
        listed = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.launcher.pid)], capture_output=True, text=True)
        return sorted(int(pid) for pid in listed.stdout.split())

    def get(self, path: str) -> httpx.Response:
        return _on_fresh_connections(lambda: httpx.get(self.url + path, timeout=TRY_SECONDS, trust_env=False))

    @contextlib.contextmanager
    def only(self, pid: int):
        """Only the web process `pid` accepts connections inside the block."""
        others = [other for other in self.children() if other != pid]
        for other in others:
            os.kill(other, signal.SIGSTOP)
        try:
            yield
        finally:
            for other in others:
                os.kill(other, signal.SIGCONT)

    def stop(self) -> None:
        if self.launcher.poll() is None:
            self.launcher.kill()
            self.launcher.wait(timeout=10)


def gone(pid: int) -> bool:
    """Exited (a zombie waiting for a parent that is not this test counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


def wait_until(condition, seconds=PATIENCE) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.fixture
def arena():
    arena = Arena(ARENA_PAGE_CACHE_CHECK_SECONDS=str(CHECK_SECONDS))
    arena.start_from_here = lambda: arena.copy_database(connection.settings_dict["NAME"])
    yield arena
    arena.close()


@pytest.fixture
def site_of(arena):
    sites = []

    def start(processes: int) -> Site:
        arena.start_from_here()
        sites.append(Site(arena, processes))
        assert wait_until(lambda: len(sites[-1].children()) == processes)
        return sites[-1]

    yield start
    for site in sites:
        site.stop()


def _on_fresh_connections(attempt, discard=lambda answer: None):
    """The first answer of attempt() made on RACE new connections at once, raced again
    until one is answered within TRY_SECONDS. The tries left waiting on a stopped process
    end when it runs again (or at TRY_SECONDS); what they get then goes to discard()."""
    deadline = time.monotonic() + PATIENCE
    while True:
        pool = ThreadPoolExecutor(RACE)
        tries = [pool.submit(attempt) for _ in range(RACE)]
        pool.shutdown(wait=False)
        answered = None
        try:
            for done in as_completed(tries):
                error = done.exception()
                if error is None:
                    answered = done
                    break
                if not isinstance(error, (httpx.TimeoutException, TimeoutError)):
                    raise error
        finally:
            for other in tries:
                if other is not answered:
                    other.add_done_callback(lambda late: late.exception() is None and discard(late.result()))
        if answered is not None:
            return answered.result()
        if time.monotonic() > deadline:
            raise TimeoutError(f"no answer within {TRY_SECONDS} s on {RACE} connections for {PATIENCE} s")


def _close(websocket) -> None:
    with websocket:  # closed on leaving, as websockets asks of a connection
        pass


def _watch(site: Site, episode_id: int) -> list[dict]:
    url = f"ws://127.0.0.1:{site.port}/ws/episodes/{episode_id}/"
    websocket = _on_fresh_connections(
        lambda: connect(url, origin=site.url, open_timeout=TRY_SECONDS), discard=_close
    )
    messages = []
    with websocket:
        while not messages or messages[-1]["type"] != "end":
            messages.append(json.loads(websocket.recv(timeout=PATIENCE)))
    return messages


def test_every_web_process_serves_pages_and_websockets_and_all_stop_on_sigterm(site_of):
    episode = scripted_episode(baseline_submission("random", "Random"), ["up", "left", "down"])
    site = site_of(2)
    children = site.children()
    for pid in children:
        with site.only(pid):
            assert site.get("/").status_code == 200
            assert site.get(f"/episodes/{episode.id}/").status_code == 200
            messages = _watch(site, episode.id)
            assert [m["step"]["index"] for m in messages if m["type"] == "step"] == [0, 1, 2]

    site.launcher.send_signal(signal.SIGTERM)
    assert site.launcher.wait(timeout=30) == 0
    assert all(gone(pid) for pid in children), site.log.read_text()[-2000:]


def test_pages_cached_by_every_process_show_an_episode_another_process_finished(site_of, arena):
    submission = baseline_submission("random", "Late Finisher")
    episode = run_create(submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1)).episodes.get()
    assert episode_claim(episode.id, WORKER)
    site = site_of(2)
    for pid in site.children():
        with site.only(pid):
            # Until the process answers from its cache: a try given up on while the page
            # rendered (a slow first render on a busy machine) may have left nothing stored.
            pages = []
            assert wait_until(lambda: pages.append(site.get("/tasks/lmact/gridworld/")) or
                              pages[-1].headers.get("x-arena-page-cache") == "hit")
            assert "Late Finisher" not in pages[-1].text

    arena.shell(
        f"from arena.services.episodes import episode_finish\n"
        f"episode_finish({episode.id}, {WORKER!r}, score=0.5, end_reason='step limit')"
    )
    # Each process re-reads the generation every CHECK_SECONDS; how soon is measured by
    # bench/http_load.py, not here (a busy machine delays any process).
    for pid in site.children():
        with site.only(pid):
            assert wait_until(lambda: "Late Finisher" in site.get("/tasks/lmact/gridworld/").text, seconds=30)


def test_a_killed_web_process_is_replaced_and_killing_the_launcher_leaves_none_behind(site_of):
    site = site_of(2)
    first, second = site.children()
    os.kill(first, signal.SIGKILL)
    seen = []  # each look at the children is one `ps`: two looks may see different moments

    def replaced() -> bool:
        seen[:] = site.children()
        return len(seen) == 2 and first not in seen

    assert wait_until(replaced), site.log.read_text()[-2000:]
    assert second in seen, f"the process left alone was replaced too: {seen}; {site.log.read_text()[-2000:]}"
    (replacement,) = (pid for pid in seen if pid != second)
    with site.only(replacement):
        health = site.get("/healthz")
        assert health.status_code == 200, health.text

    site.launcher.kill()
    site.launcher.wait(timeout=10)
    assert wait_until(lambda: gone(second) and gone(replacement), seconds=30), (
        f"left behind: {[pid for pid in (second, replacement) if not gone(pid)]}; {site.log.read_text()[-2000:]}"
    )
