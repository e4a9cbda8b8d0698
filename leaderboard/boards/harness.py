"""How the leaderboards show the harness a figure came from (envs.harness): per run its
version and whether it is the suite's current one ("played under BALROG suite v3;
current v4"), per overall row the runs behind its figures that are not current."""

from __future__ import annotations

import dataclasses
import functools
from functools import lru_cache

from arena.selectors import same_runs_key
from arena.models import Run
from envs import harness
from envs.registry import get_suite, suite_of


def run_standing(run: Run) -> harness.Standing | None:
    """The run's harness against its suite's current one (None for a task no longer in
    the catalogue)."""
    return standing_of(run.task, run.harness_version)


def standing_of(task: str, stored: str) -> harness.Standing | None:
    """`run_standing` of a run of `task` that stored the harness version `stored`."""
    try:
        suite = suite_of(task)
    except KeyError:
        return None
    return _standing(stored, suite.id, harness.current_version(suite))


@lru_cache(maxsize=1024)
def _standing(stored: str, suite_id: str, current: str) -> harness.Standing:
    # A board asks for the standing of each run behind it several times (the row's
    # mark, the superseded runs, the downloads); the answer depends only on these
    # three strings, and a Standing is immutable.
    return harness.standing(stored, get_suite(suite_id))


def run_json(run: Run) -> dict:
    """The API's harness fields of a run."""
    standing = run_standing(run)
    return {
        "harness_version": standing.played.value if standing else run.harness_version,
        "harness_current": standing.current.value if standing else None,
        "harness_is_current": standing.is_current if standing else None,
        "harness_note": standing.note if standing else "",
    }


@dataclasses.dataclass(frozen=True)
class RowHarness:
    """The harnesses behind one leaderboard row's figures."""

    runs: int
    # Runs played here under another version than their suite's current one.
    older: list[tuple[Run, harness.Standing]]
    # Runs read from another harness's logs (labelled "imported" where they are shown).
    imported: int = 0

    @functools.cached_property
    def notes(self) -> list[str]:
        """Each distinct note of the older runs, with how many runs it covers (worked
        out once: a row's mark and summary each ask for it)."""
        counts: dict[str, int] = {}
        for _, standing in self.older:
            note = standing.note
            counts[note] = counts.get(note, 0) + 1
        return [f"{count} run{'s' if count != 1 else ''} {note}" for note, count in counts.items()]

    @property
    def summary(self) -> str:
        """One line for the CSV: all current, or which runs are not and why."""
        parts = []
        if self.older:
            parts.append(f"{len(self.older)} of {self.runs} runs not under the current harness: " + "; ".join(self.notes))
        if self.imported:
            parts.append(f"{self.imported} of {self.runs} runs imported from another harness's logs")
        return " · ".join(parts) or "all runs under the current harness"


def row_harness(runs, standings: dict | None = None) -> RowHarness:
    """The harness summary of the runs behind a row (each counted once); `standings`
    the standings looked up so far, by task and stored version, when a board's rows
    share them (each row has a run of most tasks)."""
    unique = {run.id: run for run in runs}  # Run's pk; `pk` costs a lookup of its name per run
    older, imported = [], 0
    for run in unique.values():
        if standings is None:
            standing = run_standing(run)
        else:
            key = (run.task, run.harness_version)
            standing = standings[key] if key in standings else standings.setdefault(key, standing_of(*key))
        if standing is None or standing.is_current:
            continue
        if standing.played.imported:
            imported += 1
        else:
            older.append((run, standing))
    return RowHarness(len(unique), older, imported)


def runs_behind(row) -> list[Run]:
    """The runs behind a leaderboard row: an overall or suite row's cells' runs
    (leaderboard.overall, balrog, textatari), its own runs (adventure) or its run
    (infogather, a task's rows)."""
    runs = [run for cell in getattr(row, "cells", ()) for run in getattr(cell, "runs", ())]
    runs += list(getattr(row, "runs", ()))
    if getattr(row, "run", None) is not None:
        runs.append(row.run)
    return runs


def overall_row_harness(row, standings: dict | None = None) -> RowHarness:
    """`row_harness` of any leaderboard row (`runs_behind`)."""
    return row_harness(runs_behind(row), standings)


def without_superseded(runs) -> list[Run]:
    """`runs` less those played again under their suite's current harness: where a
    submission has a current run of the same task, settings and seeds with finished
    episodes, its older runs leave the pooled and best-run figures (their own rows on
    the task leaderboards stay, marked)."""
    runs = list(runs)
    # A board's thousand runs hold a few (task, stored version) pairs: each looked up once.
    known: dict[tuple[str, str], harness.Standing | None] = {}
    standings = []
    for run in runs:
        key = (run.task, run.harness_version)
        if key not in known:
            known[key] = standing_of(*key)
        standings.append(known[key])
    old = {run.submission_id for run, standing in zip(runs, standings) if standing is not None and not standing.is_current}
    if not old:
        return runs  # nothing older than its suite's harness: nothing superseded
    # Only the submissions with older runs can have one superseded (a key is a JSON dump).
    replaced = set()
    for run, standing in zip(runs, standings):
        if run.submission_id in old and standing is not None and standing.is_current and run.episodes_done:
            replaced.add((run.submission_id, same_runs_key(run)))
    if not replaced:
        return runs
    kept = []
    for run, standing in zip(runs, standings):
        is_old = standing is not None and not standing.is_current
        if is_old and (run.submission_id, same_runs_key(run)) in replaced:
            continue
        kept.append(run)
    return kept
