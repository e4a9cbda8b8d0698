"""Concurrency of one worker against a slow model.

One worker process keeps 64 episodes in flight against a local fake OpenAI-compatible
server that takes 200 ms per request. Ideal: 64 / 0.2 s = 320 steps/s. Prints the
achieved rate, its ratio to the ideal (target >= 0.9), the worker's CPU per model step
(target <= 1.5 ms) beside the same games played by the zero-latency random baseline in
the same run, and the process's peak memory. `--profile FILE` writes cProfile figures
of the event loop's thread and of the database thread (see bench/README.md).

    .venv/bin/python bench/concurrency.py [--in-flight 64] [--latency 0.2] [--episodes 640] [--profile FILE]
"""

import argparse
import asyncio
import contextlib
import cProfile
import multiprocessing
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _serve_fake_model(latency: float, ports, stop, reply_text: str = "Action: up") -> None:
    """A fake OpenAI-compatible model in its own process: an asyncio HTTP/1.1 server
    (keep-alive, no thread per request) so that the measuring apparatus itself costs
    almost no CPU. Every answer is `reply_text` after `latency` seconds."""
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
                # Every field OpenAI documents as always present (llama.cpp's and vLLM's
                # servers send them too); a reply without some is read the SDK's slower
                # lenient way (arena.clients.sdk_reading.sdk_object).
                answer = json.dumps(
                    {
                        "id": "fake", "object": "chat.completion", "created": int(time.time()),
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": reply_text}}],
                        "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 3,
                                  "total_tokens": len(prompt) // 4 + 3},
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


def _zero_latency_baseline(args) -> tuple[int, float]:
    """The worker's CPU for the same games played by the random baseline (no model call):
    what a step costs without the model-call path."""
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission, submission_create
    from arena.models import Step
    from arena.play.worker import Worker

    submission = baseline_submission("random", "Random legal actions")
    run = run_create(submission, RunSpec(task=args.task, format=args.format,
                                                           num_episodes=args.episodes))
    worker = Worker(concurrency=args.in_flight, name="bench-baseline")
    cpu_started = time.process_time()
    asyncio.run(worker.serve(until_idle=True))
    return Step.objects.filter(episode__run=run).count(), time.process_time() - cpu_started


def _steady_rate(submission, in_flight: int) -> tuple[float, float]:
    """(steps/s, seconds) while every slot was busy: from the start of the episode that
    filled the last slot to the start of the last episode (until then an ending episode
    is followed by the next at once). The whole run's rate also holds the start-up and
    the drain at the end, when fewer episodes remain than slots: a fixed cost of a batch,
    about half an episode, that weighs less the more episodes a run has."""
    from arena.models import Episode, Step

    starts = sorted(Episode.objects.filter(run__submission=submission).values_list("started_at", flat=True))
    if len(starts) <= in_flight:
        return 0.0, 0.0
    full, last = starts[in_flight - 1], starts[-1]
    steps = Step.objects.filter(episode__run__submission=submission, created_at__gte=full, created_at__lt=last).count()
    seconds = (last - full).total_seconds()
    return (steps / seconds if seconds else 0.0), seconds


def _model_steps_with(args, base_url: str, name: str, switch) -> tuple[int, float, float]:
    """The worker's CPU for the same games against the same fake model with one of the
    fixes switched off by `switch` (a context manager): that fix's share of a step."""
    from arena.services.runs import RunSpec
    from arena.services.submissions import submission_create
    from arena.models import Step
    from arena.play.worker import Worker

    submission = submission_create(
        owner=None,
        fields={"name": name, "base_url": base_url, "model": "fake", "max_tokens": 16,
                "max_concurrent_requests": args.in_flight},
        api_key="",
        runs=[RunSpec(task=args.task, format=args.format, num_episodes=args.episodes)],
    )
    with switch():
        worker = Worker(concurrency=args.in_flight, name=name)
        started, cpu_started = time.perf_counter(), time.process_time()
        asyncio.run(worker.serve(until_idle=True))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return Step.objects.filter(episode__run__submission=submission).count(), cpu, elapsed


@contextlib.contextmanager
def _announced_to_nobody():
    """Each step's announcement to other processes encoded and flushed from the event
    loop even when no other process listens (arena.live.signal.Outbox.post as before)."""
    from arena.live import signal as livesignal

    livesignal.Outbox.skips_when_unheard = False
    try:
        yield
    finally:
        livesignal.Outbox.skips_when_unheard = True


@contextlib.contextmanager
def _each_step_committed_at_once():
    """The runner's overlapped step writes committed as soon as the writer takes them
    (one transaction for each step that arrives alone), instead of waiting up to
    GATHER_SECONDS for other episodes' steps (arena.play.stepwriter)."""
    from arena.play.stepwriter import StepWriter

    gathering = StepWriter.__init__.__defaults__
    StepWriter.__init__.__defaults__ = (0.0,)
    try:
        yield
    finally:
        StepWriter.__init__.__defaults__ = gathering


# (name, what is switched off, switch): each row plays the same games once more.
SWITCH_OFF_ROWS = [
    ("gather", "each overlapped step write committed at once, not gathered with others", _each_step_committed_at_once),
    ("no-listener", "step announcements encoded and flushed with no other process listening", _announced_to_nobody),
]


def _start_profiles() -> tuple:
    """cProfile the event loop's thread and the database thread (a profiler sees only
    the thread that enabled it)."""
    from arena.play.dbthread import _executor

    # Each thread's own CPU time: waiting (for the model, the GIL, the disk) is not counted.
    loop_profile, db_profile = cProfile.Profile(time.thread_time), cProfile.Profile(time.thread_time)
    _executor.submit(db_profile.enable).result()
    loop_profile.enable()
    return loop_profile, db_profile


def _stop_profiles(profilers: tuple, path: str) -> None:
    from arena.play.dbthread import _executor

    loop_profile, db_profile = profilers
    loop_profile.disable()
    _executor.submit(db_profile.disable).result()
    loop_profile.dump_stats(path)
    db_profile.dump_stats(path + ".db")
    print(f"profiles written   : {path} (event loop), {path}.db (database thread)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--episodes", type=int, default=640, help="10 waves of 64: start-up and tail weigh little")
    parser.add_argument("--task", default="lmact/gridworld")
    parser.add_argument("--format", default="ascii")
    parser.add_argument("--profile", metavar="FILE", help="write a cProfile of the worker's run to FILE (pstats format)")
    parser.add_argument("--without-fix-rows", action="store_true",
                        help="skip every row that plays the same games with a fix switched off")
    parser.add_argument("--row", action="append", metavar="NAME",
                        help="play only this fix-off row (repeatable): " + ", ".join(name for name, *_ in SWITCH_OFF_ROWS))
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
        profilers = _start_profiles() if args.profile else None
        started, cpu_started = time.perf_counter(), time.process_time()
        asyncio.run(worker.serve(until_idle=True))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        if profilers:
            _stop_profiles(profilers, args.profile)
        steps = Step.objects.filter(episode__run__submission=submission).count()
        steady_rate, steady_seconds = _steady_rate(submission, args.in_flight)
        baseline_steps, baseline_cpu = _zero_latency_baseline(args)
        rows = [(name, what, _model_steps_with(args, base_url, f"bench-{name}", switch))
                for name, what, switch in SWITCH_OFF_ROWS
                if not args.without_fix_rows and (not args.row or name in args.row)]
    finally:
        stop.set()
        requests = ports.get(timeout=30)
        server.join(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)  # the bench's database and files

    ideal = args.in_flight / args.latency
    rate = steps / elapsed
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.episodes} episodes of {args.task} ({args.format}), {args.in_flight} in flight, model latency {args.latency * 1000:.0f} ms")
    print(f"steps stored       : {steps} in {elapsed:.2f} s ({requests} model requests in all rows)")
    print(f"achieved           : {rate:.1f} steps/s")
    print(f"worker CPU         : {cpu:.2f} s = {1000 * cpu / max(1, steps):.2f} ms per step ({cpu / elapsed:.0%} of one core)")
    print(f"ideal              : {ideal:.1f} steps/s")
    print(f"ratio to ideal     : {rate / ideal:.3f} (target >= 0.9; the whole run, start-up and drain included)")
    print(f"every slot busy    : {steady_rate:.1f} steps/s = {steady_rate / ideal:.3f} of ideal, over {steady_seconds:.1f} s "
          f"(from the start that filled the last slot to the last start)")
    baseline_ms, model_ms = 1000 * baseline_cpu / max(1, baseline_steps), 1000 * cpu / max(1, steps)
    print(f"zero-latency agent : {baseline_ms:.2f} ms CPU per step (random baseline, same task and in-flight count, same run)")
    print(f"model-call path    : {model_ms - baseline_ms:.2f} ms CPU per step (model step minus baseline step; "
          f"model step / baseline step = {model_ms / baseline_ms:.2f}); target: model step <= 1.5 ms")
    for name, what, (row_steps, row_cpu, row_elapsed) in rows:
        row_ms = 1000 * row_cpu / max(1, row_steps)
        print(f"without fix {name:<13}: {row_ms:.2f} ms CPU per model step, ratio to ideal "
              f"{row_steps / row_elapsed / ideal:.3f} ({what}); with the fix / without = {model_ms / row_ms:.2f}, "
              f"saves {row_ms - model_ms:.2f} ms per step")
    print("wall ratios are pessimistic on a shared machine (other processes take the cores); CPU per step is not")
    print(f"peak memory (RSS)  : {peak_mib:.0f} MiB (the worker process; the fake model runs in another)")


if __name__ == "__main__":
    main()
