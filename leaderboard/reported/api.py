"""GET /api/leaderboard/reported/?task=: the figures the suite's paper reports for a
task, apart from the measured rows of /api/leaderboard/ (they are never ranked)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from envs.registry import all_tasks
from leaderboard.reported.figures import figures_for_task


class ReportedFigureSerializer(serializers.Serializer):
    source = serializers.CharField(help_text='the table or figure of the paper, e.g. "BALROG Table 6 (App. B.1)"')
    paper = serializers.CharField(source="paper.title")
    model = serializers.CharField(help_text="as the paper writes it")
    tasks = serializers.ListField(child=serializers.CharField(), help_text="several: the figure averages over them")
    environment = serializers.CharField()
    format = serializers.CharField()
    setting = serializers.CharField()
    metric = serializers.CharField()
    scale = serializers.CharField(source="scale.description")
    value = serializers.FloatField()
    stderr = serializers.FloatField(allow_null=True)
    ci = serializers.ListField(child=serializers.FloatField(), allow_null=True)
    notes = serializers.CharField()


@extend_schema(
    parameters=[OpenApiParameter("task", str, required=True, description="e.g. balrog/crafter")],
    responses=ReportedFigureSerializer(many=True),
)
@api_view(["GET"])
def reported(request):
    """Figures reported in the task's paper, each with its source; not ranked, not
    measured here."""
    task_id = request.query_params.get("task", "")
    if task_id not in all_tasks():
        return Response({"task": [f"Unknown task {task_id!r}; see /api/tasks/."]}, status=status.HTTP_400_BAD_REQUEST)
    figures = figures_for_task(task_id)
    return Response({"task": task_id, "reported": ReportedFigureSerializer(figures, many=True).data})
