"""REST API, the write side (DRF): submissions, experiments and what a submitter can do
to a run. Writes need a token (or a logged-in session); the views validate and call
arena.services. The read side is leaderboard.web.api; config/urls.py composes both."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.decorators import action, api_view, permission_classes
from rest_framework.exceptions import PermissionDenied, Throttled, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from arena.services import run_actions
from arena.web.catalogue import submission_catalogue
from arena.clients.agent_endpoint import AGENT_REQUEST_SCHEMA, AGENT_RESPONSE_SCHEMA
from arena.models import Experiment, Run, Submission
from arena.moderation import TakenDown, not_found, taken_down_for
from arena.selectors import api_experiments, api_submissions
from arena.web.api_serializers import ExperimentSerializer, SubmissionSerializer
from arena.web.preview import submission_preview
from arena.web.throttles import (
    API_READS, ENDPOINT_PROBES, EndpointProbeAddressThrottle, EndpointProbeThrottle, ExperimentThrottle, SubmissionThrottle,
)
from arena.web.task_choice import MODE_CHOICES


class _CreateThrottledViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Each create attempt counts against the user's hourly limit, which
    the form views share (arena.web.throttles)."""

    create_throttle = None

    def get_throttles(self):
        # Reads count against the address's API read limit (the API's default throttle).
        return [self.create_throttle()] if self.action == "create" else super().get_throttles()

    def throttled(self, request, wait):
        if self.action != "create":
            raise Throttled(wait, detail=API_READS.refusal(wait))
        raise Throttled(wait, detail=self.create_throttle.refusal(wait))


class ExperimentViewSet(_CreateThrottledViewSet):
    queryset = Experiment.objects.prefetch_related("runs").order_by("-created_at")
    serializer_class = ExperimentSerializer
    create_throttle = ExperimentThrottle

    def get_queryset(self):
        # A taken-down submission's experiments: 404 but to staff, and to its owner asking
        # for an experiment's detail, which says why in `takedown`, as the submission's
        # does (arena.moderation: owner_reads); left out of lists.
        return api_experiments(getattr(self.request, "user", None), owner_reads=self.action == "retrieve")


class SubmissionViewSet(_CreateThrottledViewSet):
    queryset = Submission.objects.prefetch_related("runs").order_by("-created_at")
    serializer_class = SubmissionSerializer
    create_throttle = SubmissionThrottle

    def get_queryset(self):
        # Hidden submissions: 404 but to staff, and to their owner asking for its detail,
        # which says why in `takedown` (arena.moderation: owner_reads); left out of lists.
        return api_submissions(getattr(self.request, "user", None), owner_reads=self.action == "retrieve")

    def _dry_run(self) -> bool:
        return self.request.query_params.get("dry_run", "").lower() in ("1", "true", "yes")

    def get_throttles(self):
        # A dry run creates nothing but calls the submitter's endpoint, as "Test
        # endpoint" does, and counts against the same limit.
        if self.action == "create" and self._dry_run():
            self._by_address = EndpointProbeAddressThrottle()
            return [EndpointProbeThrottle(), self._by_address]
        return super().get_throttles()

    def throttled(self, request, wait):
        if self.action != "create" or not self._dry_run():
            return super().throttled(request, wait)
        if self._by_address.wait() is not None:  # the address's limit, not the user's
            raise Throttled(wait, detail=ENDPOINT_PROBES.refusal(wait))
        raise Throttled(wait, detail=EndpointProbeThrottle.refusal(wait))

    @extend_schema(
        parameters=[OpenApiParameter(
            "dry_run", bool, description="Validate, probe the endpoint and return the preview (the runs that would "
            "be queued, episodes, model calls, token and cost estimates); nothing is created.",
        )],
        responses={201: SubmissionSerializer, 200: OpenApiTypes.OBJECT},
    )
    def create(self, request, *args, **kwargs):
        if not self._dry_run():
            return super().create(request, *args, **kwargs)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        preview = submission_preview(
            serializer.planned_runs, fields=serializer.validated_data, probe=serializer.probe_result
        )
        return Response(preview.to_json())

    @extend_schema(summary="What a submission can choose", responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["get"])
    def catalogue(self, request):
        """The suites in their order, each with its description, paper preset and tasks
        (formats, step limits, settings with the paper's value first, swept options),
        and the observation modes: what `suites`, `tasks`, `mode`, `paper_protocol` and
        `task_settings` accept."""
        return Response({
            "modes": [{"id": mode, "label": label} for mode, label in MODE_CHOICES],
            "suites": [suite.to_json() for suite in submission_catalogue()],
        })


class TokenView(ObtainAuthToken):
    """`POST /api/token/` (username, password) → the user's token. While the account or
    the address is locked out after failed attempts (arena.web.login_lockout), the answer is 429
    with Retry-After and the password is not checked."""

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except serializers.ValidationError:
            refusal = getattr(request, "login_refusal", None)
            if refusal is None:
                raise
            raise Throttled(refusal.wait, detail=str(refusal)) from None


def _owned_run(request, pk) -> Run:
    run = get_object_or_404(Run.objects.select_related("submission"), pk=pk)
    if taken_down_for(request.user, run.submission, run):  # the owner included (arena.moderation)
        raise not_found(Run)
    if run.submission.owner_id != request.user.pk:
        raise PermissionDenied("Only the submitter can change this run.")
    return run


@extend_schema(summary="Re-queue a run's failed episodes", request=None,
               responses=inline_serializer("RunRequeued", {"requeued": serializers.IntegerField()}),
               description="Each failed episode is queued again and resumes after its last stored step. "
               "Fix the endpoint first (its base URL, model or key) if that is what failed.")
@api_view(["POST"])
@permission_classes([IsAuthenticated])
def run_requeue(request, pk):
    try:
        return Response({"requeued": run_actions.run_requeue_failed(_owned_run(request, pk))})
    except TakenDown as refusal:  # taken down since it was read
        raise ValidationError({"detail": str(refusal)}) from None


@extend_schema(summary="Cancel a run", request=None,
               responses=inline_serializer("RunCancelled", {"stopped": serializers.IntegerField()}),
               description="Queued and running episodes end as skipped; the steps played so far are kept.")
@api_view(["POST"])
@permission_classes([IsAuthenticated])
def run_cancel(request, pk):
    return Response({"stopped": run_actions.run_cancel(_owned_run(request, pk))})


@extend_schema(
    summary="The agent-endpoint protocol (arena-agent/1)",
    description=(
        "Agent endpoints receive one signed POST per step and answer with an action. The body "
        "follows `request`; the reply must follow `response`. Every request carries "
        "`X-Arena-Timestamp` (Unix seconds) and `X-Arena-Signature: sha256=<hex>`, the "
        "HMAC-SHA256 of `<timestamp>.<raw body>` with the submission's signing secret (shown once "
        "when the submission is created). A reply that is not JSON or has no string `action` is "
        "recorded as an illegal action. See examples/agent_endpoint.py."
    ),
    responses={200: {"type": "object", "properties": {"request": {"type": "object"}, "response": {"type": "object"}}}},
)
@api_view(["GET"])
def agent_protocol(request):
    return Response({"request": AGENT_REQUEST_SCHEMA, "response": AGENT_RESPONSE_SCHEMA})
