"""Real worker processes on a throw-away arena, for tests and benchmarks that kill
workers: embedded (SQLite database and queue file) or, given the URLs of running
servers, scaled (PostgreSQL database, Redis queue).

`python -m tests.support.worker_process --die-on-taking N [arena_worker options]` runs
the real `arena_worker` command, except that the process SIGKILLs itself right after
taking its N-th message off the queue, before claiming the episode: the moment a dying
worker takes a message with it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def embedded_arena(settings, monkeypatch, **arena_settings: str) -> "Arena":
    """A throw-away embedded arena for a test's real worker processes: what the test
    queues goes to the arena's queue file, and the arena starts from a copy of the
    tests' database (`start_from_here`). The caller closes it."""
    from django.db import connection

    from arena import queue

    arena = Arena(**arena_settings)
    settings.ARENA_QUEUE, settings.ARENA_QUEUE_PATH = "sqlite", arena.queue_path
    file_queue = queue._make_huey()
    monkeypatch.setattr(queue, "huey", file_queue)
    monkeypatch.setattr(queue, "play_episode", file_queue.task(name="play_episode")(queue.play_episode.func))
    arena.start_from_here = lambda: arena.copy_database(connection.settings_dict["NAME"])
    return arena


class Arena:
    """A throw-away arena in a temporary directory, driven through manage.py; on the
    given PostgreSQL database and Redis server when their URLs are given."""

    def __init__(self, *, database_url: str | None = None, redis_url: str | None = None, **settings: str):
        self.var = tempfile.mkdtemp(prefix="arena-workers-")
        self.env = {
            key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL", "ARENA_QUEUE")
        }
        self.env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            ARENA_VAR_DIR=self.var,
            LOG_LEVEL="ERROR",
            **settings,
        )
        if database_url:
            self.env["DATABASE_URL"] = database_url
        if redis_url:
            self.env.update(REDIS_URL=redis_url, ARENA_QUEUE="redis")
        self.queue_path = str(Path(self.var) / "queue.sqlite3")
        self.processes: list[subprocess.Popen] = []

    def migrate(self) -> None:
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=self.env, check=True)

    def copy_database(self, migrated: str) -> None:
        """Start from a copy of an already migrated SQLite database (e.g. the tests'
        own), much faster than migrating. Embedded arenas only."""
        with sqlite3.connect(migrated) as source, sqlite3.connect(Path(self.var) / "arena.sqlite3") as copy:
            source.backup(copy)
        # The tests' database was migrated under the tests' settings, whose cache is in
        # memory, so it lacks the cache table `migrate` makes for the embedded mode; the
        # arena's processes count their limits (open websockets among them) in that table.
        subprocess.run([sys.executable, "manage.py", "createcachetable"], cwd=ROOT, env=self.env, check=True,
                       capture_output=True)

    def shell(self, code: str) -> str:
        """Run Python in the arena's Django (manage.py shell); its standard output."""
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=ROOT, env=self.env, check=True, capture_output=True, text=True,
        )
        return done.stdout

    def start_worker(self, *options: str, die_on_taking: int | None = None) -> subprocess.Popen:
        if die_on_taking is None:
            command = [sys.executable, "manage.py", "arena_worker", *options]
        else:
            command = [sys.executable, "-m", "tests.support.worker_process", "--die-on-taking", str(die_on_taking), *options]
        log = Path(self.var) / f"worker-{len(self.processes)}.log"
        with open(log, "wb") as stderr:
            process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=stderr)
        process.log = log
        self.processes.append(process)
        return process

    def query(self, sql: str, params=()) -> list[tuple]:
        """Read the arena's database directly (no Django start-up). Embedded arenas only."""
        with sqlite3.connect(Path(self.var) / "arena.sqlite3", timeout=30) as connection:
            return connection.execute(sql, params).fetchall()

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)
        shutil.rmtree(self.var, ignore_errors=True)


def _die_on_taking(count: int) -> None:
    from arena import queue

    take = queue.dequeue_episode
    taken = 0

    def take_then_die():
        nonlocal taken
        episode_id = take()
        if episode_id is not None:
            taken += 1
            if taken == count:
                os.kill(os.getpid(), signal.SIGKILL)
        return episode_id

    queue.dequeue_episode = take_then_die


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--die-on-taking", type=int, required=True)
    args, worker_options = parser.parse_known_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
    _die_on_taking(args.die_on_taking)
    call_command("arena_worker", *worker_options)


if __name__ == "__main__":
    main()
