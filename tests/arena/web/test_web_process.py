"""A web process (arena.web.web_process) sets the garbage collector for serving once
Daphne's command line has loaded the application, unless ARENA_WEB_GC_TUNED is off, and
keeps the memory its pages free (arena.runtime.memory), unless ARENA_WEB_KEEP_FREED_MEMORY is off;
the modules every page imports are loaded before the first request.

Each case runs the real command line in a child process (the collector is process-wide),
with Daphne's serving loop replaced by a report of the collector's state at the moment
the server would start serving."""

import json
import platform
import subprocess
import sys

import pytest

from arena.web.launcher import APPLICATION, WEB_PROCESS
from arena.web.web_process import THRESHOLDS
from tests.support.worker_process import ROOT, Arena

STATE_AT_SERVING = f"""
import gc, json, sys
import daphne.server
import {WEB_PROCESS} as web_process

kept = []
keep_freed_memory = web_process.keep_freed_memory
web_process.keep_freed_memory = lambda: kept.append(keep_freed_memory()) or kept[-1]

def report(server):
    print(json.dumps({{
        "thresholds": gc.get_threshold(),
        "frozen": gc.get_freeze_count(),
        "application_loaded": "config.asgi" in sys.modules,
        "kept_freed_memory": kept,
        "catalogue_loaded": getattr(sys.modules.get("envs.registry"), "_loaded", False),
        "views_loaded": "leaderboard.web.views" in sys.modules,
    }}))

daphne.server.Server.run = report
web_process.WebProcessCommandLine().run(["--port", "0", {APPLICATION!r}])
"""


def state_at_serving(**settings: str) -> dict:
    arena = Arena(**settings)
    try:
        done = subprocess.run([sys.executable, "-c", STATE_AT_SERVING], cwd=ROOT, env=arena.env,
                              capture_output=True, text=True, timeout=180)
    finally:
        arena.close()
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def state_by_default() -> dict:
    """The state with no setting given, which three tests read: one child process loading
    the whole application instead of three (about 30 s each on a loaded machine)."""
    return state_at_serving()


@pytest.mark.parametrize("setting", ["1", None])
def test_the_application_is_loaded_then_frozen_and_collections_made_rarer(setting, state_by_default):
    # On by default.
    state = state_by_default if setting is None else state_at_serving(ARENA_WEB_GC_TUNED=setting)
    assert state["application_loaded"]
    assert tuple(state["thresholds"]) == THRESHOLDS
    # Django and the project's modules: tens of thousands of objects at least.
    assert state["frozen"] > 10_000


def test_what_every_page_imports_is_loaded_before_the_first_request(state_by_default):
    # Left to the first request, the task catalogue (minihack, nle, chess…) and the views
    # made a fresh process's first BALROG page take 1.7 s of CPU instead of 0.1 s.
    state = state_by_default
    assert state["catalogue_loaded"] and state["views_loaded"]


def test_with_the_setting_off_the_collector_keeps_cpythons_defaults():
    state = state_at_serving(ARENA_WEB_GC_TUNED="0")
    assert state["application_loaded"]
    assert tuple(state["thresholds"]) == (700, 10, 10)
    assert state["frozen"] == 0


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_the_allocator_keeps_freed_memory_unless_the_setting_is_off(state_by_default):
    assert state_by_default["kept_freed_memory"] == [True]  # on by default
    state = state_at_serving(ARENA_WEB_KEEP_FREED_MEMORY="0")
    assert state["kept_freed_memory"] == [] and tuple(state["thresholds"]) == THRESHOLDS
