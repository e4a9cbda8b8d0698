"""The owner's one click that plays a submission's older-harness runs again under the
current harness (arena.harness.rerun_older_runs)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from arena.harness import rerun_older_runs
from arena.views import _own_submission


@login_required
@require_POST
def submission_rerun_older(request, pk):
    submission = _own_submission(request, pk)
    runs = rerun_older_runs(submission)
    if runs:
        messages.success(
            request,
            f"{len(runs)} run{'s' if len(runs) != 1 else ''} queued again under the current harness, with the same "
            "tasks, settings and seeds; the older runs stay listed with the harness they were played under.",
        )
    else:
        messages.info(request, "Every run of this submission is already under its suite's current harness.")
    return redirect(submission)
