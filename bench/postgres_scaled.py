"""The scaled mode on PostgreSQL + Redis: worker processes playing thousands of quick
baseline episodes, counting deadlocks and failures.

Starts its own PostgreSQL (Debian's server, a fresh cluster, fsync on unless --fast)
and Redis on loopback ports, migrates, queues the baselines of LMAct's grid world (four
formats, one with images) and infogather's single-feature task (eight sizes), then runs
the workers as separate processes until the queue is empty. Prints the episodes played
and their outcome, the deadlocks the server detected and the transactions the workers
ran again (arena.runtime.dbretry), and episodes and steps per second.

    .venv/bin/python bench/postgres_scaled.py [--episodes-per-run 150] [--workers 2]
        [--concurrency 32] [--heartbeat-seconds 10] [--fast]

32 runs: --episodes-per-run 150 queues 4,800 episodes. --heartbeat-seconds below the
product's 10 s makes the workers' heartbeat meet their step writers far more often.
"""

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.postgres import PostgresServer  # noqa: E402
from tests.support.redis_server import RedisServer  # noqa: E402

TASKS = ("lmact/gridworld", "infogather/single-feature")

WORKER = """
import django
django.setup()
from django.core.management import call_command
from arena.play import worker
worker.HEARTBEAT_SECONDS = {heartbeat}
call_command("arena_worker", "--concurrency", "{concurrency}", "--until-idle")
"""

FIGURES = """
import django, json
django.setup()
from django.db.models import Count, Max, Min
from arena.models import Episode, Step
span = Episode.objects.aggregate(first=Min("started_at"), last=Max("finished_at"))
print(json.dumps({
    "statuses": dict(Episode.objects.values_list("status").annotate(n=Count("id")).order_by()),
    "errors": sorted(set(Episode.objects.exclude(error="").values_list("error", flat=True)))[:5],
    "steps": Step.objects.count(),
    "played_seconds": (span["last"] - span["first"]).total_seconds(),
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes-per-run", type=int, default=150)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32, help="episodes in flight per worker")
    parser.add_argument("--heartbeat-seconds", type=float, default=10.0)
    parser.add_argument("--fast", action="store_true", help="PostgreSQL without fsync (as the tests run it)")
    args = parser.parse_args()

    var_dir = tempfile.mkdtemp(prefix="arena-bench-postgres-")
    with PostgresServer.start(durable=not args.fast) as postgres, RedisServer.start() as redis:
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": postgres.url,
            "REDIS_URL": redis.url,
            "ARENA_QUEUE": "redis",
            "ARENA_VAR_DIR": var_dir,
            "LOG_LEVEL": "WARNING",
        }

        def python(*arguments: str) -> str:
            result = subprocess.run(
                [sys.executable, *arguments], cwd=ROOT, env=environment, capture_output=True, text=True, check=True
            )
            return result.stdout

        python("manage.py", "migrate", "-v0")
        python("manage.py", "seed_baselines", "--episodes", str(args.episodes_per_run),
               *(argument for task in TASKS for argument in ("--task", task)))
        worker_script = WORKER.format(heartbeat=args.heartbeat_seconds, concurrency=args.concurrency)
        logs = [Path(var_dir) / f"worker-{n}.log" for n in range(args.workers)]
        started = time.monotonic()
        with contextlib.ExitStack() as open_logs:
            workers = [
                subprocess.Popen([sys.executable, "-c", worker_script], cwd=ROOT, env=environment,
                                 stdout=subprocess.DEVNULL, stderr=open_logs.enter_context(log.open("w")))
                for log in logs
            ]
            for worker in workers:
                worker.wait()
        wall = time.monotonic() - started
        figures = json.loads(python("-c", FIGURES).strip().splitlines()[-1])
        worker_logs = "\n".join(log.read_text() for log in logs)
        deadlocks = postgres.deadlocks_detected()
    shutil.rmtree(var_dir, ignore_errors=True)

    statuses = figures["statuses"]
    episodes = sum(statuses.values())
    finished = statuses.get("finished", 0)
    played = figures["played_seconds"]
    print(f"PostgreSQL ({'fsync off' if args.fast else 'fsync on'}) + Redis, {args.workers} worker processes, "
          f"{args.concurrency} episodes in flight each, heartbeat every {args.heartbeat_seconds:g} s")
    print(f"episodes           : {episodes} queued, {finished} finished, "
          f"{episodes - finished} not ({', '.join(f'{k}: {v}' for k, v in statuses.items() if k != 'finished') or 'none'})")
    print(f"steps stored       : {figures['steps']}")
    print(f"deadlocks detected : {deadlocks} (by the server)")
    print(f"transactions rerun : {worker_logs.count('running it again')} (arena.runtime.dbretry)")
    print(f"workers' exit codes: {[worker.returncode for worker in workers]}")
    print(f"played in          : {played:.1f} s from the first claim to the last finish "
          f"({wall:.1f} s with the workers' start-up)")
    print(f"rate               : {finished / played:.1f} episodes/s, {figures['steps'] / played:.0f} steps/s")
    if figures["errors"]:
        print("errors             :", *figures["errors"], sep="\n  ")


if __name__ == "__main__":
    main()
