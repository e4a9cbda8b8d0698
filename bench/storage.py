"""Bytes per stored step, with each text stored once (arena.storage.steptext) and as steps were
stored before (every text repeated), on the same rows.

A real worker plays text tasks of five suites against a local OpenAI-compatible server
that answers with a real model's completions: those of the BALROG leaderboard submission
the repository ships (Llama-3.2-1B-Instruct, naive agent; fixtures/balrog), in order,
the TextWorld ones for TextWorld, the BabyAI ones for BabyAI, all of them for the other
tasks (AdventureGame's replies get its "> " command prefix). The steps are stored the
lean way; then the migration's backward function rewrites every row in the old layout
and its forward function back. After each, the database is compacted (SQLite: VACUUM;
PostgreSQL: VACUUM FULL) and measured: the SQLite file's growth over the empty database,
pg_total_relation_size of the step table (its TOAST and indexes included).

Then TextAtari at its long setting (textatari/pong, 10,000-step limit, random baseline:
the text part only, no prompt or model call; a lost game ends an episode in a few hundred
steps, so episodes are played until 10,000 steps are stored) is measured alone.

    .venv/bin/python bench/storage.py [--scale 1.0] [--atari-steps 10000] [--postgres]
"""

import argparse
import asyncio
import csv
import glob
import importlib
import io
import itertools
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_BYTES_PER_STEP = 2_000
SUBMISSION = ROOT / "fixtures" / "balrog" / "balrog_submission_llama-3.2-1b.tgz"
# task, format, episodes (at --scale 1), options, which completions it gets
TASKS = (
    ("balrog/textworld-coin-collector", "text", 8, {}, "textworld"),
    ("balrog/textworld-treasure-hunter", "text", 4, {}, "textworld"),
    ("balrog/babyai-goto", "text", 8, {}, "babyai"),
    ("lmact/gridworld", "ascii", 12, {}, "all"),
    ("infogather/single-feature", "text", 16, {}, "all"),
    ("adventure/basic-easy", "text", 8, {}, "adventure"),
    ("textatari/pong", "text", 8, {"max_steps": 100}, "all"),
)


def real_completions() -> dict[str, list[str]]:
    """The submission's completions (its step CSVs' Action column), by environment."""
    by_environment: dict[str, list[str]] = {"textworld": [], "babyai": [], "all": []}
    with tarfile.open(SUBMISSION) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if not member.name.endswith(".csv"):
                continue
            rows = csv.DictReader(io.TextIOWrapper(archive.extractfile(member), encoding="utf-8"))
            actions = [row["Action"] for row in rows if row.get("Action")]
            environment = member.name.split("/")[2]
            by_environment.setdefault(environment, []).extend(actions)
            by_environment["all"].extend(actions)
    by_environment["adventure"] = ["> " + action for action in by_environment["textworld"]]
    return by_environment


def setup_django(tmp: str, database_url: str | None) -> None:
    os.environ["ARENA_VAR_DIR"] = tmp
    os.environ["ARENA_QUEUE"] = "memory"
    os.environ["ARENA_ALLOW_LOOPBACK"] = "1"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ["SQLITE_PATH"] = os.path.join(tmp, "bench.sqlite3")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def stored_bytes() -> int:
    """The step data's size after compaction (see the module docstring)."""
    from django.db import connection

    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM")
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return os.path.getsize(connection.settings_dict["NAME"])
    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL arena_step")
        cursor.execute("SELECT pg_total_relation_size('arena_step')")
        return cursor.fetchone()[0]


def migration():
    """The migration that stores each text once (found by name: its number may change)."""
    (path,) = glob.glob(str(ROOT / "arena" / "migrations" / "*_step_texts_stored_once.py"))
    return importlib.import_module(f"arena.migrations.{Path(path).stem}")


def play(tasks, completions: dict[str, list[str]], scale: float) -> dict[str, tuple[int, int]]:
    """Play every task's episodes; (run id, steps stored) by task."""
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission, submission_create
    from arena.models import Step
    from arena.play.worker import Worker
    from tests.support.fake_openai import FakeOpenAIServer, Fault

    played: dict[str, tuple[int, int]] = {}
    with FakeOpenAIServer() as server:
        fields = {"name": "Llama-3.2-1B replies", "base_url": server.base_url, "model": "llama", "max_tokens": 64,
                  "num_demonstrations": 0, "show_legal_actions": True, "chain_of_thought": False}
        submission = submission_create(owner=None, fields=fields, api_key="sk-bench", runs=[])
        for task, fmt, episodes, options, source in tasks:
            count = max(1, round(episodes * scale))
            spec = RunSpec(task=task, format=fmt, num_episodes=count, options=options)
            run = run_create(submission, spec)
            server.clear()
            replies = itertools.islice(itertools.cycle(completions[source]), 200 * count)
            server.enqueue(*(Fault.reply(text) for text in replies))
            asyncio.run(Worker(concurrency=4, name=f"bench-{task}").serve(until_idle=True))
            played[task] = run.pk, Step.objects.filter(episode__run=run).count()
    return played


