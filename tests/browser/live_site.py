"""The pieces of the browser tests' site (tests/browser/conftest.py) that live for a whole
test process, and how a test module gets that site back as new.

Starting a site costs a Django start per process (Daphne, the worker) and Chromium's; a
test's `site.django(...)` cost another Django start per call (`manage.py shell -c`), and
a test waiting on the database asked every second. Measured on the shared 2-core machine:
about 2.8 s of CPU for Daphne's start, 3.5 s for a `manage.py` command, 1.3 s for
Playwright and Chromium. So one Daphne, one Django shell and one Chromium serve every
module of a test process, and each module gets:

* the site's database and queue as `migrate` left them (SQLite's backup API copies the
  migrated database over the live one, under the connections Daphne holds open);
* an empty media folder;
* a new page generation, waited for until Daphne re-reads it (config.pagecache keeps
  rendered pages per generation), so no page of an earlier module is served again;
* its own worker (`manage.py arena_worker`), started after the reset (the module begins
  once it plays) and stopped at the module's end: the only process that plays, so
  nothing of an earlier module's episodes can go on into the next.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# config.settings' default: a web process re-reads the generation at most this often.
PAGE_CACHE_CHECK_SECONDS = 0.5

# Run by a long-lived `python -c` with the site's settings: Django starts once, then each
# request on stdin (one JSON line: code) is run as `manage.py shell -c` would run it, and
# one JSON line answers (what it printed, or the traceback).
_SHELL = r"""
import contextlib, io, json, sys, traceback
import django
django.setup()
from django.db import connections
requests, answers = sys.stdin, sys.__stdout__
for line in requests:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(json.loads(line), {"__name__": "__main__"})
        answer = {"printed": printed.getvalue()}
    except BaseException:
        answer = {"printed": printed.getvalue(), "error": traceback.format_exc()}
    finally:
        # As a one-off shell would: no connection (nor its snapshot) outlives a request.
        connections.close_all()
    answers.write(json.dumps(answer) + "\n")
    answers.flush()
"""


class DjangoShell:
    """One Django process running code in the site's settings, its database and queue."""

    def __init__(self, env: dict):
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SHELL], cwd=ROOT, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )

    def run(self, code: str) -> str:
        """What `code` printed; an error in it is raised here, with its traceback."""
        self.process.stdin.write(json.dumps(code) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the site's Django shell exited (code {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"site.django failed:\n{answer['error']}\nprinted:\n{answer['printed']}")
        return answer["printed"]

    def stop(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def reset_data(var: Path, migrated: Path) -> None:
    """`var` (the live site's folder) back to `migrated`'s data: each database `migrate`
    wrote is copied over the live one, a database made later (the queue) is emptied, and
    the media folder too."""
    for live in sorted(var.glob("*.sqlite3")):
        with sqlite3.connect(live, timeout=60) as target:
            source_path = migrated / live.name
            if source_path.exists():
                source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
                try:
                    source.backup(target)
                finally:
                    source.close()
            else:
                tables = [row[0] for row in target.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
                for table in tables:
                    target.execute(f'DELETE FROM "{table}"')
        target.close()
    media = var / "media"
    if media.exists():
        shutil.rmtree(media)


def new_page_generation(var: Path) -> None:
    """Retire every page Daphne rendered (arena.page_generation, file store) and wait until
    it has seen the new generation: it re-reads the file at its next request after
    PAGE_CACHE_CHECK_SECONDS."""
    path = var / "page-generation"
    beside = path.with_name(".page-generation-reset")
    beside.write_text(secrets.token_hex(8))
    os.replace(beside, path)
    time.sleep(PAGE_CACHE_CHECK_SECONDS)


def start_worker(env: dict, log: Path, patience: float) -> subprocess.Popen:
    """`manage.py arena_worker`, once it is playing: it says so on its output (before
    this waited, a test on a loaded machine could queue a run and time out while the
    worker was still importing Django). Its output goes to `log`, not to a pipe nobody
    reads: a process writing more than a pipe holds would block."""
    start = log.stat().st_size if log.exists() else 0
    with log.open("ab") as output:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "arena_worker", "--concurrency", "8"],
            # Unbuffered: the line it writes on starting reaches the file at once.
            cwd=ROOT, env={**env, "PYTHONUNBUFFERED": "1"}, stdout=output, stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + patience
    while b"playing up to" not in log.read_bytes()[start:]:
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            worker.wait()
            raise RuntimeError("the worker did not start: " + log.read_text(errors="replace")[start:][-2000:])
        time.sleep(0.1)
    return worker
