"""Read-side representations, shared by the REST API, the pages and the live channel. A
step's own representation is the live frame's (arena.live.frame): the publisher sends
it with each step, and the pages of steps here list the same."""

from __future__ import annotations

import dataclasses
import functools
import json

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.utils.encoders import JSONEncoder

from arena.endpoints.privacy import error_for
from arena.live.frame import step_preview
from arena.protocol import row_protocol
from arena.models import Episode, Run, Step, StoredImage, Submission
from arena.selectors import RunProgress, run_progress, takedown_notice
from envs.registry import replay_renderer, suite_of
from leaderboard.boards.harness import run_json as harness_json
from leaderboard.selectors.episodes import episode_with_run, steps_after
from leaderboard.selectors.ranking import metric_value


# A page of steps stops adding steps once its JSON would pass this many bytes; it
# always holds at least one step, and its `next` link continues after its last one.
STEP_PAGE_MAX_BYTES = 1_000_000
# Steps are read from the database this many at a time while a page is filled, so a
# page of huge stored steps never holds them all in memory at once.
STEP_READ_CHUNK = 16


def json_size(data) -> int:
    """Bytes of `data` as the API renders it (compact UTF-8 JSON)."""
    text = json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "replace"))


class SubmissionSummarySerializer(serializers.ModelSerializer):
    is_baseline = serializers.BooleanField(read_only=True)

    class Meta:
        model = Submission
        fields = ["id", "name", "model", "kind", "is_baseline", "strategy_label"]


class EpisodeListSerializer(serializers.ModelSerializer):
    """An episode as GET /api/episodes/ lists it: what its filters look at, and its URLs."""

    task = serializers.CharField(source="run.task")
    api_url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()

    class Meta:
        model = Episode
        fields = [
            "id", "run", "index", "task", "seed", "status", "score", "num_steps", "illegal_steps", "cut_off_steps",
            "end_reason", "error", "api_url", "page_url",
        ]

    def get_api_url(self, episode) -> str:
        return reverse("api:episode-detail", args=[episode.pk])

    def get_page_url(self, episode) -> str:
        return episode.get_absolute_url()


class EpisodeSerializer(serializers.ModelSerializer):
    task = serializers.CharField(source="run.task")
    format = serializers.CharField(source="run.format")
    submission = SubmissionSummarySerializer(source="run.submission")
    renderer = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()
    final_observation = serializers.SerializerMethodField()
    steps_url = serializers.SerializerMethodField()
    marks_url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()
    ws_path = serializers.SerializerMethodField()
    takedown = serializers.SerializerMethodField(
        help_text="null, or when the operators took its run (or its submission) down: as the run's `takedown`. "
        "Only its owner and staff read an episode of a taken-down run."
    )

    class Meta:
        model = Episode
        fields = [
            "id",
            "run",
            "index",
            "task",
            "format",
            "seed",
            "status",
            "score",
            "num_steps",
            "illegal_steps",
            "cut_off_steps",
            "reasoning_tokens",
            "tokens_in",
            "tokens_out",
            "end_reason",
            "error",
            "attempts",
            "heartbeat_at",
            "started_at",
            "finished_at",
            "demonstration_seeds",
            "renderer",
            "final_observation",
            "submission",
            "steps_url",
            "marks_url",
            "api_url",
            "ws_path",
            "takedown",
        ]

    def get_takedown(self, episode) -> dict | None:
        notice = takedown_notice(episode.run.submission, episode.run)
        return notice.to_json() if notice else None

    def get_error(self, episode) -> str:
        """The detailed error for the submission's owner and staff; the kind of failure
        for everyone else, and on the live channel, which everyone shares
        (arena.endpoints.privacy.public_error)."""
        request = self.context.get("request")
        return error_for(getattr(request, "user", None), episode)

    def get_renderer(self, episode) -> str:
        """Which player renderer draws this episode's observations (static/js/renderers/),
        as the task's suite declares it."""
        return replay_renderer(episode.run.task, episode.run.format)

    def get_final_observation(self, episode) -> dict | None:
        """The state after the last action, in the shape of a step's observation."""
        sha = episode.final_observation_image_id
        if episode.final_observation_text is None and not sha:
            return None
        return {
            "observation_text": episode.final_observation_text,
            "observation_image": StoredImage.url_of(sha) if sha else None,
        }

    def get_steps_url(self, episode) -> str:
        return reverse("api:episode-steps", args=[episode.pk])

    def get_marks_url(self, episode) -> str:
        return reverse("api:episode-marks", args=[episode.pk])

    def get_api_url(self, episode) -> str:
        return reverse("api:episode-detail", args=[episode.pk])

    def get_ws_path(self, episode) -> str:
        return f"/ws/episodes/{episode.pk}/"


class MetricValueSerializer(serializers.Serializer):
    """One metric of a run as its suite defines it (envs.suite.Metric), in the paper's unit."""

    name = serializers.CharField(source="metric.name")
    label = serializers.CharField(source="metric.label")
    higher_is_better = serializers.BooleanField(source="metric.higher_is_better")
    unit = serializers.CharField(source="metric.unit")
    digits = serializers.IntegerField(source="metric.digits", help_text="the precision pages show it with")
    mean = serializers.FloatField(allow_null=True)
    stderr = serializers.FloatField(allow_null=True)
    episodes = serializers.IntegerField(help_text="episodes with a value")
    missing = serializers.IntegerField(help_text="episodes without one (e.g. never reached sufficient information)")


