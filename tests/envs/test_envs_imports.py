"""`envs` is plain Python with no import cycle: the catalogue is read from the suites'
spec tables, never filled by games importing the registry; nothing in `envs` imports
Django or the web apps; and reading the catalogue's tables loads no game.

Every import counts, those inside functions too (a deferred import is still a
dependency, only hidden), as in tests/test_import_boundaries.py."""

import subprocess
import sys

from tests.test_import_boundaries import ROOT, _imports, _module_name, import_cycles, import_graph

WEB_SIDE = ("django", "rest_framework", "channels", "arena", "leaderboard", "config")


def _envs_modules():
    return {_module_name(path): path for path in (ROOT / "envs").rglob("*.py")}


def _graph():
    return import_graph(_envs_modules())


def test_envs_has_no_import_cycle():
    cycles = import_cycles(_graph())
    assert not cycles, "import cycles inside envs/:\n" + "\n".join(cycles)


def test_the_cycle_finder_finds_a_cycle():
    # The check above must be able to fail: a registry that imports a game which
    # imports the registry back (how tasks used to register themselves) is a cycle.
    graph = {"envs.registry": {"envs.lmact.chess"}, "envs.lmact.chess": {"envs.registry"}, "envs.core": set()}
    assert import_cycles(graph) == ["envs.lmact.chess → envs.registry → envs.lmact.chess"]


def test_no_game_registers_itself():
    registering = sorted(name for name, path in _envs_modules().items() if "envs.registry" in _imports(path))
    # Only game code that plays other tasks (demonstration pools, TextAtari's reference
    # trajectories) and the harness stamp (which suite a task id belongs to) may look
    # tasks up, and they do so inside functions.
    assert set(registering) <= {"envs.demos", "envs.textatari.scenarios", "envs.harness"}, registering


def test_envs_imports_no_django_and_no_web_app():
    offenders = sorted(
        f"{name} imports {imported}"
        for name, path in _envs_modules().items()
        for imported in _imports(path)
        if imported.split(".")[0] in WEB_SIDE
    )
    assert not offenders, "envs/ must stay plain Python:\n" + "\n".join(offenders)


def test_envs_source_has_no_django_isms():
    offenders = sorted(
        str(path.relative_to(ROOT)) for path in (ROOT / "envs").rglob("*.py") if "do_not_call_in_templates" in path.read_text()
    )
    assert not offenders, offenders


def test_the_spec_tables_load_no_game():
    # Reading every suite's descriptor and spec table imports none of the game
    # modules the rows name (a fresh interpreter, so nothing is loaded already).
    script = (
        "import importlib, sys\n"
        "from envs.registry import SUITE_TABLES\n"
        "rows = [spec for package in SUITE_TABLES for spec in importlib.import_module(package + '.specs').TASKS]\n"
        "games = sorted({spec.entry_point.partition(':')[0] for spec in rows})\n"
        "print(len(rows), [g for g in games if g in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    count, loaded = out.strip().split(" ", 1)
    assert int(count) > 0 and loaded == "[]", out
