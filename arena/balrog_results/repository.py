"""A whole checkout of BALROG's leaderboard repository (balrog-ai/experiments), or any
folder holding several submissions, imported submission by submission.

A submission's folder is one that holds a summary.json at its top; those found inside
another submission's folder (none in BALROG's layout) belong to it. Each is imported on
its own (`importer.balrog_submission_import`, one transaction each): a malformed one is
refused with its message and the others are imported all the same, and importing the
same checkout again changes nothing.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from arena.balrog_results.files import SUMMARY, MalformedSubmission, read_folder
from arena.balrog_results.importer import ImportResult, balrog_submission_import


@dataclasses.dataclass(frozen=True)
class FolderOutcome:
    folder: Path
    result: ImportResult | None  # None: refused
    refusal: str = ""


def submission_folders(root: Path) -> list[Path]:
    """The submission folders under `root` (itself, when it is one), sorted by path."""
    root = Path(root)
    if (root / SUMMARY).is_file():
        return [root]
    found = sorted(path.parent for path in root.rglob(SUMMARY) if path.is_file() and not path.is_symlink())
    outermost: list[Path] = []
    for folder in found:
        if not any(folder.is_relative_to(kept) for kept in outermost):
            outermost.append(folder)
    return outermost


def import_folders(root: Path) -> list[FolderOutcome]:
    """Every submission folder under `root` imported (or found imported already)."""
    outcomes = []
    for folder in submission_folders(root):
        try:
            outcomes.append(FolderOutcome(folder, balrog_submission_import(read_folder(folder))))
        except MalformedSubmission as exc:
            outcomes.append(FolderOutcome(folder, None, str(exc)))
    return outcomes
