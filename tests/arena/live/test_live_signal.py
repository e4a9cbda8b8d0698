"""Embedded mode's push across processes: a step a worker process commits reaches the
viewers of another process at once (not at the next poll), and sockets left behind by
dead processes neither stop publishing nor stay."""

import asyncio
import json
import os
import socket
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connection

from arena.services.episodes import episode_claim
from arena.services.steps import StepRecord, step_record
from arena.services.submissions import baseline_submission
from arena.live import signal as livesignal
from leaderboard.routing import websocket_urlpatterns
from tests.conftest import new_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ROOT = Path(__file__).resolve().parents[3]
application = URLRouter(websocket_urlpatterns)
WORKER = "live-signal-worker"
# Far longer than the test may take: a step that arrives came through the signal.
POLL_SECONDS = 600

# A worker's way of writing: the step writer on an event loop the publisher is bound
# to. All the steps are written at once, so they are committed (and announced) in one
# batch: more announcements than a datagram socket queues.
WRITER = """
import asyncio, sys
import django
django.setup()
from arena.services.episodes import episode_claim
from arena.services.steps import StepRecord, step_record
from arena.services.submissions import baseline_submission
from arena.live import publish
from arena.play.stepwriter import StepWriter

episode_id, worker, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])

def record(index):
    return StepRecord(
        index=index, observation_text=f"from the worker {index} " + "." * 2000, observation_image=None,
        prompt_added=[], completion="up", reasoning="", parsed_action="up", executed_action="up", legal=True,
        reward=0.0, done=False, end_reason="", tokens_in=None, tokens_out=None, latency_ms=None, error="",
    )

async def main():
    publish.bind_loop(asyncio.get_running_loop())
    writer = StepWriter()
    await asyncio.gather(*(writer.write(episode_id, worker, record(i)) for i in range(count)))
    await asyncio.sleep(1)  # time for datagrams a busy receiver refused to go again

asyncio.run(main())
"""


def _started_episode():
    run = new_run(baseline_submission("random", "Random"), episodes=1)
    episode = run.episodes.get()
    assert episode_claim(episode.id, WORKER)
    return episode.id


def _record(episode_id, index):
    step_record(
        episode_id,
        WORKER,
        StepRecord(
            index=index, observation_text=f"obs {index}", observation_image=None, prompt_added=[],
            completion="", reasoning="", parsed_action="up", executed_action="up", legal=True, reward=0.0,
            done=False, end_reason="", tokens_in=None, tokens_out=None, latency_ms=None, error="",
        ),
    )


async def _viewer(episode_id):
    communicator = WebsocketCommunicator(application, f"/ws/episodes/{episode_id}/")
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def test_a_burst_of_steps_from_a_worker_process_arrives_without_waiting_for_the_poll(settings, tmp_path):
    settings.ARENA_LIVE_POLL_SECONDS = POLL_SECONDS
    episode_id = await sync_to_async(_started_episode)()
    communicator = await _viewer(episode_id)
    environment = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ARENA_VAR_DIR": str(tmp_path),
        "SQLITE_PATH": connection.settings_dict["NAME"],
        "ARENA_LIVE_SIGNAL_DIR": str(settings.ARENA_LIVE_SIGNAL_DIR),
        "LOG_LEVEL": "ERROR",
    }
    worker = await asyncio.create_subprocess_exec(
        sys.executable, "-c", WRITER, str(episode_id), WORKER, "40", cwd=ROOT, env=environment,
    )
    try:
        messages = [await communicator.receive_json_from(timeout=120) for _ in range(40)]
    finally:
        await worker.wait()
    assert worker.returncode == 0
    assert [m["step"]["index"] for m in messages] == list(range(40))
    assert messages[39]["step"]["observation_text"].startswith("from the worker 39")
    await communicator.disconnect()


async def test_a_dead_process_socket_does_not_stop_publishing_and_is_removed(settings):
    directory = Path(settings.ARENA_LIVE_SIGNAL_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    dead = directory / "0-dead.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as gone:
        gone.bind(str(dead))  # its process "dies": the file stays, nobody reads it
    other_process = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    other_process.bind(str(directory / "1-other.sock"))
    other_process.settimeout(10)
    episode_id = await sync_to_async(_started_episode)()
    communicator = await _viewer(episode_id)
    try:
        await sync_to_async(_record)(episode_id, 0)

        here = await communicator.receive_json_from(timeout=10)
        assert here["step"]["index"] == 0
        [(group, message)] = json.loads(await asyncio.to_thread(other_process.recv, 1 << 17))
        assert group == f"episode-{episode_id}"
        assert json.loads(message["frame"])["step"]["observation_text"] == "obs 0"
        assert not dead.exists()
    finally:
        other_process.close()
        (directory / "1-other.sock").unlink()
        await communicator.disconnect()


async def test_a_busy_web_process_gets_a_whole_burst_when_it_reads_again(settings):
    directory = Path(settings.ARENA_LIVE_SIGNAL_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "2-busy.sock"
    busy = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    busy.bind(str(path))
    busy.setblocking(False)
    try:
        loop = asyncio.get_running_loop()
        for index in range(40):  # a worker's batch: posted together, on its loop
            livesignal.outbox.post("episode-1", {"type": "step.committed", "index": index, "frame": "." * 2000}, loop)
        await asyncio.sleep(0.2)  # the web process reads nothing meanwhile

        received = []
        while True:
            try:
                received.extend(json.loads(busy.recv(1 << 17)))
            except BlockingIOError:
                break
        assert [message["index"] for _, message in received] == list(range(40))
    finally:
        busy.close()
        path.unlink()


async def test_a_message_no_other_process_listens_for_is_neither_built_nor_flushed(settings, monkeypatch):
    """A worker nobody watches posts every step's announcement: with no socket in the
    directory there is nobody to send it to, so it is not encoded and the loop is not
    woken to flush it; once a process listens, the next one reaches it."""
    directory = Path(settings.ARENA_LIVE_SIGNAL_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    # This process's own socket (its listener) is not another process.
    assert [str(path) for path in directory.glob("*" + livesignal.SUFFIX)] in ([], [livesignal.listener.path])
    built = []
    envelope = livesignal._envelope
    monkeypatch.setattr(livesignal, "_envelope", lambda group, message: built.append(message) or envelope(group, message))
    outbox = livesignal.outbox
    loop = asyncio.get_running_loop()
    outbox._scanned = None  # listed afresh, as after RESCAN_SECONDS
    outbox.post("episode-1", {"type": "step.committed", "index": 0}, loop)
    assert built == [] and outbox._pending == [] and outbox._flush_on is None

    path = directory / "3-late.sock"
    late = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    late.bind(str(path))
    late.settimeout(10)
    try:
        outbox._scanned = None
        outbox.post("episode-1", {"type": "step.committed", "index": 1}, loop)
        assert [message["index"] for message in built] == [1]
        await asyncio.sleep(0.05)
        [(group, message)] = json.loads(await asyncio.to_thread(late.recv, 1 << 17))
        assert (group, message["index"]) == ("episode-1", 1)
    finally:
        late.close()
        path.unlink()
