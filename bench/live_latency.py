"""Live latency: how long after a step is committed do 100 viewers of its episode see it?

For each mode, as in production: a Daphne process serves the websockets, another
process (the "publisher") writes the steps of one running episode at a steady rate
through the worker's step writer (group commit, publish after commit), and this
process holds the viewers' websockets on loopback.

    embedded  SQLite, in-memory channel layer: the publisher and Daphne share no layer
    scaled    PostgreSQL + Redis channel layer (throw-away servers, started as the tests do)

Latency is measured per viewer per step, from the moment the step's transaction
committed (stamped in the publisher when its publish callback runs) to the moment the
viewer's websocket returned the step. Prints p50/p95/max per mode beside the target,
the spread between the first and the last viewer to get each step, and whether every
viewer got every step exactly once.

    .venv/bin/python bench/live_latency.py [--viewers 100] [--steps 300] [--rate 10]
        [--modes embedded,scaled]
"""

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import InvalidStatus  # noqa: E402

from tests.support.ports import free_port, wait_for_port  # noqa: E402
from tests.support.processes import stop_all  # noqa: E402

TARGET_P50_MS = 100
TARGET_P95_MS = 250
WORKER = "bench-live-publisher"
REFUSED_HANDSHAKES = [0]

# Runs in its own process. Creates a running episode with one step (index 0, which each
# viewer receives once its consumer has caught up), says "ready <id>", waits for "go",
# then writes steps 1..STEPS at the given rate through the real step writer and prints
# the commit time of each as JSON.
PUBLISHER = """
import asyncio, json, sys, time
import django
django.setup()
from arena.services.episodes import episode_claim, episode_finish
from arena.services.runs import RunSpec, run_create
from arena.services.steps import StepRecord, step_record
from arena.services.submissions import baseline_submission
from arena.live import publish
from arena.play.dbthread import db
from arena.play.stepwriter import StepWriter

STEPS, RATE, WORKER = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
submission = baseline_submission("random", "Random")
run = run_create(submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1))
episode = run.episodes.get()
assert episode_claim(episode.id, WORKER)

committed = {}
publish_step = publish.publish_step

def stamped(episode_id, index, *rest, **named):
    # Publish callbacks run right after the commit: this is the commit time.
    committed[index] = time.time()
    return publish_step(episode_id, index, *rest, **named)

publish.publish_step = stamped
board = "\\n".join("." * 24 for _ in range(12))

def record(index):
    return StepRecord(
        index=index, observation_text=f"step {index}\\n{board}\\nYou are at ({index % 24}, 3).",
        observation_image=None, prompt_added=[{"type": "text", "text": f"Observation {index}: {board}"}],
        completion="I will move up, since the target lies above me. ACTION: up", reasoning="",
        parsed_action="up", executed_action="up", legal=True, reward=0.0, done=index == STEPS,
        end_reason="", tokens_in=900, tokens_out=20, latency_ms=250.0, error="",
    )

async def main():
    publish.bind_loop(asyncio.get_running_loop())
    writer = StepWriter()
    started = time.monotonic()
    for index in range(1, STEPS + 1):
        await asyncio.sleep(max(0.0, started + index / RATE - time.monotonic()))
        await writer.write(episode.id, WORKER, record(index))
    await db(episode_finish, episode.id, WORKER, score=0.0, end_reason="step limit")

step_record(episode.id, WORKER, record(0))
committed.clear()
print("ready", episode.id, flush=True)
sys.stdin.readline()
asyncio.run(main())
print(json.dumps(committed), flush=True)
"""


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def _view(url: str, origin: str, ready: asyncio.Event, counter: list[int], total: int) -> list:
    """(index, receipt time) of every step message after step 0, until the end message."""
    received = []
    for attempt in range(3):
        try:
            websocket = await connect(url, origin=origin, open_timeout=120, max_size=None, ping_interval=None)
            break
        except InvalidStatus:
            # A handshake refused while a hundred connect at once: a browser tries again.
            REFUSED_HANDSHAKES[0] += 1
            if attempt == 2:
                raise
            await asyncio.sleep(1.0)
    async with websocket:
        async for raw in websocket:
            now = time.time()
            message = json.loads(raw)
            if message["type"] == "end":
                return received
            if message["step"]["index"] == 0:
                # Its consumer has caught up: from now on it waits for new steps.
                counter[0] += 1
                if counter[0] == total:
                    ready.set()
                continue
            received.append((message["step"]["index"], now))
    return received


