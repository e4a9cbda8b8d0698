"""The write side never reads back from the read side, and arena/ has no import cycle.

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
