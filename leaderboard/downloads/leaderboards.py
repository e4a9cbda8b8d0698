"""The leaderboards as downloads and API answers: /api/leaderboard/overall/ (JSON, or CSV
with ?format=csv) and /api/leaderboard/?task=… (JSON, or CSV with ?format=csv).

`?format=` is how DRF picks a renderer; a value no renderer has is a 400 here (DRF
alone answers 404), so a mistyped download says what went wrong.
"""

from __future__ import annotations

import csv
import io

from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from envs.registry import all_tasks, suite_of
from leaderboard.boards import overall, tables
from leaderboard.selectors.runs import STRATEGY_FILTERS, Filters, leaderboard_rows
from leaderboard.selectors.ranking import LeaderboardRow
from leaderboard.serializers import MetricValueSerializer, RunSerializer


class CSVRenderer(BaseRenderer):
    """Renders a list of records (the header first) as CSV."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if isinstance(data, dict):  # an error answered in the CSV format: its messages, one a line
            writer.writerow(["field", "message"])
            for name, messages in data.items():
                for message in messages if isinstance(messages, list) else [messages]:
                    writer.writerow([name, str(message)])
        else:
            writer.writerows(data)
        return buffer.getvalue().encode(self.charset)


class DownloadView(APIView):
    """JSON, the browsable API and CSV; an unknown ?format= is a 400 naming the choices."""

    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    FORMATS = ("json", "csv", "api")

    def perform_content_negotiation(self, request, force=False):
        wanted = request.query_params.get("format")
        if not force and wanted is not None and wanted not in self.FORMATS:
            raise ValidationError({"format": [f"Unknown format {wanted!r}; choose json or csv."]})
        return super().perform_content_negotiation(request, force)

    def wants_csv(self, request) -> bool:
        return getattr(request.accepted_renderer, "format", "") == "csv"

    @staticmethod
    def attachment(response: Response, filename: str) -> Response:
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class OverallQuerySerializer(serializers.Serializer):
    tab = serializers.ChoiceField(
        choices=list(overall.TABS), required=False, default="llm",
        help_text="llm: runs on text observations; vlm: runs on image observations",
    )
    strategy = serializers.ChoiceField(
        choices=list(STRATEGY_FILTERS), required=False, default="",
        help_text="only model runs of this prompt strategy (baselines stay as reference rows)",
    )


def overall_query(params) -> dict:
    """The validated tab and strategy of a query; raises ValidationError naming the bad one."""
    query = OverallQuerySerializer(data={name: params[name] for name in ("tab", "strategy") if params.get(name)})
    query.is_valid(raise_exception=True)
    return query.validated_data


class OverallLeaderboardView(DownloadView):
    @extend_schema(
        operation_id="leaderboard_overall",
        description=(
            "The overall leaderboard, one row per submission: per suite column (a task, a BALROG environment, a "
            "TextAtari game category, a suite's summary) the suite's primary metric on its paper's scale with its "
            "standard error and episodes; the average progress over the suites on a shared 0–100 scale (null "
            "unless the row has them all); tokens and cost. Baselines have rank null. `?format=csv` gives the "
            "table the front page shows, at its precision; JSON numbers are unrounded."
        ),
        parameters=[
            OverallQuerySerializer,
            OpenApiParameter("format", str, enum=["json", "csv"], description="json (default) or csv"),
        ],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), 400: OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    def get(self, request):
        query = overall_query(request.query_params)
        board = overall.board(query["tab"], query["strategy"])
        base_url = request.build_absolute_uri("/").rstrip("/")
        if self.wants_csv(request):
            rows = tables.overall_csv_rows(board, base_url)
            return self.attachment(Response(rows), _overall_filename(board, "csv"))
        data = {
            "tab": board.tab,
            "strategy": board.strategy,
            "average_progress_over": [suite.id for suite in board.shared_suites],
            "notes": {suite.id: suite.overall.note for suite in board.suites},
            "columns": [tables.column_json(column) for column in board.columns],
            "rows": [tables.overall_json_row(row, base_url) for row in board.rows],
            # Played with custom settings rather than the papers' presets: never ranked
            # against "rows" (each row's "protocol" says what it played).
            "custom_rows": [tables.overall_json_row(row, base_url) for row in board.custom_rows],
        }
        response = Response(data)
        if request.query_params.get("format") == "json":  # the page's "Download JSON" link
            self.attachment(response, _overall_filename(board, "json"))
        return response


def _overall_filename(board: overall.Board, extension: str) -> str:
    name = f"arena-overall-{board.tab}" + (f"-{board.strategy}" if board.strategy else "")
    return f"{name}.{extension}"


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True)
    metric = MetricValueSerializer(source="primary", help_text="the suite's primary metric, which ranks the rows")
    metrics = MetricValueSerializer(many=True, help_text="the suite's metrics, the primary one first")
    run = RunSerializer()


class TaskLeaderboardView(DownloadView):
    @extend_schema(
        operation_id="leaderboard_list",
        parameters=[
            OpenApiParameter("task", str, required=True, description="e.g. lmact/tictactoe"),
            OpenApiParameter(
                "format", str, enum=["json", "csv"],
                description="json (default), or csv: the columns of the task page's table at its precision",
            ),
        ],
        responses=LeaderboardRowSerializer(many=True),
    )
    def get(self, request):
        """Ranked rows of one task, by the primary metric of its suite (LMAct: mean summed
        reward; infogather: steps to sufficient information, lower is better; AdventureGame:
        clemscore); baselines appear with rank null as reference rows."""
        task_id = request.query_params.get("task", "")
        if task_id not in all_tasks():
            return Response({"task": [f"Unknown task {task_id!r}; see /api/tasks/."]}, status=status.HTTP_400_BAD_REQUEST)
        if not self.wants_csv(request):
            return Response(LeaderboardRowSerializer(leaderboard_rows(task_id), many=True).data)
        # The CSV is the task page's table: the page's filters apply (unknown values ignored, as there).
        rows: list[LeaderboardRow] = leaderboard_rows(task_id, Filters.from_query(request.query_params))
        base_url = request.build_absolute_uri("/").rstrip("/")
        records = tables.task_csv_rows(suite_of(task_id).metrics, rows, base_url)
        return self.attachment(Response(records), f"arena-{slugify(task_id.replace('/', '-'))}.csv")
