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


def test_arena_has_no_import_cycle():
    modules = _arena_modules()
    graph = {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}
    # A package's __init__ is imported with any of its modules; that is not a cycle.
    for name in graph:
        graph[name] = {m for m in graph[name] if not name.startswith(m + ".")}
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
    assert not cycles, "import cycles inside arena/:\n" + "\n".join(cycles)


# arena/'s wings and the wings each may import. The shared modules (models, clients,
# strategies, probe, the queue, …: every other module of arena/) import no wing; the
# management commands are entry points and may import any.
#   web: pages and the write API, which write through services
#   play: the worker and the runner, which write through services and publish live
#   services: every write, which announces what it committed through live
#   live: the frame a viewer gets and its sending
WINGS = ("web", "play", "services", "live")
MAY_IMPORT = {
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
        "arena.images": {"arena.services.steps"},
        "arena.management.commands.arena_worker": {"arena.play.worker"},
        "arena.web.views": {"arena.services.runs", "leaderboard.views"},
    }) == [
        "arena.images (shared) imports arena.services.steps",
        "arena.live.publish (live) imports arena.web",
        "arena.play.runner (play) imports arena.web.views",
        "arena.services.runs (services) imports arena.play.worker",
    ]
