"""One web process of `manage.py arena_web`: Daphne's own command line and server, with
the cyclic garbage collector set for serving once the application is loaded.

Why: under load most of a Daphne process's objects are the requests of the last second or
two (Daphne keeps each finished request in its connection table until its once-a-second
sweep), so they survive the young collections, reach the oldest generation and make
every full collection walk them all, with Django's and every module's objects besides.
With CPython's default thresholds, 200 clients on cached pages made a process run 5-10
full collections in 8 s, each pausing every request in it for 100-500 ms, and the
collector took over a quarter of the process's CPU (bench/http_load.py, the rows with and
without ARENA_WEB_GC_TUNED). So, before the first request (after the modules every page
imports are loaded, `load_what_pages_read`):

- everything loaded so far (Django, the project's modules, the page cache) is moved out
  of the collector's sight with `gc.freeze()`: it lives as long as the process;
- a young collection waits for 20,000 new objects instead of 700, so it runs a few times
  a second under load rather than hundreds of times, each a pause of a few milliseconds;
- a full collection comes after 100 middle collections instead of 10 (minutes apart
  under load). Objects are still freed as soon as nothing refers to them and cycles of
  garbage by the next young or middle collection, so only cycles that outlived a middle
  collection wait longer. The middle ratio stays CPython's 10: at 50, garbage left by
  Django's renderings (pages not cached) waited long enough in the middle generation to
  cost a process about 80 MB more than the defaults, against about 30 MB at 10.
"""

from __future__ import annotations

import gc

from daphne.cli import CommandLineInterface
from daphne.server import Server
from django.conf import settings

from arena.runtime.memory import keep_freed_memory

THRESHOLDS = (20_000, 10, 100)


def load_what_pages_read() -> None:
    """Import what the pages import on first use: the URL patterns (every view's module)
    and the task catalogue (every game's class, with minihack, nle, chess and their
    packages). Left to the first request, a fresh process's first page took about 2 s of
    CPU for them (BALROG's page: 1.9 s against 0.2 s for the same page next; 13 s of
    wall time on a loaded 2-core machine, issue #40); before serving, and frozen with the
    rest of start-up, they cost no visitor anything."""
    from django.urls import get_resolver

    from envs.registry import all_suites

    get_resolver().url_patterns  # noqa: B018 (imports the URL configuration's modules)
    all_suites()


def prepare_for_serving() -> None:
    """Called once the application is imported, before the first request."""
    load_what_pages_read()
    if settings.ARENA_WEB_KEEP_FREED_MEMORY:
        # A page's large strings reuse the memory of the page before instead of being
        # mapped afresh by the kernel (arena.runtime.memory).
        keep_freed_memory()
    if not settings.ARENA_WEB_GC_TUNED:
        return
    gc.collect()  # what start-up left as garbage is not worth keeping frozen
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


class WebServer(Server):
    def run(self):
        prepare_for_serving()
        super().run()


class WebProcessCommandLine(CommandLineInterface):
    server_class = WebServer


if __name__ == "__main__":
    WebProcessCommandLine.entrypoint()
