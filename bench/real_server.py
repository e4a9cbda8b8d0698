"""A submission against a real model server, end to end, as a new user would make it.

Starts llama.cpp's server (tests/support/llama_server.py: a 4,096-token window, a real
tokenizer, one slot, no images, a tiny random model), submits it through the REST API —
first with an rgb task, which must be refused, then with the text tasks of the issue —
lets one worker play every run, and prints per task: runs finished / failed, episodes,
steps stored, the first step at which a prompt had to be trimmed, how episodes ended;
then the median and p95 model latency and whether every run has a leaderboard row.

    .venv/bin/python bench/real_server.py [--episodes 1] [--colours 3,10]
"""

import argparse
import asyncio
import collections
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TASKS = [
    "lmact/gridworld:ascii",
    "lmact/chess:fen",
    "infogather/single-feature:text",
    "infogather/conjunction:text",
    "adventure/basic-hard:text",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=1, help="episodes per run")
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="arena-real-server-")
    os.environ.update(
        ARENA_VAR_DIR=tmp, ARENA_QUEUE="memory", ARENA_ALLOW_LOOPBACK="1",
        DJANGO_SETTINGS_MODULE="config.settings", LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from arena.models import Run, Step
    from arena.play.worker import Worker
    from leaderboard.selectors.runs import leaderboard_rows
    from tests.support.llama_server import LlamaServer

    call_command("migrate", verbosity=0)
    api = APIClient()
    api.force_authenticate(User.objects.create_user("bench", password="bench-password-123"))
    with LlamaServer.start() as server:
        body = {"name": "tiny llama (llama.cpp, 4k window)", "base_url": server.base_url, "model": server.model_id,
                "api_key": "", "episodes_per_task": args.episodes, "max_tokens": args.max_tokens,
                "max_concurrent_requests": 1}
        refused = api.post("/api/submissions/", {**body, "tasks": ["lmact/tictactoe:rgb", *TASKS]}, format="json")
        print(f"rgb task: HTTP {refused.status_code}: {refused.json().get('tasks')}")
        created = api.post("/api/submissions/", {**body, "tasks": TASKS}, format="json")
        assert created.status_code == 201, created.content
        probe = created.json()["endpoint_probe"]
        print(f"probe: window {probe['context_window']} ({probe['context_window_source']}), images "
              f"{probe['accepts_images']}, {probe['latency_ms']:.0f} ms, {probe['tokens_per_second']} tokens/s")
        started = time.perf_counter()
        asyncio.run(Worker(concurrency=8, name="bench-real").serve(until_idle=True))
        elapsed = time.perf_counter() - started

    submission_id = created.json()["id"]
    runs = list(Run.objects.filter(submission_id=submission_id))
    by_task = collections.defaultdict(list)
    for run in runs:
        by_task[run.task].append(run)
    print(f"\nplayed in {elapsed:.0f} s\n")
    print(f"{'task':28s} {'runs':>5s} {'finished':>8s} {'failed':>6s} {'episodes':>8s} {'steps':>6s} "
          f"{'first trim':>10s}  ends")
    for task, task_runs in sorted(by_task.items()):
        episodes = [e for run in task_runs for e in run.episodes.all()]
        trims = [e.first_trimmed_step for e in episodes if e.first_trimmed_step is not None]
        ends = collections.Counter(e.end_reason.split(" at step")[0] for e in episodes)
        steps = Step.objects.filter(episode__run__in=task_runs).count()
        print(f"{task:28s} {len(task_runs):5d} {sum(r.status == Run.FINISHED for r in task_runs):8d} "
              f"{sum(r.status == Run.FAILED for r in task_runs):6d} {len(episodes):8d} {steps:6d} "
              f"{(min(trims) if trims else '—')!s:>10s}  {dict(ends)}")
    latencies = sorted(Step.objects.filter(episode__run__submission_id=submission_id, latency_ms__isnull=False)
                       .values_list("latency_ms", flat=True))
    if latencies:
        p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
        print(f"\nmodel latency: median {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms over {len(latencies)} calls")
    rowless = [r.pk for r in runs if not any(row.run.pk == r.pk for row in leaderboard_rows(r.task))]
    print(f"leaderboard rows: {len(runs) - len(rowless)} of {len(runs)} runs" + (f" (missing: {rowless})" if rowless else ""))


if __name__ == "__main__":
    main()