def column_bytes_by_run() -> dict[int, int]:
    """Bytes of every text and JSON column of the steps, by run."""
    from django.db import connection

    columns = ("observation_text", "prompt_added", "completion", "reasoning", "parsed_action", "executed_action",
               "end_reason", "error", "calls", "info")
    as_bytes = (lambda c: f"octet_length(CAST({c} AS text))") if connection.vendor == "postgresql" else (
        lambda c: f"length(CAST({c} AS BLOB))")
    total = " + ".join(f"coalesce({as_bytes('s.' + c)}, 0)" for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.run_id, sum({total}) FROM arena_step s JOIN arena_episode e ON e.id = s.episode_id "
            "GROUP BY e.run_id"
        )
        return dict(cursor.fetchall())


def repeated_part_bytes(run_id: int) -> int:
    """Bytes of the stored prompt parts that equal a part of the step before (the legal
    actions and closing instructions most tasks repeat): what storing such parts once
    per episode could still save."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.episode_id, s.prompt_added FROM arena_step s JOIN arena_episode e ON e.id = s.episode_id "
            "WHERE e.run_id = %s ORDER BY s.episode_id, s.id", [run_id]
        )
        rows = cursor.fetchall()
    repeated, previous = 0, (None, [])
    for episode_id, stored in rows:
        parts = json.loads(stored) if isinstance(stored, str) else stored
        if episode_id == previous[0]:
            repeated += sum(len(json.dumps(part).encode()) for part in parts
                            if part in previous[1] and "observation_at" not in part)
        previous = (episode_id, parts)
    return repeated


def measure_text_tasks(scale: float) -> None:
    from django.apps import apps
    from django.db import connection

    empty = stored_bytes()
    started = time.perf_counter()
    played = play(TASKS, real_completions(), scale)
    seconds = time.perf_counter() - started
    steps = sum(count for _, count in played.values())
    lean, lean_columns = stored_bytes() - empty, column_bytes_by_run()
    repeated = {task: repeated_part_bytes(run_id) for task, (run_id, _) in played.items()}
    with connection.schema_editor() as editor:
        migration().store_plainly(apps, editor)
    plain, plain_columns = stored_bytes() - empty, column_bytes_by_run()
    started = time.perf_counter()
    with connection.schema_editor() as editor:
        migration().store_once(apps, editor)
    migrated = time.perf_counter() - started
    again = stored_bytes() - empty
    print(f"{steps:,} steps played in {seconds:.0f} s; text and JSON columns per step, old layout -> lean:")
    for task, (run_id, count) in played.items():
        print(f"  {task:34} {count:6,} steps  {plain_columns[run_id] / count:7.0f} B -> "
              f"{lean_columns[run_id] / count:7.0f} B   (prompt parts repeating the step before: "
              f"{repeated[task] / count:4.0f} B)")
    print(f"database growth per step: old layout {plain / steps:,.0f} B, lean {lean / steps:,.0f} B "
          f"(target <= {TARGET_BYTES_PER_STEP:,} B): {plain / lean:.2f}x smaller; "
          f"migrated back and forth again: {again / steps:,.0f} B (forward migration: "
          f"{steps / migrated:,.0f} rows/s)")


def measure_atari(steps: int) -> None:
    """Episodes of textatari/pong at the `steps` setting until `steps` steps are stored
    (the random baseline loses a game of Pong in a few hundred steps)."""
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission, submission_create
    from arena.models import Step
    from arena.play.worker import Worker

    before = stored_bytes()
    submission = baseline_submission("random", "Random legal actions")
    played, episodes, run_ids, seconds = 0, 0, [], 0.0
    while played < steps:
        spec = RunSpec(task="textatari/pong", format="text", num_episodes=1, first_seed=episodes,
                                options={"max_steps": steps})
        run = run_create(submission, spec)
        started = time.perf_counter()
        asyncio.run(Worker(concurrency=1, name="bench-atari").serve(until_idle=True))
        seconds += time.perf_counter() - started
        played += Step.objects.filter(episode__run=run).count()
        episodes += 1
        run_ids.append(run.pk)
    grown = stored_bytes() - before
    by_run = column_bytes_by_run()
    columns = sum(by_run[run_id] for run_id in run_ids)
    print(f"textatari/pong at the {steps:,}-step setting, random baseline: {played:,} steps in {episodes} episodes, "
          f"{seconds:.0f} s; database growth {grown / played:,.0f} B/step (text and JSON columns "
          f"{columns / played:,.0f} B/step; target <= {TARGET_BYTES_PER_STEP:,} B)")


def on_postgres(args) -> None:
    from tests.support.postgres import PostgresServer

    with PostgresServer.start() as server:
        command = [sys.executable, __file__, "--scale", str(args.scale), "--atari-steps", "0",
                   "--database-url", server.url]
        subprocess.run(command, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="episodes per task, times this")
    parser.add_argument("--atari-steps", type=int, default=10_000, help="the TextAtari episode's step limit; 0: none")
    parser.add_argument("--postgres", action="store_true", help="measure on a throw-away PostgreSQL server too")
    parser.add_argument("--database-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        setup_django(tmp, args.database_url)
        from django.db import connection

        print(f"-- {connection.vendor}")
        measure_text_tasks(args.scale)
        if args.atari_steps:
            measure_atari(args.atari_steps)
    if args.postgres and not args.database_url:
        on_postgres(args)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