@functools.cache
def _metric_value_serializer() -> MetricValueSerializer:
    # A serializer copies its declared fields when built: one instance serves every run
    # of a leaderboard (rendering keeps no state on it), as _preview_serializer does.
    return MetricValueSerializer()


class RunSerializer(serializers.ModelSerializer):
    submission = SubmissionSummarySerializer(read_only=True)
    format = serializers.CharField(read_only=True)
    episodes_total = serializers.IntegerField(source="num_episodes", read_only=True)
    progress = serializers.SerializerMethodField(
        help_text="Percent of the run played: ended episodes whole, running ones by their steps of the step limit."
    )
    steps_running = serializers.SerializerMethodField(help_text="Steps played so far by the running episodes.")
    step_limit = serializers.SerializerMethodField(help_text="Each episode's step limit.")
    score_mean = serializers.FloatField(read_only=True, allow_null=True)
    score_stderr = serializers.FloatField(read_only=True, allow_null=True)
    illegal_rate = serializers.FloatField(read_only=True, allow_null=True)
    cut_off_rate = serializers.FloatField(read_only=True, allow_null=True)
    cache_hit_rate = serializers.FloatField(read_only=True, allow_null=True)
    cost_usd = serializers.FloatField(read_only=True, allow_null=True)
    primary_metric = serializers.SerializerMethodField()
    harness = serializers.SerializerMethodField(
        help_text="The harness version the run was played under, its suite's current one, and a note when they differ."
    )
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()
    protocol = serializers.SerializerMethodField()
    takedown = serializers.SerializerMethodField(
        help_text="null, or when the operators took the run (or its submission) down: status \"taken_down\", when "
        "(on), why (reason), what is kept and whom to contact. Only its owner and staff read a taken-down run."
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "url",
            "api_url",
            "submission",
            "task",
            "format",
            "variant",
            "first_seed",
            "status",
            "episodes_total",
            "episodes_done",
            "episodes_failed",
            "progress",
            "steps_running",
            "step_limit",
            "score_mean",
            "score_stderr",
            "primary_metric",
            "illegal_rate",
            "steps_total",
            "illegal_total",
            "cut_off_total",
            "reasoning_tokens",
            "tokens_in",
            "tokens_out",
            "tokens_spent_in",
            "tokens_spent_out",
            "cached_tokens_in",
            "cache_hit_rate",
            "cut_off_rate",
            "cost_usd",
            "budget_tokens",
            "budget_usd",
            "metric_sums",
            "created_at",
            "started_at",
            "finished_at",
            "moderation",
            "moderation_reason",
            "harness",
            "protocol",
            "takedown",
        ]

    def get_takedown(self, run) -> dict | None:
        notice = takedown_notice(run.submission, run)
        return notice.to_json() if notice else None

    def get_harness(self, run) -> dict:
        return harness_json(run)

    def get_protocol(self, run) -> dict:
        """Paper preset or custom, with temperature, max tokens, episodes and parsing
        (arena.protocol): a custom run is never ranked against the comparable ones."""
        return row_protocol([run]).to_json()

    def _progress(self, run) -> RunProgress:
        # Read once per run for the three fields that show it.
        cached = getattr(run, "_progress_read", None)
        if cached is None:
            cached = run._progress_read = run_progress(run)
        return cached

    def get_progress(self, run) -> float:
        return self._progress(run).percent

    def get_steps_running(self, run) -> int:
        return self._progress(run).steps_running

    def get_step_limit(self, run) -> int | None:
        return self._progress(run).step_limit

    @extend_schema_field(MetricValueSerializer(allow_null=True))
    def get_primary_metric(self, run) -> dict | None:
        """The metric that ranks the run on its task's leaderboard (None for a task no
        longer in the catalogue)."""
        try:
            metric = suite_of(run.task).primary_metric
        except KeyError:
            return None
        return _metric_value_serializer().to_representation(metric_value(run, metric))

    def get_url(self, run) -> str:
        return run.get_absolute_url()

    def get_api_url(self, run) -> str:
        return reverse("api:run-detail", args=[run.pk])


def episode_payload(episode_id: int) -> dict:
    return EpisodeSerializer(episode_with_run(episode_id)).data


@dataclasses.dataclass
class StepPage:
    results: list[dict]  # step previews, in index order
    more: bool  # steps after the last of `results` remain


def step_page(
    episode_id: int, after_index: int, max_steps: int, through_index: int | None = None, detailed: bool = False
) -> StepPage:
    """The previews of the steps after `after_index` (and up to `through_index`, when
    given: a window of the replay), at most `max_steps` of them and about
    STEP_PAGE_MAX_BYTES of JSON (at least one step): one page of the steps API, one
    batch of the live channel. Steps' errors are in full only when `detailed` (the
    reader may see the endpoint: arena.endpoints.public_errors)."""
    results: list[dict] = []
    size = 1_000  # room for the page's own fields (count, next) and the commas
    for step in steps_after(episode_id, after_index, through_index, chunk=STEP_READ_CHUNK):
        if len(results) == max_steps:
            return StepPage(results, more=True)
        preview = step_preview(step, detailed)
        preview_size = json_size(preview)
        if results and size + preview_size > STEP_PAGE_MAX_BYTES:
            return StepPage(results, more=True)
        results.append(preview)
        size += preview_size + 1
    return StepPage(results, more=False)
