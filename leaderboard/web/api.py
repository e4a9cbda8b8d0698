"""REST API, the read side (DRF): tasks, runs, episodes and their steps, leaderboards.
All public. The write side (submissions, experiments, run actions) is arena.web.api."""

from __future__ import annotations

import re

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from arena.endpoints.privacy import can_see_endpoint
from arena.models import Episode, Run
from arena.moderation import visible_to
from envs.registry import all_tasks
from arena.live.frame import STEP_TEXT_PREVIEW_CHARS, StepSerializer
from leaderboard.selectors.episodes import (
    MIN_STEP_SEARCH_CHARS,
    STEP_SEARCH_LIMIT,
    EpisodeFilters,
    counted_steps,
    episodes_with_run,
    filtered_episodes_of_run,
    filtered_episodes_of_task,
    search_steps,
    step_or_404,
)
from leaderboard.selectors.runs import run_or_404, runs_newest_first
from leaderboard.downloads.leaderboards import OverallLeaderboardView, TaskLeaderboardView
from leaderboard.serializers import STEP_PAGE_MAX_BYTES, EpisodeListSerializer, EpisodeSerializer, RunSerializer, step_page
from leaderboard.web.step_marks import (
    MARK_KINDS,
    MAX_WINDOW_STEPS,
    MIN_WINDOW_STEPS,
    WINDOW_STEPS,
    episode_marks,
    marks_etag,
)


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
        params = self.request.query_params
        filters = RunFilterSerializer(data={name: params[name] for name in ("task", "submission", "status") if params.get(name)})
        filters.is_valid(raise_exception=True)  # a 400 that names the parameter
        wanted = filters.validated_data
        runs = runs_newest_first(task=wanted.get("task"), submission=wanted.get("submission"), status=wanted.get("status"))
        # A taken-down run's detail reads for its owner too, saying why in `takedown` (arena.moderation).
        return visible_to(getattr(self.request, "user", None), runs, submission="submission", run="",
                          owner_reads=self.action == "retrieve")

    @extend_schema(parameters=[RunFilterSerializer])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)


class StepPageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="steps of the episode")
    next = serializers.URLField(allow_null=True, help_text="the page after this one; null on the last page")
    results = StepSerializer(many=True)


class MarkKindSerializer(serializers.Serializer):
    indices = serializers.ListField(child=serializers.IntegerField(), required=False)
    bitmap = serializers.CharField(required=False)


class StepMarksSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="steps of the episode")
    last_index = serializers.IntegerField(help_text="the greatest step index (-1: no step)")
    window = serializers.IntegerField(help_text="steps per window of reward_before")
    reward_before = serializers.ListField(child=serializers.FloatField())
    marks = serializers.DictField(child=MarkKindSerializer(), help_text="by kind: " + ", ".join(MARK_KINDS))


# A step index past any stored one: larger cursors read as "after the last step", and no
# number too large for the database reaches a query.
LAST_POSSIBLE_STEP_INDEX = 2**31 - 1


class EpisodeFilterSerializer(serializers.Serializer):
    """The query parameters of GET /api/episodes/: the episodes of a run or of a task,
    narrowed as the run page and the task's episode page narrow them."""

    run = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID, help_text="the episodes of this run")
    task = serializers.CharField(required=False, help_text="the episodes of every run of this task, e.g. lmact/chess")
    illegal = serializers.BooleanField(required=False, help_text="only episodes with an illegal answer")
    cut_off = serializers.BooleanField(required=False, help_text="only episodes with an answer cut off by the token limit")
    error = serializers.BooleanField(required=False, help_text="only episodes that failed or carry an error")
    end_reason = serializers.CharField(required=False, max_length=200, help_text="only episodes that ended for this reason")
    score_min = serializers.FloatField(required=False, help_text="only episodes scoring this or more")
    score_max = serializers.FloatField(required=False, help_text="only episodes scoring this or less")

    def validate_task(self, value):
        if value not in all_tasks():
            raise serializers.ValidationError(f"Unknown task {value!r}; see /api/tasks/.")
        return value

    def validate(self, data):
        if ("run" in data) == ("task" in data):
            raise serializers.ValidationError({"run": ["Give a run or a task (one of them)."]})
        return data


class StepMatchSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    where = serializers.ListField(child=serializers.CharField(), help_text="the step's texts that hold the search")
    snippet = serializers.CharField(help_text="the first such text around the match")