async def _watch(url: str, origin: str, viewers: int, publisher: subprocess.Popen) -> list[list]:
    ready, counter = asyncio.Event(), [0]
    tasks = [asyncio.create_task(_view(url, origin, ready, counter, viewers)) for _ in range(viewers)]
    started = time.monotonic()
    await asyncio.wait_for(ready.wait(), timeout=300)
    print(
        f"{'':9} {viewers} viewers connected and caught up in {time.monotonic() - started:.1f} s"
        f" ({REFUSED_HANDSHAKES[0]} handshakes refused and tried again)"
    )
    publisher.stdin.write("go\n")
    publisher.stdin.flush()
    return await asyncio.wait_for(asyncio.gather(*tasks), timeout=600)


def run_mode(mode: str, args, environment: dict) -> dict:
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=environment, check=True)
    port = free_port()
    processes = []
    try:
        processes.append(subprocess.Popen(
            [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))
        publisher = subprocess.Popen(
            [python, "-c", PUBLISHER, str(args.steps), str(args.rate), WORKER],
            cwd=ROOT, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        processes.append(publisher)
        ready = publisher.stdout.readline().split()
        episode_id = int(ready[1])
        wait_for_port(port)
        url = f"ws://127.0.0.1:{port}/ws/episodes/{episode_id}/"
        views = asyncio.run(_watch(url, f"http://127.0.0.1:{port}", args.viewers, publisher))
        committed = {int(k): v for k, v in json.loads(publisher.stdout.readline()).items()}
    finally:
        stop_all(processes)
    return _figures(mode, views, committed, args.steps)


def _figures(mode: str, views: list[list], committed: dict, steps: int) -> dict:
    latencies, by_step = [], {}
    complete = all([index for index, _ in view] == list(range(1, steps + 1)) for view in views)
    for view in views:
        for index, at in view:
            latencies.append((at - committed[index]) * 1000)
            by_step.setdefault(index, []).append(at)
    spreads = [(max(times) - min(times)) * 1000 for times in by_step.values()]
    return {
        "mode": mode,
        "p50": percentile(latencies, 0.50),
        "p95": percentile(latencies, 0.95),
        "max": max(latencies),
        "spread_p50": statistics.median(spreads),
        "spread_p95": percentile(spreads, 0.95),
        "complete": complete,
        "messages": len(latencies),
    }


def _print(figures: dict, viewers: int) -> None:
    ok = figures["p50"] < TARGET_P50_MS and figures["p95"] < TARGET_P95_MS
    print(
        f"{figures['mode']:9} p50 {figures['p50']:7.1f} ms   p95 {figures['p95']:7.1f} ms   max {figures['max']:7.1f} ms"
        f"   (target p50 < {TARGET_P50_MS}, p95 < {TARGET_P95_MS}: {'met' if ok else 'NOT met'})"
    )
    print(
        f"{'':9} first→last of {viewers} viewers: p50 {figures['spread_p50']:6.1f} ms, p95 {figures['spread_p95']:6.1f} ms;"
        f" {figures['messages']} step messages, every step exactly once: {'yes' if figures['complete'] else 'NO'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rate", type=float, default=10.0, help="steps per second")
    parser.add_argument("--modes", default="embedded,scaled")
    args = parser.parse_args()

    base = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING"}
    print(f"{args.viewers} viewers, {args.steps} steps at {args.rate:g}/s; load average {os.getloadavg()[0]:.2f}")
    for mode in args.modes.split(","):
        var_dir = tempfile.mkdtemp(prefix=f"arena-bench-live-{mode}-")
        try:
            with contextlib.ExitStack() as servers:
                environment = {**base, "ARENA_VAR_DIR": var_dir}
                if mode == "scaled":
                    from tests.support.postgres import PostgresServer
                    from tests.support.redis_server import RedisServer

                    postgres = servers.enter_context(PostgresServer.start())
                    redis = servers.enter_context(RedisServer.start())
                    environment.update(DATABASE_URL=postgres.url, REDIS_URL=redis.url, ARENA_QUEUE="redis")
                _print(run_mode(mode, args, environment), args.viewers)
        finally:
            shutil.rmtree(var_dir, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
