"""The write side never reads back from the read side, arena/'s wings depend on each other
in one direction only, and arena/ has no import cycle.

Every import counts, those inside functions too: a deferred import is still a
dependency, only hidden."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            # "from arena import services" imports the module arena.services
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _arena_modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for path in (ROOT / "arena").rglob("*.py")
        if "migrations" not in path.parts
    }


def test_arena_never_imports_leaderboard():
    offenders = sorted(
        f"{name} imports {imported}"
        for name, path in _arena_modules().items()
        for imported in _imports(path)
        if imported == "leaderboard" or imported.startswith("leaderboard.")
    )
    assert not offenders, "arena/ (the write side) must not import leaderboard/:\n" + "\n".join(offenders)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which of `modules` each of them imports."""
    graph = {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}
    # A package's __init__ is imported with any of its modules; that is not a cycle.
    for name in graph:
        graph[name] = {m for m in graph[name] if not name.startswith(m + ".")}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[str]:
    """Each cycle found in `graph`, written "a → b → a"."""
    cycles = []
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" → ".join(trail[trail.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    return cycles


def test_arena_has_no_import_cycle():
    cycles = import_cycles(import_graph(_arena_modules()))
    assert not cycles, "import cycles inside arena/:\n" + "\n".join(cycles)


# arena/'s wings and the wings each may import. The shared modules (models, clients,
# strategies, probe, the queue, …: every other module of arena/) import no wing; the
# management commands are entry points and may import any.
#   web: pages and the write API, which write through services
#   play: the worker and the runner, which write through services and publish live
#   services: every write, which announces what it committed through live
#   live: the frame a viewer gets and its sending
#   matches: the head-to-head room (its games, seats, player, scheduler and its own
#     writes); it calls models through play's client path and announces through live.
#     Its models module is shared (arena.models imports it).
WINGS = ("web", "play", "services", "live", "matches")
MAY_IMPORT = {
    "matches": {"play", "services", "live"},
    "web": {"services"},
    "play": {"services", "live"},
    "services": {"live"},
    "live": set(),
    "shared": set(),
}


def _wing(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "arena" or len(parts) < 2:
        return None
    if parts[1] == "management":
        return "entry point"
    if module == "arena.matches.models" or module.startswith("arena.matches.models."):
        return "shared"
    return parts[1] if parts[1] in WINGS else "shared"


def _against_the_direction(imports_by_module: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{name} ({_wing(name)}) imports {imported}"
        for name, imported_modules in imports_by_module.items()
        if _wing(name) in MAY_IMPORT
        for imported in imported_modules
        if _wing(imported) in WINGS
        and _wing(imported) != _wing(name)
        and _wing(imported) not in MAY_IMPORT[_wing(name)]
    )


def test_the_wings_depend_on_each_other_in_one_direction():
    modules = _arena_modules()
    assert {_wing(name) for name in modules} >= set(WINGS), "a wing of arena/ is missing"
    offenders = _against_the_direction({name: _imports(path) for name, path in modules.items()})
    assert not offenders, "arena/'s wings import against their direction:\n" + "\n".join(offenders)


def test_an_import_against_the_direction_is_named():
    assert _against_the_direction({
        "arena.play.runner": {"arena.web.views", "arena.services.steps", "arena.live.publish"},
        "arena.services.runs": {"arena.play.worker", "arena.queue"},
        "arena.live.publish": {"arena.web", "arena.models"},
        "arena.storage.images": {"arena.services.steps"},
        "arena.management.commands.arena_worker": {"arena.play.worker"},
        "arena.web.views": {"arena.services.runs", "leaderboard.views"},
    }) == [
        "arena.live.publish (live) imports arena.web",
        "arena.play.runner (play) imports arena.web.views",
        "arena.services.runs (services) imports arena.play.worker",
        "arena.storage.images (shared) imports arena.services.steps",
    ]


# What only a query does: a model's manager, the queryset methods no other type in the
# project has, a call of `.count()`, `.all()`, `.first()` or `.last()` without
# arguments (a list's and a string's `count` need one), `.values(…)` with arguments (a
# dict's takes none), `.get()` with keywords only (a dict's takes its key positionally),
# and the ORM's own modules. (`.exists()` is left out: paths have it too.)
QUERY_METHODS = {
    "filter", "exclude", "select_related", "prefetch_related", "annotate", "aggregate", "values_list", "order_by",
    "in_bulk", "only", "defer", "select_for_update", "get_or_create", "update_or_create", "bulk_create",
    "bulk_update", "iterator", "raw", "extra", "using", "distinct",
}
NO_ARGUMENT_QUERY_METHODS = {"count", "all", "first", "last"}
ORM_MODULES = ("django.db", "django.shortcuts.get_object_or_404", "rest_framework.generics.get_object_or_404")
# The live channel's two modules read episodes and steps themselves until its owner
# moves them onto leaderboard.selectors.episodes (episode_exists, episode_status,
# last_step_index, frame_rows, first_step_picture are there for them); the list only shrinks.
NOT_YET_ON_SELECTORS: set[str] = set()


def _orm_uses(path: Path) -> list[str]:
    """Each ORM query `path` makes, as "line: what"."""
    found = []
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "objects":
            found.append(f"{node.lineno}: .objects")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name, positional = node.func.attr, node.args
            if name in QUERY_METHODS:
                found.append(f"{node.lineno}: .{name}(…)")
            elif name in NO_ARGUMENT_QUERY_METHODS and not positional and not node.keywords:
                found.append(f"{node.lineno}: .{name}()")
            elif name == "values" and (positional or node.keywords):
                found.append(f"{node.lineno}: .values(…)")
            elif name == "get" and node.keywords and not positional:
                found.append(f"{node.lineno}: .get(<lookups>)")
    for imported in sorted(_imports(path)):
        if any(imported == module or imported.startswith(module + ".") for module in ORM_MODULES):
            found.append(f"imports {imported}")
    return found


def _leaderboard_modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for path in (ROOT / "leaderboard").rglob("*.py")
        if "migrations" not in path.parts
    }


def test_only_selectors_query_the_orm_on_the_read_side():
    offenders = sorted(
        f"{name}:{use}"
        for name, path in _leaderboard_modules().items()
        if not name.startswith("leaderboard.selectors") and name not in NOT_YET_ON_SELECTORS
        for use in _orm_uses(path)
    )
    assert not offenders, (
        "leaderboard/ reads the database through leaderboard.selectors only; move these queries into a "
        "selector function:\n" + "\n".join(offenders)
    )


def test_the_orm_check_sees_each_kind_of_query(tmp_path):
    module = tmp_path / "sample.py"
    module.write_text(
        "from django.db.models import Q\n"
        "from django.shortcuts import get_object_or_404\n"
        "Run.objects\n"
        "run.episodes.filter(status='finished')\n"
        "episode.steps.count()\n"
        "submission.runs.values('task')\n"
        "Episode.objects_cache.get(pk=1)\n"
        "words.count('a'); names.values(); scores.get('a'); path.exists(); figure.episodes\n"
    )
    assert [use.split(":")[0] for use in _orm_uses(module)] == ["3", "4", "5", "6", "7", "imports django.db.models",
                                                               "imports django.db.models.Q",
                                                               "imports django.shortcuts.get_object_or_404"]


def test_leaderboard_wings_point_one_way():
    """The selectors read and import no other wing; the pages and the read API
    (leaderboard.web) sit on top: no other wing imports them."""
    offenders = []
    for name, path in _leaderboard_modules().items():
        inside = {m for m in _imports(path) if m == "leaderboard" or m.startswith("leaderboard.")}
        if name.startswith("leaderboard.selectors"):
            offenders += [f"{name} imports {m}" for m in inside if not m.startswith("leaderboard.selectors")]
        elif not name.startswith("leaderboard.web"):
            offenders += [f"{name} imports {m}" for m in inside if m.startswith("leaderboard.web")]
    assert not offenders, "leaderboard's wings point one way:\n" + "\n".join(sorted(offenders))