class StepSearchSerializer(serializers.Serializer):
    more = serializers.BooleanField(help_text=f"more steps match than the first {STEP_SEARCH_LIMIT} listed")
    results = StepMatchSerializer(many=True)


class EpisodeViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = episodes_with_run()
    serializer_class = EpisodeSerializer

    def get_serializer_class(self):
        return EpisodeListSerializer if self.action == "list" else EpisodeSerializer

    def get_queryset(self):
        # Episodes of hidden runs or submissions: 404 but to staff, and to their owner, whose
        # episode page reads its steps here (arena.moderation: owner_reads).
        user = getattr(self.request, "user", None)
        if self.action != "list":
            return visible_to(user, super().get_queryset(), submission="run__submission", run="run", owner_reads=True)
        params = self.request.query_params
        wanted = EpisodeFilterSerializer(data={name: params[name] for name in EpisodeFilterSerializer().fields if params.get(name)})
        wanted.is_valid(raise_exception=True)  # a 400 that names the parameter
        data = wanted.validated_data
        filters = EpisodeFilters(
            illegal=data.get("illegal", False), cut_off=data.get("cut_off", False), error=data.get("error", False),
            end_reason=data.get("end_reason", ""), score_min=data.get("score_min"), score_max=data.get("score_max"),
        )
        if "run" in data:
            return filtered_episodes_of_run(run_or_404(data["run"], user, owner_reads=True), filters)
        return filtered_episodes_of_task(data["task"], filters)

    @extend_schema(
        description="The episodes of a run (`run`) or of every run of a task (`task`), narrowed by the filters; "
        "a run's in index order, a task's by run (newest first) then index.",
        parameters=[EpisodeFilterSerializer],
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        description=(
            "The steps of the episode whose observation, prompt parts, completion, reasoning or action hold `q` "
            f"(case-insensitive, {MIN_STEP_SEARCH_CHARS} characters or more), in index order, at most "
            f"{STEP_SEARCH_LIMIT}."
        ),
        parameters=[OpenApiParameter("q", str, description="the text searched for")],
        responses=StepSearchSerializer,
    )
    @action(detail=True, methods=["get"], url_path="search", url_name="search")
    def search(self, request, pk=None):
        episode = self.get_object()
        text = request.query_params.get("q", "").strip()
        if not MIN_STEP_SEARCH_CHARS <= len(text) <= 200:
            return Response({"q": [f"{MIN_STEP_SEARCH_CHARS} to 200 characters."]}, status=status.HTTP_400_BAD_REQUEST)
        matches = search_steps(episode, text)
        return Response({"more": len(matches) > STEP_SEARCH_LIMIT, "results": matches[:STEP_SEARCH_LIMIT]})

    STEPS_PAGE_SIZE = 100
    STEPS_MAX_PAGE_SIZE = 500

    @extend_schema(
        description=(
            "The episode's steps in index order. A page holds at most `page_size` steps and about "
            f"{STEP_PAGE_MAX_BYTES:,} bytes (at least one step); texts longer than "
            f"{STEP_TEXT_PREVIEW_CHARS:,} characters are cut and named in each step's `truncated`, "
            "and its `full_url` serves the step whole. Follow `next` for the rest. "
            "`from` and `to` read a window of a long episode (e.g. `?from=73500&to=73599`): "
            "`next` is then null once the window is served."
        ),
        parameters=[
            OpenApiParameter("after", int, description="only steps with a greater index (the last index held)"),
            OpenApiParameter("from", int, description="only steps with this index or a greater one (instead of `after`)"),
            OpenApiParameter("to", int, description="only steps with this index or a smaller one"),
            OpenApiParameter("page_size", int, description=f"at most this many steps (≤ {STEPS_MAX_PAGE_SIZE})"),
        ],
        responses=StepPageSerializer,
    )
    @action(detail=True, methods=["get"], url_path="steps", url_name="steps")
    def steps(self, request, pk=None):
        episode = self.get_object()
        params = request.query_params
        try:
            after_index, through_index = _step_range(params)
        except serializers.ValidationError as error:
            return Response(error.detail, status=status.HTTP_400_BAD_REQUEST)
        page = step_page(
            episode.pk, after_index, self._steps_page_size(params.get("page_size")), through_index,
            detailed=can_see_endpoint(request.user, episode.run.submission),
        )
        next_url = None
        if page.more:
            next_url = replace_query_param(
                remove_query_param(request.build_absolute_uri(), "from"), "after", page.results[-1]["index"]
            )
        return Response({"count": _step_count(episode), "next": next_url, "results": page.results})

    @extend_schema(
        description=(
            "What the replay's scrubber marks, for the whole episode: per kind (error, illegal, reward, "
            "done) the step indices as a list (`indices`) or, when shorter, as a base64 bitmap "
            "(`bitmap`: bit i of byte i // 8, least significant first, for step i); `reward_before` "
            "is the reward summed before each window of `window` steps (windows aligned on multiples "
            "of it, as a player fetches them). Cached with an ETag once the episode has ended."
        ),
        parameters=[
            OpenApiParameter(
                "window", int, description=f"steps per window ({MIN_WINDOW_STEPS}–{MAX_WINDOW_STEPS}, default {WINDOW_STEPS})"
            ),
        ],
        responses=StepMarksSerializer,
    )
    @action(detail=True, methods=["get"], url_path="marks", url_name="marks")
    def marks(self, request, pk=None):
        episode = self.get_object()
        raw_window = request.query_params.get("window", str(WINDOW_STEPS))
        if not re.fullmatch(r"[0-9]{1,6}", raw_window) or not MIN_WINDOW_STEPS <= int(raw_window) <= MAX_WINDOW_STEPS:
            return Response(
                {"window": [f"Steps per window, {MIN_WINDOW_STEPS} to {MAX_WINDOW_STEPS}."]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        etag = marks_etag(episode, int(raw_window))
        headers = {"Cache-Control": "no-cache"}  # revalidated each time: the ETag is cheap
        if etag:
            headers["ETag"] = etag
            if etag in request.headers.get("If-None-Match", ""):
                return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        return Response(episode_marks(episode, int(raw_window)), headers=headers)

    def _steps_page_size(self, raw: str | None) -> int:
        # As DRF's paginators do: a missing or unreadable size is the default, a large one the maximum.
        if raw and re.fullmatch(r"[0-9]+", raw) and int(raw) > 0:
            return min(int(raw), self.STEPS_MAX_PAGE_SIZE)
        return self.STEPS_PAGE_SIZE

    @extend_schema(
        operation_id="episodes_step_retrieve",
        description="One step whole, with no text cut: what a page's `full_url` gives.",
        parameters=[OpenApiParameter("index", int, OpenApiParameter.PATH, description="the step's index")],
        responses=StepSerializer,
    )
    @action(detail=True, methods=["get"], url_path=r"steps/(?P<index>[0-9]{1,10})", url_name="step")
    def step(self, request, pk=None, index=None):
        episode = self.get_object()
        step = step_or_404(episode, min(int(index), LAST_POSSIBLE_STEP_INDEX))
        detailed = can_see_endpoint(request.user, episode.run.submission)
        return Response(StepSerializer(step, context={"detailed": detailed}).data)


def _step_range(params) -> tuple[int, int | None]:
    """The steps a request asks for, as (after this index, through this index or None):
    `after` or `from` (not both) and `to`. Raises ValidationError naming the parameter."""
    if "page" in params:
        raise serializers.ValidationError({"page": ["Steps are paged by `after` (the last step index held); follow `next`."]})
    if "from" in params and "after" in params:
        raise serializers.ValidationError({"from": ["Give `from` or `after`, not both."]})
    after = params.get("after", "-1")
    if not re.fullmatch(r"-?[0-9]+", after) or int(after) < -1:
        raise serializers.ValidationError({"after": ["A step index (-1 or more): the page starts after it."]})
    after_index = min(int(after), LAST_POSSIBLE_STEP_INDEX)
    if "from" in params:
        after_index = _step_index(params, "from") - 1
    through_index = _step_index(params, "to") if "to" in params else None
    if through_index is not None and through_index <= after_index:
        raise serializers.ValidationError({"to": ["The last step index of the window: `from` or more."]})
    return after_index, through_index


def _step_index(params, name: str) -> int:
    raw = params.get(name, "")
    if not re.fullmatch(r"[0-9]{1,12}", raw):
        raise serializers.ValidationError({name: ["A step index (0 or more)."]})
    return min(int(raw), LAST_POSSIBLE_STEP_INDEX)


def _step_count(episode: Episode) -> int:
    """Steps of the episode. An ended episode's row holds the count; counting rows is
    left to a running one, whose counters only settle at its end."""
    if episode.status in Episode.TERMINAL:
        return episode.num_steps
    return counted_steps(episode)


# The task leaderboard answers JSON and CSV (leaderboard.downloads.leaderboards).
leaderboard = TaskLeaderboardView.as_view()
overall_leaderboard = OverallLeaderboardView.as_view()
