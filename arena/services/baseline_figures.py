"""Baseline figures shipped with the arena, so that a fresh arena shows every task's
baseline rows at once instead of after hours of play on a small machine.

They are made by `scripts/baseline_figures.py`, which plays the baseline runs through
the arena's own runner (the same code as a live arena) on a throw-away database and
writes, per run, what the leaderboard reads from a run: its episode counts and sums
(score, squares, steps, illegal actions, the suite's metric sums), with the mean and
standard error for a reader, and per file the engine versions and the command that made
them. `manage.py seed_baselines` creates a finished run from a matching entry (task,
policy, format, options and episode count) and queues a few of its episodes as replays
to look at, at the queue's lowest priority; the figures stay as shipped.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.services.runs import RunSpec, enqueue_on_commit, run_variant
from arena.models import Episode, Run, Submission
from envs.harness import BEFORE_VERSIONING

FIGURES_DIR = Path(settings.BASE_DIR) / "fixtures" / "baseline_figures"

# The run aggregates an entry carries (arena.models.Run), all a leaderboard row needs.
FIGURE_FIELDS = (
    "episodes_done", "episodes_failed", "score_sum", "score_sq_sum", "steps_total", "illegal_total",
    "illegal_fraction_sum", "illegal_episodes", "metric_sums",
)


def entry_key(task: str, policy: str, fmt: str, options: dict, episodes: int | None) -> str:
    return json.dumps([task, policy, fmt, options, episodes], sort_keys=True)


def shipped_entry(task: str, policy: str, fmt: str, options: dict, episodes: int, *, exact: bool) -> dict | None:
    """The shipped entry of this baseline run: with `exact`, only one of `episodes`
    episodes; otherwise that one if shipped, else the one with the most episodes (a slow
    suite ships fewer than the arena's default)."""
    entries = shipped_entries()
    entry = entries.get(entry_key(task, policy, fmt, options, episodes))
    if entry is not None or exact:
        return entry
    return entries.get(entry_key(task, policy, fmt, options, None))


@cache
def shipped_entries(directory: Path | None = None) -> dict[str, dict]:
    """Every shipped entry by `entry_key`, each with its provenance (who made it, how)."""
    entries = {}
    for path in sorted((directory or FIGURES_DIR).glob("*.json")):
        document = json.loads(path.read_text())
        for run in document["runs"]:
            key = entry_key(run["task"], run["policy"], run["format"], run["options"], run["episodes"])
            entries[key] = entry = {
                **run, "provenance": {**run["made_by"], "file": f"fixtures/baseline_figures/{path.name}"},
                # The harness the figures were played under: a run made from them is
                # stamped with it, so figures from an older harness are marked older
                # on every leaderboard instead of passing for current ones.
                "harness_version": run.get("harness_version") or BEFORE_VERSIONING,
            }
            any_count = entry_key(run["task"], run["policy"], run["format"], run["options"], None)
            if any_count not in entries or entries[any_count]["episodes"] < run["episodes"]:
                entries[any_count] = entry
    return entries


def run_from_figures(submission: Submission, spec: RunSpec, entry: dict, replays: int) -> Run:
    """A finished baseline run carrying the entry's figures (and its episode count),
    with its first `replays` episodes queued to be played for their replays (at the
    baselines' priority)."""
    spec = dataclasses.replace(spec, num_episodes=entry["episodes"])
    now = timezone.now()
    figures = entry["figures"]
    with transaction.atomic():
        run = Run.objects.create(
            submission=submission,
            task=spec.task,
            variant=run_variant(submission, spec),
            first_seed=spec.first_seed,
            num_episodes=spec.num_episodes,
            status=Run.FINISHED,
            started_at=now,
            finished_at=now,
            shipped_figures={"episodes": entry["episodes"], **entry["provenance"]},
            harness_version=entry["harness_version"],
            **{field: figures[field] for field in FIGURE_FIELDS},
        )
        count = min(replays, spec.num_episodes)
        Episode.objects.bulk_create(Episode(run=run, index=i, seed=spec.first_seed + i) for i in range(count))
        enqueue_on_commit(list(run.episodes.order_by("index").values_list("id", flat=True)))
    return run


def figures_of(run: Run) -> dict:
    """A run's entry as the generator writes it: the figures and their summary."""
    done = run.episodes_done
    mean = run.score_sum / done if done else None
    if done > 1:
        variance = max(0.0, (run.score_sq_sum - done * mean * mean) / (done - 1))
        standard_error = (variance / done) ** 0.5
    else:
        standard_error = None
    return {
        "task": run.task,
        "policy": run.submission.policy,
        "format": run.format,
        "options": run.options,
        "episodes": run.num_episodes,
        "harness_version": run.harness_version,
        "mean": mean,
        "standard_error": standard_error,
        "figures": {field: getattr(run, field) for field in FIGURE_FIELDS},
    }
