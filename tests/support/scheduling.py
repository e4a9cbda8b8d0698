"""How `make test` spreads the test files over its processes (pytest -n 2 --dist loadfile),
so that the processes end together (registered by tests/conftest.py's pytest_plugins).

pytest-xdist hands each process one file at a time, whole (its module-wide servers and
sites start once), and by default in the order of their number of tests, most first:
the browser files, the Crafter reference and the web-launcher files — a test or three
each, but up to a minute or more — came last, and one process often still had minutes of
them when the other had finished. Here the files go longest first (longest-processing-
time-first scheduling), the time a file takes known from the last run on this clone
(pytest's cache, .pytest_cache) or, on a fresh clone, from FILE_SECONDS below; the
short files fill the end. A few files of long independent tests (SPREAD_FILES) are
handed out test by test, so that both processes share them.

The order changes when tests run, never what they assert; a plain run (no -n) keeps
pytest's order."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from xdist.scheduler import LoadFileScheduling

# Seconds each file took on its own (pytest --durations=0 per directory, one process,
# on the loaded shared 2-core machine of the measurement, so several times a quiet
# machine's: only their order matters). Files not listed count as quick.
FILE_SECONDS = json.loads((Path(__file__).parent / "file_seconds.json").read_text())

# Files whose tests share no module-wide fixture and take long each: one test is one
# unit of work, so the two processes can split them. (The real-model-server runs share
# only the session's llama-server, which starts in under a second in each process; their
# three long runs took 182, 94 and 67 s of a 343 s file on the loaded machine.)
SPREAD_FILES = frozenset({
    "tests/arena/play/test_resume.py",
    "tests/arena/test_real_model_server_runs.py",
})

CACHE_KEY = "arena/test-seconds"


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class LongestFirstFileScheduling(LoadFileScheduling):
    """pytest-xdist's loadfile, except that SPREAD_FILES go test by test, and the units
    keep the order of the collection (sorted longest first by the processes, below)
    instead of xdist's most-tests-first."""

    def __init__(self, config, log=None):
        # Keep the collection's order: it is already the order the units should go in.
        config.option.loadscopereorder = False
        super().__init__(config, log)

    def _split_scope(self, nodeid: str) -> str:
        file = _file(nodeid)
        return nodeid if file in SPREAD_FILES else file


@pytest.hookimpl(trylast=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "loadfile":
        return LongestFirstFileScheduling(config, log)
    return None


def _seconds_by_unit(config) -> dict[str, float]:
    """The expected seconds of every unit of work: the file's (or a spread test's) time
    in the last run here, else FILE_SECONDS."""
    cache = getattr(config, "cache", None)  # none under -p no:cacheprovider
    measured = cache.get(CACHE_KEY, {}) if cache is not None else {}
    seconds: dict[str, float] = defaultdict(float, FILE_SECONDS)
    by_file: dict[str, float] = defaultdict(float)
    for nodeid, spent in measured.items():
        by_file[_file(nodeid)] += spent
        if _file(nodeid) in SPREAD_FILES:
            seconds[nodeid] = spent
    seconds.update(by_file)
    return seconds


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    # Only in the processes of a distributed run: both collect the same items in the same
    # order (the scheduler checks), since both read the same cache and table.
    if not hasattr(config, "workerinput"):
        return
    seconds = _seconds_by_unit(config)
    # A spread file's test not measured yet (a fresh clone) counts as its share of the
    # file's time: counted as the whole file, its 114 short tests all went first.
    tests_of = Counter(_file(item.nodeid) for item in items if _file(item.nodeid) in SPREAD_FILES)

    def expected(item) -> float:
        file = _file(item.nodeid)
        if file in SPREAD_FILES:
            return seconds[item.nodeid] if item.nodeid in seconds else seconds.get(file, 0.0) / tests_of[file]
        return seconds.get(file, 0.0)

    # Stable: a file's tests keep their order (pytest-django's, then the file's own).
    items.sort(key=lambda item: -expected(item))


class _Recorder:
    """In the controlling (or only) process: every test's seconds (setup, call and teardown), kept
    in pytest's cache for the next run's order."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report):
        self.seconds[report.nodeid] += report.duration

    def pytest_sessionfinish(self, session):
        cache = getattr(session.config, "cache", None)
        if cache is None or not self.seconds:
            return
        # Merged: a run of a few files keeps what earlier runs measured of the others.
        cache.set(CACHE_KEY, {**cache.get(CACHE_KEY, {}), **{k: round(v, 3) for k, v in self.seconds.items()}})


def pytest_configure(config):
    # Not in the processes of a distributed run: their reports reach the controller.
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Recorder(), "arena-test-seconds")
