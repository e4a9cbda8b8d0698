"""Playing a submission's runs again under the current harness (envs.harness; a new run
is stamped in arena.models.Run.save; which runs are older: arena.selectors.older_runs).

Playing again creates fresh runs of the same task, settings, seeds and episode count,
queued like any run (each episode a message in the submission's fair turn, the
submission's current budget per run); the older runs stay, with their figures, and say
which harness they came from.
"""

from __future__ import annotations

from django.db import transaction

from arena.models import Run, Submission
from arena.moderation import refuse_if_taken_down
from arena.selectors import older_runs
from arena.services.runs import run_create_with_variant


def rerun_older_runs(submission: Submission) -> list[Run]:
    """Create and queue a fresh run, under the current harness, of each of the
    submission's older runs (`older_runs`); the older runs are kept. Returns the new
    runs (none when every run is current). TakenDown (nothing queued) when the operators
    took the submission down; its taken-down runs are not among the older runs, so they
    are never played again."""
    created = []
    with transaction.atomic():
        # Two clicks at once: the second waits here and then finds the runs current.
        refuse_if_taken_down(Submission.objects.select_for_update().get(pk=submission.pk))
        for old in older_runs(submission):
            run = run_create_with_variant(
                submission, task=old.task, variant=dict(old.variant), first_seed=old.first_seed,
                num_episodes=old.num_episodes, experiment=old.experiment,
            )
            created.append(run)
    return created
