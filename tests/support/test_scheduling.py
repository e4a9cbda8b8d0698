"""The order `make test`'s processes take the test files in (tests/support/scheduling.py):
longest first, by the last run's times or else the shipped table."""

from pathlib import Path
from types import SimpleNamespace

from tests.support import scheduling
from tests.support.scheduling import (
    CACHE_KEY, FILE_SECONDS, SPREAD_FILES, LongestFirstFileScheduling, pytest_collection_modifyitems,
)

ROOT = Path(__file__).resolve().parents[2]
SPREAD = sorted(SPREAD_FILES)[0]


class Cache(dict):
    def get(self, key, default):
        return super().get(key, default)

    def set(self, key, value):
        self[key] = value


def _worker_config(measured: dict | None = None):
    cache = Cache({CACHE_KEY: measured} if measured is not None else {})
    return SimpleNamespace(workerinput={}, cache=cache)


def _items(*nodeids):
    return [SimpleNamespace(nodeid=nodeid) for nodeid in nodeids]


def test_every_file_of_the_table_exists():
    assert FILE_SECONDS, "the table of slow files is empty"
    assert [file for file in FILE_SECONDS if not (ROOT / file).is_file()] == []


def test_files_go_longest_first_by_the_last_run_and_keep_their_tests_in_order(monkeypatch):
    monkeypatch.setattr(scheduling, "FILE_SECONDS", {"tests/b.py": 50.0})
    items = _items("tests/a.py::one", "tests/a.py::two", "tests/b.py::one", "tests/c.py::one", "tests/c.py::two")
    # The last run measured a.py and c.py; b.py only the table knows; a test of c.py
    # alone outweighs the table's b.py.
    config = _worker_config({"tests/a.py::one": 1.0, "tests/a.py::two": 2.0, "tests/c.py::one": 40.0,
                             "tests/c.py::two": 30.0})
    pytest_collection_modifyitems(config, items)
    assert [item.nodeid for item in items] == [
        "tests/c.py::one", "tests/c.py::two", "tests/b.py::one", "tests/a.py::one", "tests/a.py::two",
    ]


def test_a_fresh_clone_orders_by_the_table_and_a_plain_run_keeps_pytests_order(monkeypatch):
    monkeypatch.setattr(scheduling, "FILE_SECONDS", {"tests/b.py": 50.0, "tests/c.py": 9.0})
    nodeids = ("tests/a.py::one", "tests/c.py::one", "tests/b.py::one")
    items = _items(*nodeids)
    pytest_collection_modifyitems(_worker_config(), items)
    assert [item.nodeid for item in items] == ["tests/b.py::one", "tests/c.py::one", "tests/a.py::one"]

    plain = _items(*nodeids)
    pytest_collection_modifyitems(SimpleNamespace(cache=Cache()), plain)
    assert [item.nodeid for item in plain] == list(nodeids)


def test_the_tests_of_a_spread_file_are_units_of_their_own_ordered_by_their_own_time():
    slow, quick = f"{SPREAD}::test[slow]", f"{SPREAD}::test[quick]"
    items = _items("tests/a.py::one", quick, slow)
    pytest_collection_modifyitems(_worker_config({quick: 1.0, slow: 90.0, "tests/a.py::one": 5.0}), items)
    assert [item.nodeid for item in items] == [slow, "tests/a.py::one", quick]
    assert LongestFirstFileScheduling._split_scope(None, slow) == slow
    assert LongestFirstFileScheduling._split_scope(None, "tests/a.py::one") == "tests/a.py"


def test_on_a_fresh_clone_a_spread_files_tests_share_its_time_from_the_table(monkeypatch):
    monkeypatch.setattr(scheduling, "FILE_SECONDS", {SPREAD: 90.0, "tests/b.py": 40.0, "tests/c.py": 20.0})
    spread = [f"{SPREAD}::test[{n}]" for n in range(3)]
    items = _items("tests/c.py::one", *spread, "tests/b.py::one")
    pytest_collection_modifyitems(_worker_config(), items)
    # 30 s each: after b.py, before c.py, in their own order.
    assert [item.nodeid for item in items] == ["tests/b.py::one", *spread, "tests/c.py::one"]


def test_a_run_keeps_its_tests_times_for_the_next_and_those_of_files_it_did_not_run():
    recorder = scheduling._Recorder()
    for when, seconds in (("setup", 1.5), ("call", 2.0), ("teardown", 0.25)):
        recorder.pytest_runtest_logreport(SimpleNamespace(nodeid="tests/a.py::one", when=when, duration=seconds))
    cache = Cache({CACHE_KEY: {"tests/a.py::one": 9.0, "tests/b.py::one": 4.0}})
    recorder.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace(cache=cache)))
    assert cache[CACHE_KEY] == {"tests/a.py::one": 3.75, "tests/b.py::one": 4.0}
