#!/usr/bin/env python
"""Play the built-in baselines and write their figures for the arena to ship
(arena.services.baseline_figures), so that a fresh arena shows them at once.

The runs are played by the arena's own worker and runner on a throw-away database and
an in-memory queue, exactly as a live arena plays them; each finished run's aggregates
go into fixtures/baseline_figures/<suite>.json (entries already there for other runs are
kept, a run played again replaces its entry), with the engine versions and this
command. Runs not finished within --minutes are left out (they are then played by the
arena itself, after every user's episode).

    nice .venv/bin/python scripts/baseline_figures.py --suite lmact --suite infogather
    nice .venv/bin/python scripts/baseline_figures.py --task balrog/babyai-goto --minutes 20
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The simulators and libraries whose versions make the figures what they are.
ENGINES = (
    "ale-py", "chess", "crafter", "dm-control", "gymnasium", "lark", "minigrid", "minihack", "mujoco", "nle",
    "numpy", "pillow", "textworld",
)


def engine_versions() -> dict[str, str]:
    versions = {}
    for name in ENGINES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    versions["python"] = ".".join(map(str, sys.version_info[:3]))
    return versions


def arena_commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", default=[], help="every task of this suite (repeatable)")
    parser.add_argument("--task", action="append", default=[], help="this task id (repeatable)")
    parser.add_argument("--policy", action="append", default=[], help="only this baseline policy (repeatable)")
    parser.add_argument("--episodes", type=int, default=None, help="episodes per run (default: the arena's)")
    parser.add_argument(
        "--at-most", type=int, default=None,
        help="episodes per run at most (the arena's count where it is smaller), for the slow suites",
    )
    parser.add_argument("--concurrency", type=int, default=8, help="episodes played at once")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop playing after this long")
    parser.add_argument("--out", type=Path, default=ROOT / "fixtures" / "baseline_figures")
    args = parser.parse_args()
    if not args.suite and not args.task:
        parser.error("name at least one --suite or --task")

    scratch = tempfile.mkdtemp(prefix="baseline-figures-")
    os.environ.update(ARENA_VAR_DIR=scratch, ARENA_QUEUE="memory", DJANGO_SETTINGS_MODULE="config.settings")
    for name in ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    from arena.services.baseline_figures import figures_of
    from arena.models import Run
    from envs.registry import all_tasks

    if args.at_most:
        from django.conf import settings

        settings.ARENA_BASELINE_EPISODES = args.at_most  # seed_baselines takes the smaller of it and the task's
    tasks = sorted({t for t, cls in all_tasks().items() if cls.suite in args.suite} | set(args.task))
    call_command("migrate", verbosity=0)
    command = "scripts/baseline_figures.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    deadline = time.monotonic() + args.minutes * 60
    args.out.mkdir(parents=True, exist_ok=True)
    # One task at a time, its figures written as soon as its runs are played: the
    # queue's turns would otherwise spread the time over every run and finish none.
    for task_id in tasks:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            print(f"{task_id}: not played, out of time (left to the arena)")
            continue
        seed = {"task": [task_id], "live": True}
        if args.episodes:
            seed["episodes"] = args.episodes
        call_command("seed_baselines", **seed)
        if args.policy:
            # Their queued messages then find no episode to claim and are dropped.
            Run.objects.filter(task=task_id).exclude(submission__policy__in=args.policy).delete()
        started = time.monotonic()
        asyncio.run(play(args.concurrency, remaining))
        runs = Run.objects.filter(task=task_id).select_related("submission")
        # A run with a failed episode is left to the arena: on a loaded machine an
        # engine's time limit can fail an episode that would not fail on another.
        finished = [figures_of(run) for run in runs if run.status == Run.FINISHED and not run.episodes_failed]
        if finished:
            write_suite(args.out / f"{all_tasks()[task_id].suite}.json", finished, command)
        print(f"{task_id}: {len(finished)} of {runs.count()} runs played in {time.monotonic() - started:.0f} s", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)


async def play(concurrency: int, seconds: float) -> None:
    """Play the queued episodes, for at most `seconds`."""
    from arena.play.worker import Worker

    worker = Worker(concurrency=concurrency, name="baseline-figures")
    serving = asyncio.create_task(worker.serve(until_idle=True))
    try:
        await asyncio.wait_for(asyncio.shield(serving), timeout=seconds)
    except asyncio.TimeoutError:
        worker.stop()
        await serving


def entry_id(entry: dict) -> str:
    return json.dumps([entry["task"], entry["policy"], entry["format"], entry["options"], entry["episodes"]], sort_keys=True)


def write_suite(path: Path, entries: list[dict], command: str) -> None:
    """Merge `entries` into the suite's file: one provenance per run, since runs of one
    file may come from different commands."""
    document = json.loads(path.read_text()) if path.exists() else {"provenance": {}, "runs": []}
    provenance = {
        "command": command,
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "arena_commit": arena_commit(),
        "engines": engine_versions(),
    }
    runs = {entry_id(run): run for run in document["runs"]}
    for entry in entries:
        runs[entry_id(entry)] = {**entry, "made_by": provenance}
    document = {
        "provenance": {
            "what": "baseline figures played by the arena's own runner (scripts/baseline_figures.py); "
            "each run's made_by says with which command, commit and engines",
        },
        "runs": sorted(runs.values(), key=lambda r: entry_id(r)),
    }
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"{path.name}: {len(entries)} runs written, {len(runs)} in the file")


if __name__ == "__main__":
    main()
