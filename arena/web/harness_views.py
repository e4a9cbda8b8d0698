"""The owner's one click (and its API call) that plays a submission's older-harness runs
again under the current harness (arena.services.reruns.rerun_older_runs)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.exceptions import PermissionDenied as ApiPermissionDenied
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from arena.services.reruns import rerun_older_runs
from arena.models import Submission
from arena.moderation import TakenDown, not_found, taken_down_for
from arena.web.views import _own_submission


@login_required
@require_POST
def submission_rerun_older(request, pk):
    submission = _own_submission(request, pk)
    try:
        runs = rerun_older_runs(submission)
    except TakenDown as refusal:  # taken down since it was read
        messages.error(request, str(refusal))
        return redirect("arena:my_submissions")
    if runs:
        messages.success(
            request,
            f"{len(runs)} run{'s' if len(runs) != 1 else ''} queued again under the current harness, with the same "
            "tasks, settings and seeds; the older runs stay listed with the harness they were played under.",
        )
    else:
        messages.info(request, "Every run of this submission is already under its suite's current harness.")
    return redirect(submission)


@extend_schema(
    summary="Play a submission's older-harness runs again",
    request=None,
    responses=inline_serializer("OlderRunsQueued", {"queued_runs": serializers.ListField(child=serializers.IntegerField())}),
    description=(
        "Queues a fresh run, under its suite's current harness version, of each of the submission's runs played "
        "under an older one and not played again since: same task, settings, seeds and episodes, in the "
        "submission's fair turn and within its budget per run. The older runs are kept. A run the operators took "
        "down is never played again, nor does it count as another run's replacement. An empty list: every run "
        "is current."
    ),
)
@api_view(["POST"])
@permission_classes([IsAuthenticated])
def submission_rerun_older_api(request, pk):
    submission = get_object_or_404(Submission, pk=pk, kind=Submission.KIND_MODEL)
    if taken_down_for(request.user, submission):  # the owner included (arena.moderation)
        raise not_found(Submission)
    if submission.owner_id != request.user.pk:
        raise ApiPermissionDenied("Only the submitter can play this submission's runs again.")
    try:
        return Response({"queued_runs": [run.pk for run in rerun_older_runs(submission)]})
    except TakenDown as refusal:  # taken down since it was read
        raise ValidationError({"detail": str(refusal)}) from None
