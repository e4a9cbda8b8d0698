"""Runner overhead: steps/s of the raw env loop vs the full runner.

The full runner includes everything a real step costs except the model: the claim,
the step row and heartbeat committed to SQLite (WAL, as in `make serve`), the
on-commit websocket publish, the episode finish and the run aggregates. The agent is
the random-legal baseline, so the model's latency is zero.

    .venv/bin/python bench/runner_overhead.py [--episodes 200] [--task lmact/gridworld] [--format ascii]
"""

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django(tmp: str) -> None:
    os.environ["ARENA_VAR_DIR"] = tmp
    os.environ["SQLITE_PATH"] = os.path.join(tmp, "bench.sqlite3")
    os.environ["ARENA_QUEUE"] = "memory"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def raw_loop(task_id: str, fmt: str, episodes: int) -> tuple[int, float, float]:
    from envs.core import RandomLegalPolicy
    from envs.registry import make

    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    for seed in range(episodes):
        task = make(task_id, fmt)
        policy = RandomLegalPolicy(seed)
        task.reset(seed)
        for _ in range(task.max_steps):
            result = task.step(policy.act(task))
            steps += 1
            if result.done:
                break
    return steps, time.perf_counter() - start, time.process_time() - cpu


def full_runner(task_id: str, fmt: str, episodes: int, in_flight: int, first_seed: int) -> tuple[int, float, float]:
    """Episodes played by a real Worker (queue, claim, runner, step writer), with at
    most `in_flight` episodes at once."""
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission
    from arena.models import Step
    from arena.play.worker import Worker

    submission = baseline_submission("random", "Random legal actions")
    spec = RunSpec(task=task_id, format=fmt, num_episodes=episodes, first_seed=first_seed)
    run = run_create(submission, spec)  # queued on commit (autocommit here)
    worker = Worker(concurrency=in_flight, name=f"bench-{in_flight}")
    start, cpu = time.perf_counter(), time.process_time()
    asyncio.run(worker.serve(until_idle=True))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Step.objects.filter(episode__run=run).count(), elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--task", default="lmact/gridworld")
    parser.add_argument("--format", default="ascii")
    parser.add_argument("--in-flight", type=int, default=32, help="episodes in flight in the worker run")
    args = parser.parse_args()
    random.seed(0)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        setup_django(tmp)
        raw_steps, raw_time, raw_cpu = raw_loop(args.task, args.format, args.episodes)
        results = [
            (in_flight, *full_runner(args.task, args.format, args.episodes, in_flight, first_seed=0))
            for in_flight in (1, args.in_flight)
        ]
    raw_rate = raw_steps / raw_time
    print(f"task {args.task} ({args.format}), {args.episodes} episodes, random-legal agent (zero model latency)")
    print(f"raw env loop                  : {raw_steps:6d} steps in {raw_time:7.3f} s = {raw_rate:9.0f} steps/s"
          f"  CPU {1000 * raw_cpu / raw_steps:.3f} ms/step")
    for in_flight, run_steps, run_time, run_cpu in results:
        run_rate = run_steps / run_time
        overhead_ms = 1000 * (run_time / run_steps - raw_time / raw_steps)
        cpu_overhead_ms = 1000 * (run_cpu / run_steps - raw_cpu / raw_steps)
        print(
            f"full runner, {in_flight:3d} in flight     : {run_steps:6d} steps in {run_time:7.3f} s = {run_rate:9.0f} steps/s"
            f"  ratio to raw {run_rate / raw_rate:.4f}  overhead {overhead_ms:.3f} ms/step wall, {cpu_overhead_ms:.3f} ms/step CPU"
        )
    print("target: runner overhead <= 1 ms per step (wall figures are pessimistic on a shared machine: other")
    print("processes take the cores and every hop to the database thread waits for one; CPU figures are not)")


if __name__ == "__main__":
    main()
