"""REST API, the read side (DRF): tasks, runs, episodes and their steps, leaderboards.
All public. The write side (submissions, experiments, run actions) is arena.api."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from arena.models import Episode, Run
from envs.registry import all_tasks
from leaderboard.selectors import leaderboard_rows
from leaderboard.serializers import EpisodeSerializer, MetricValueSerializer, RunSerializer, StepSerializer


class TaskSerializer(serializers.Serializer):
    id = serializers.CharField()
    suite = serializers.CharField()
    title = serializers.CharField()
    formats = serializers.ListField(child=serializers.CharField())
    max_steps = serializers.IntegerField()
    description = serializers.CharField()


class TaskViewSet(viewsets.ViewSet):
    """The tasks episodes can be played on, with their observation formats."""

    serializer_class = TaskSerializer
    pagination_class = None

    def list(self, request):
        items = [
            {"id": cls.id, "suite": cls.suite, "title": cls.title, "formats": list(cls.formats),
             "max_steps": cls.max_steps, "description": cls.description}
            for _, cls in sorted(all_tasks().items())
        ]
        return Response(TaskSerializer(items, many=True).data)


# Ids are 64-bit; a larger number in a query would overflow the database's integer.
MAX_ID = 2**63 - 1


class RunFilterSerializer(serializers.Serializer):
    """The query parameters of GET /api/runs/; an empty one filters nothing."""

    task = serializers.CharField(required=False, help_text="only runs of this task, e.g. lmact/gridworld")
    submission = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID, help_text="only runs of this submission")
    status = serializers.ChoiceField(choices=Run.STATUS_CHOICES, required=False, help_text="only runs in this status")

    def validate_task(self, value):
        if value not in all_tasks():
            raise serializers.ValidationError(f"Unknown task {value!r}; see /api/tasks/.")
        return value


class RunViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = RunSerializer

    def get_queryset(self):
        runs = Run.objects.select_related("submission").order_by("-created_at")
        params = self.request.query_params
        filters = RunFilterSerializer(data={name: params[name] for name in ("task", "submission", "status") if params.get(name)})
        filters.is_valid(raise_exception=True)  # a 400 that names the parameter
        wanted = filters.validated_data
        if "task" in wanted:
            runs = runs.filter(task=wanted["task"])
        if "submission" in wanted:
            runs = runs.filter(submission_id=wanted["submission"])
        if "status" in wanted:
            runs = runs.filter(status=wanted["status"])
        return runs

    @extend_schema(parameters=[RunFilterSerializer])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)


class StepPagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 500


class EpisodeViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Episode.objects.select_related("run__submission")
    serializer_class = EpisodeSerializer

    @extend_schema(responses=StepSerializer(many=True))
    @action(detail=True, methods=["get"], url_path="steps", url_name="steps")
    def steps(self, request, pk=None):
        episode = self.get_object()
        paginator = StepPagination()
        page = paginator.paginate_queryset(episode.steps.order_by("index"), request, view=self)
        return paginator.get_paginated_response(StepSerializer(page, many=True).data)


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True)
    metric = MetricValueSerializer(source="primary", help_text="the suite's primary metric, which ranks the rows")
    metrics = MetricValueSerializer(many=True, help_text="the suite's metrics, the primary one first")
    run = RunSerializer()


@extend_schema(
    parameters=[OpenApiParameter("task", str, required=True, description="e.g. lmact/tictactoe")],
    responses=LeaderboardRowSerializer(many=True),
)
@api_view(["GET"])
def leaderboard(request):
    """Ranked rows of one task, by the primary metric of its suite (LMAct: mean summed
    reward; infogather: steps to sufficient information, lower is better; AdventureGame:
    clemscore); baselines appear with rank null as reference rows."""
    task_id = request.query_params.get("task", "")
    if task_id not in all_tasks():
        return Response(
            {"task": [f"Unknown task {task_id!r}; see /api/tasks/."]}, status=status.HTTP_400_BAD_REQUEST
        )
    rows = leaderboard_rows(task_id)
    return Response(LeaderboardRowSerializer(rows, many=True).data)
