"""Runs and the harness they were played under (envs.harness; a new run is stamped in
arena.models.Run.save): which of a submission's runs were played under an older harness,
and playing those again under the current one.

Playing again creates fresh runs of the same task, settings, seeds and episode count,
queued like any run (each episode a message in the submission's fair turn, the
submission's current budget per run); the older runs stay, with their figures, and say
which harness they came from.
"""

from __future__ import annotations

import json

from django.db import transaction

from arena.services.runs import run_create_with_variant
from arena.models import Run, Submission
from envs import harness
from envs.registry import suite_of


def same_runs_key(run: Run) -> str:
    """Runs with equal keys play the same games the same way (a re-run and its original)."""
    return json.dumps([run.task, run.variant, run.first_seed, run.num_episodes, run.experiment_id], sort_keys=True)


def older_runs(submission: Submission) -> list[Run]:
    """The submission's runs played under an older harness than their suite's current
    one and not played again since: the ones a re-run would bring current. Cancelled
    runs are left out (their owner stopped them), and so are imported runs (never
    played here)."""
    runs = list(submission.runs.exclude(status=Run.CANCELLED).order_by("id"))
    current_keys = set()
    older = []
    for run in runs:
        try:
            suite = suite_of(run.task)
        except KeyError:
            continue
        if harness.standing(run.harness_version, suite).is_old:
            older.append(run)
        else:
            current_keys.add(same_runs_key(run))
    return [run for run in older if same_runs_key(run) not in current_keys]


def rerun_older_runs(submission: Submission) -> list[Run]:
    """Create and queue a fresh run, under the current harness, of each of the
    submission's older runs (`older_runs`); the older runs are kept. Returns the new
    runs (none when every run is current)."""
    created = []
    with transaction.atomic():
        # Two clicks at once: the second waits here and then finds the runs current.
        Submission.objects.select_for_update().filter(pk=submission.pk).first()
        for old in older_runs(submission):
            run = run_create_with_variant(
                submission, task=old.task, variant=dict(old.variant), first_seed=old.first_seed,
                num_episodes=old.num_episodes, experiment=old.experiment,
            )
            created.append(run)
    return created
