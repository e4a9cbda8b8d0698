"""A reader finds things by their room: no module grows past 400 lines, and arena/'s top
level keeps at most 12 modules (the rest live in rooms: models/, storage/, endpoints/,
runtime/, the wings; docs/architecture.md)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 400
MAX_ARENA_TOP_LEVEL_MODULES = 12


def _project_modules():
    for folder in ("arena", "envs", "leaderboard", "config", "bench", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), path


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_module_is_longer_than_400_lines():
    too_long = [
        f"{name}: {_lines(path)} lines"
        for name, path in _project_modules()
        if _lines(path) > MAX_LINES
    ]
    assert not too_long, f"split these along their seams (at most {MAX_LINES} lines each):\n" + "\n".join(too_long)


def test_arena_keeps_at_most_12_modules_at_its_top_level():
    top_level = sorted(path.name for path in (ROOT / "arena").glob("*.py"))
    assert len(top_level) <= MAX_ARENA_TOP_LEVEL_MODULES, (
        f"arena/ has {len(top_level)} top-level modules ({', '.join(top_level)}): give the new one a room "
        "(docs/architecture.md)"
    )
