"""The scaled mode: the queue and the live channel on a real Redis server.

A Redis server, Daphne and a worker run as separate processes (as on N machines). The
consumers' database poll is set to a minute, so steps that arrive within seconds can
only have come through the Redis channel layer.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosedError
from websockets.sync.client import connect

from arena import queue
from tests.support.fake_openai import FakeOpenAIServer
from tests.support.ports import free_port, wait_for_port
from tests.support.processes import stop_all
from tests.support.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def redis_url():
    with RedisServer.start() as server:
        yield server.url


def test_the_redis_queue_hands_out_interrupted_episodes_before_the_backlog(redis_url, settings, monkeypatch):
    settings.ARENA_QUEUE, settings.REDIS_URL = "redis", redis_url
    redis_huey = queue._make_huey()
    monkeypatch.setattr(queue, "huey", redis_huey)
    monkeypatch.setattr(queue, "play_episode", redis_huey.task(name="play_episode")(queue.play_episode.func))

    flow = queue.Flow("submission:1", baseline=False)
    queue.enqueue_episodes(queue.priorities([(flow, [1, 2, 3])]))
    queue.enqueue_episodes(queue.priorities([(flow, [4])], resume=True))
    assert queue.pending_episode_ids() == {1, 2, 3, 4}
    assert queue.pending_episode_ids(resume=True) == {4}
    taken = [queue.dequeue_episode() for _ in range(5)]
    assert [d and d.episode_id for d in taken] == [4, 1, 2, 3, None]


CREATE_RUN = """
from arena.services.runs import RunSpec
from arena.services.submissions import submission_create
submission = submission_create(
    owner=None,
    fields={"name": "scaled", "base_url": BASE_URL, "model": "fake", "max_tokens": 16},
    api_key="",
    runs=[RunSpec(task="lmact/gridworld", format="coords", num_episodes=1)],
)
print(submission.runs.get().episodes.get().pk)
"""


def test_queue_and_live_steps_go_through_redis(redis_url):
    var = tempfile.mkdtemp(prefix="arena-scaled-")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ARENA_VAR_DIR": var,
        "REDIS_URL": redis_url,
        "ARENA_QUEUE": "redis",
        "ARENA_LIVE_POLL_SECONDS": "60",
        "ARENA_ALLOW_LOOPBACK": "1",
        "LOG_LEVEL": "WARNING",
    }
    python = sys.executable
    processes = []
    try:
        subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        with FakeOpenAIServer(default_action="up", latency=0.2) as model:
            created = subprocess.run(
                [python, "manage.py", "shell", "-c", f"BASE_URL = {model.base_url!r}\n" + CREATE_RUN],
                cwd=ROOT, env=env, check=True, capture_output=True, text=True,
            )
            episode_id = int(created.stdout.strip().splitlines()[-1])
            port = free_port()
            # Daphne's log is kept so that a closed websocket says why.
            daphne_log = Path(var) / "daphne.log"
            processes.append(
                subprocess.Popen(
                    [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
                    cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=daphne_log.open("w"),
                )
            )
            wait_for_port(port)
            url = f"ws://127.0.0.1:{port}/ws/episodes/{episode_id}/"
            with connect(url, origin=f"http://127.0.0.1:{port}", open_timeout=10) as websocket:
                started = time.time()
                # The worker starts only now: every step must be pushed live.
                processes.append(
                    subprocess.Popen(
                        [python, "manage.py", "arena_worker", "--concurrency", "4"],
                        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    )
                )
                messages = []
                while not messages or messages[-1]["type"] != "end":
                    try:
                        messages.append(json.loads(websocket.recv(timeout=30)))
                    except ConnectionClosedError:
                        pytest.fail("the live websocket closed; Daphne said:\n" + daphne_log.read_text()[-4000:])
                elapsed = time.time() - started
            assert model.requests, "the worker never took the episode from the Redis queue"
        steps = [m["step"]["index"] for m in messages if m["type"] == "step"]
        assert steps == list(range(len(steps))) and len(steps) >= 1
        assert messages[-1]["episode"]["status"] == "finished"
        assert elapsed < 45, "steps arrived only through the one-minute poll, not through Redis"
    finally:
        stop_all(processes)
        shutil.rmtree(var, ignore_errors=True)
