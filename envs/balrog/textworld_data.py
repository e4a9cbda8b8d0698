"""The 75 TextWorld games BALROG evaluates (BALROG App. C), shipped as one archive; which
game an episode plays is `game_for_seed` (BALROG's harness's order, see there).

envs/balrog/data/textworld_games.tgz holds 25 games of each family (treasure hunter,
the cooking game, coin collector), each a game file (`.ulx` or `.z8`) next to its
metadata (`.json`: the objective, the walkthrough, the generation seeds). An
interpreter needs real files, so the archive is unpacked once into the cache
directory (`$ARENA_CACHE_DIR`, else `~/.cache/arena`), under a folder named after the
archive's digest: a new archive gets a new folder and never mixes with an old one.

Several workers may start at once: each unpacks into its own temporary folder beside
the target and renames it into place; rename is atomic, so a reader sees either no
folder or a complete one, and a worker that loses the race drops its copy.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

ARCHIVE = Path(__file__).resolve().parent / "data" / "textworld_games.tgz"
# The archive's top folder; one sub-folder per family, named as BALROG names its tasks.
ARCHIVE_ROOT = "textworld_games"
FAMILIES = ("treasure_hunter", "the_cooking_game", "coin_collector")
GAME_SUFFIXES = (".ulx", ".z8")


def cache_root() -> Path:
    """The project's cache directory: `$ARENA_CACHE_DIR`, else ~/.cache/arena."""
    configured = os.environ.get("ARENA_CACHE_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "arena"


@functools.lru_cache(maxsize=None)
def file_digest(path: Path) -> str:
    """SHA-256 of a file (the archive's version, a game file's identity)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def games_dir() -> Path:
    """The unpacked games (the folder holding one sub-folder per family), unpacking the
    archive first if this cache directory does not have this version yet."""
    target = cache_root() / "balrog" / f"textworld-games-{file_digest(ARCHIVE)[:12]}"
    if not target.is_dir():
        _unpack(target)
    return target / ARCHIVE_ROOT


def _unpack(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        with tarfile.open(ARCHIVE, "r:gz") as archive:
            # The "data" filter refuses absolute paths, links leaving the folder and
            # device files: the archive is data, never trusted with the file system.
            archive.extractall(scratch, filter="data")
        try:
            scratch.rename(target)
        except OSError:
            # Another worker renamed its complete copy into place first.
            if not target.is_dir():
                raise
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)


@dataclasses.dataclass(frozen=True)
class Game:
    """One game of a family: its file and what its metadata says."""

    family: str
    path: Path
    objective: str
    walkthrough: tuple[str, ...]

    @property
    def file_name(self) -> str:
        return self.path.name

    def identity(self) -> str:
        """Family, file name and content digest: equal only for the same game file."""
        return f"textworld/{self.family}/{self.file_name}@{file_digest(self.path)[:16]}"


def family_game_files(family: str) -> list[Path]:
    """The family's game files sorted by name: the order in which BALROG's factory
    numbers them."""
    if family not in FAMILIES:
        raise ValueError(f"unknown TextWorld family {family!r}; choose one of {', '.join(FAMILIES)}")
    folder = games_dir() / family
    return sorted((path for path in folder.iterdir() if path.suffix in GAME_SUFFIXES), key=lambda path: path.name)


@functools.lru_cache(maxsize=None)
def load_game(family: str, path: Path) -> Game:
    metadata = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    return Game(
        family=family,
        path=path,
        objective=metadata["objective"],
        walkthrough=tuple(metadata["metadata"]["walkthrough"]),
    )


def game_for_seed(family: str, seed: int) -> Game:
    """The game a seed plays: game (seed + 1) mod the family's number of games, files
    sorted by name.

    BALROG's released config gives its harness no seed; its TextWorld factory, one per
    worker process, then counts a task's episodes and gives the n-th one game n mod 25,
    so a worker's first episode of a task plays game 1 (checked against BALROG's code and
    against the games its leaderboard submissions played). Seed s is the (s + 1)-th
    episode, so seeds 0-9 play games 1-10: BALROG's harness with one worker. With the
    config's 16 workers the episodes of a task spread over workers and most play the first
    games (a labelled deviation, docs/fidelity/balrog.md)."""
    files = family_game_files(family)
    return load_game(family, files[(seed + 1) % len(files)])
