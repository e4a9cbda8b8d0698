"""Concurrency of one worker against a slow model.

One worker process keeps 64 episodes in flight against a local fake OpenAI-compatible
server that takes 200 ms per request. Ideal: 64 / 0.2 s = 320 steps/s. Prints the
achieved rate, its ratio to the ideal (target >= 0.8) and the process's peak memory.

    .venv/bin/python bench/concurrency.py [--in-flight 64] [--latency 0.2] [--episodes 640]
"""

import argparse
import asyncio
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _serve_fake_model(latency: float, ports, stop) -> None:
    """A fake OpenAI-compatible model in its own process: an asyncio HTTP/1.1 server
    (keep-alive, no thread per request) so that the measuring apparatus itself costs
    almost no CPU. Every answer is "Action: up" after `latency` seconds."""
    import json
    import threading

    served = 0

    async def handle(reader, writer):
        nonlocal served
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = json.loads(await reader.readexactly(length)) if length else {}
                await asyncio.sleep(latency)
                prompt = json.dumps(body.get("messages", ""))
                answer = json.dumps(
                    {
                        "id": "fake", "object": "chat.completion", "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": "Action: up"}}],
                        "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 3},
                    }
                ).encode()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(answer)).encode() + b"\r\n\r\n" + answer
                )
                await writer.drain()
                served += 1
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def serve():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        ports.put((port, f"http://127.0.0.1:{port}/v1"))
        await asyncio.get_running_loop().run_in_executor(None, stop.wait)
        ports.put(served)
        server.close()

    threading.current_thread().name = "fake-model"
    asyncio.run(serve())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--episodes", type=int, default=640, help="10 waves of 64: start-up and tail weigh little")
    parser.add_argument("--task", default="lmact/gridworld")
    parser.add_argument("--format", default="ascii")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="arena-bench-")
    os.environ.update(
        ARENA_VAR_DIR=tmp,
        SQLITE_PATH=os.path.join(tmp, "bench.sqlite3"),
        ARENA_QUEUE="memory",
        ARENA_ALLOW_LOOPBACK="1",
        DJANGO_SETTINGS_MODULE="config.settings",
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.core.management import call_command

    from arena.services.runs import RunSpec
    from arena.services.submissions import submission_create
    from arena.models import Step
    from arena.play.worker import Worker

    call_command("migrate", verbosity=0)
    context = multiprocessing.get_context("spawn")
    ports, stop = context.Queue(), context.Event()
    server = context.Process(target=_serve_fake_model, args=(args.latency, ports, stop), daemon=True)
    server.start()
    _, base_url = ports.get(timeout=30)
    try:
        submission = submission_create(
            owner=None,
            # The fake server has no slots: let every episode in flight call it at once.
            fields={"name": "bench", "base_url": base_url, "model": "fake", "max_tokens": 16,
                    "max_concurrent_requests": args.in_flight},
            api_key="",
            runs=[RunSpec(task=args.task, format=args.format, num_episodes=args.episodes)],
        )
        worker = Worker(concurrency=args.in_flight, name="bench")
        started, cpu_started = time.perf_counter(), time.process_time()
        asyncio.run(worker.serve(until_idle=True))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        steps = Step.objects.filter(episode__run__submission=submission).count()
    finally:
        stop.set()
        requests = ports.get(timeout=30)
        server.join(timeout=10)

    ideal = args.in_flight / args.latency
    rate = steps / elapsed
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.episodes} episodes of {args.task} ({args.format}), {args.in_flight} in flight, model latency {args.latency * 1000:.0f} ms")
    print(f"steps stored       : {steps} ({requests} model requests) in {elapsed:.2f} s")
    print(f"achieved           : {rate:.1f} steps/s")
    print(f"worker CPU         : {cpu:.2f} s = {1000 * cpu / max(1, steps):.2f} ms per step ({cpu / elapsed:.0%} of one core)")
    print(f"ideal              : {ideal:.1f} steps/s")
    print(f"ratio to ideal     : {rate / ideal:.3f} (target >= 0.8)")
    print(f"peak memory (RSS)  : {peak_mib:.0f} MiB (the worker process; the fake model runs in another)")


if __name__ == "__main__":
    main()
