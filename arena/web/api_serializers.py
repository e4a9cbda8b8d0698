"""The write API's serializers: a submission (with the tasks, suites, paper protocol and
episodes it asks for) and an experiment, validated by arena.web.validation's rules (the
same the form keeps) and created through arena.services; and the fields the OpenAPI
schema describes (drf-spectacular)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from arena.endpoints.privacy import can_see_endpoint, hide_endpoint_in
from arena.models import Experiment, Submission
from arena.moderation import TakenDown, refuse_if_taken_down
from arena.selectors import takedown_notice
from arena.services.queued_cap import QueuedCapReached
from arena.services.submissions import (
    PAPER_EPISODES_PER_RUN,
    experiment_create,
    experiment_run_specs,
    submission_create,
)
from arena.web import preset_choice
from arena.web.unknown_fields import RejectsUnknownFields
from arena.web.validation import (
    MAX_DEMONSTRATIONS,
    SUBMISSION_LIMITS,
    check_endpoint,
    check_submission_fields,
    validate_api_key,
    validate_base_url,
)
from arena.web.task_choice import (
    MODE_CHOICES,
    MODE_VLM,
    check_episode_volume,
    check_queued_episodes,
    choose_task_variants,
    parse_task_variant,
    plan_runs,
    task_variant_choices,
    validate_suite_ids,
)
from envs.registry import all_suites, suite_of


def _django_validator(func):
    def run(value):
        try:
            return func(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None

    return run


class TaskVariantField(serializers.CharField):
    """A task and observation format, e.g. "lmact/gridworld:ascii", checked by
    arena.web.task_choice.parse_task_variant (which explains what is wrong with a bad one)."""


class TaskVariantFieldSchema(OpenApiSerializerFieldExtension):
    """TaskVariantField in the schema: the list of every task and format, made when the
    schema is (the task registry is not loaded at import)."""

    target_class = TaskVariantField

    def map_serializer_field(self, auto_schema, direction):
        return {"type": "string", "enum": task_variant_values()}


# The schema's names of choice sets used by several fields (settings.SPECTACULAR_SETTINGS
# ENUM_NAME_OVERRIDES): one name each, instead of a warning and a made-up name.
def task_variant_values() -> list[str]:
    return [value for value, _label in task_variant_choices()]


@extend_schema_field(OpenApiTypes.URI)
class EndpointURLField(serializers.CharField):
    """An http(s) URL, checked against the URL guard by arena.web.validation.validate_base_url."""


@extend_schema_field({"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "boolean"}]})
class PaperProtocolField(serializers.Field):
    """The suites played as in their paper: a list of suite ids, or true / false."""

    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        if isinstance(data, list) and all(isinstance(item, str) for item in data):
            return data
        raise serializers.ValidationError("A list of suite ids, or true (every chosen suite with a preset) or false.")

    def to_representation(self, value):
        return value


class SubmissionSerializer(RejectsUnknownFields, serializers.ModelSerializer):
    """A submission. `api_key` is write-only: it is stored encrypted and never returned."""

    FIELD_ALIASES = {"num_episodes": "episodes_per_task", "episodes": "episodes_per_task", "task": "tasks",
                     "suite": "suites", "key": "api_key"}

    api_key = serializers.CharField(write_only=True, required=False, allow_blank=True, default="", trim_whitespace=True)
    tasks = serializers.ListField(
        child=TaskVariantField(), write_only=True, required=False, default=list,
        help_text='Task and observation format, e.g. ["lmact/gridworld:ascii", "lmact/tictactoe:rgb"]; '
        "with `suites`, at least one of the two.",
    )
    suites = serializers.ListField(
        child=serializers.CharField(), write_only=True, required=False, default=list,
        help_text="Whole suites (ids from GET /api/submissions/catalogue/): every task in every format `mode` allows.",
    )
    mode = serializers.ChoiceField(
        choices=MODE_CHOICES, write_only=True, required=False, default=MODE_VLM,
        help_text="llm: text observations only (image formats refused, left out of whole suites); vlm: all formats.",
    )
    paper_protocol = PaperProtocolField(
        write_only=True, required=False,
        help_text="Suites whose runs play their paper preset (its settings and episodes: comparable rows), as "
        "a list of suite ids, or true (every chosen suite with a preset) or false (none: custom rows, listed "
        "apart). Left out: every chosen suite with a preset plays it, as the form's default, except a suite "
        "whose preset a field this request sets would contradict. A field this request sets that a listed "
        "suite's preset would change is refused (400), never overridden; see the catalogue for what each "
        "preset fixes.",
    )
    episodes_per_task = serializers.IntegerField(
        write_only=True, min_value=1, default=10, help_text="Per run, for the suites not in `paper_protocol`."
    )
    task_settings = serializers.JSONField(
        write_only=True, required=False,
        help_text="Settings of chosen tasks: {task id: {setting: value}}, from the task's settings; and, for an "
        "option the task sweeps (the catalogue's `sweeps`), the values to play: {task id: {option: [values]}} "
        "(e.g. {\"infogather/conjunction\": {\"num_colours\": [3]}}); a swept option left out plays every value. "
        "Suites in `paper_protocol` play every value.",
    )
    # The numeric settings take their limits from the table the form uses too.
    temperature = serializers.FloatField(default=0.0, **SUBMISSION_LIMITS["temperature"])
    max_tokens = serializers.IntegerField(default=2048, **SUBMISSION_LIMITS["max_tokens"])
    reasoning_effort = serializers.ChoiceField(
        choices=Submission.REASONING_EFFORT_CHOICES, default="", allow_blank=True,
        help_text="Reasoning models: none, low, medium, high or max, sent in the provider's own parameter.",
    )
    thinking_budget_tokens = serializers.IntegerField(
        required=False, allow_null=True, help_text="Instead of an effort: a thinking budget in tokens.",
        **SUBMISSION_LIMITS["thinking_budget_tokens"],
    )
    num_demonstrations = serializers.IntegerField(default=0, **SUBMISSION_LIMITS["num_demonstrations"])
    history_window = serializers.IntegerField(
        default=16, help_text="Multi-turn suites: how many recent observations the model sees (BALROG uses 16).",
        **SUBMISSION_LIMITS["history_window"],
    )
    context_window = serializers.IntegerField(
        required=False, allow_null=True, help_text="Used when the server does not report its own.",
        **SUBMISSION_LIMITS["context_window"],
    )
    price_input_per_mtok = serializers.DecimalField(
        required=False, allow_null=True, **SUBMISSION_LIMITS["price_input_per_mtok"]
    )
    price_output_per_mtok = serializers.DecimalField(
        required=False, allow_null=True, **SUBMISSION_LIMITS["price_output_per_mtok"]
    )
    price_cached_input_per_mtok = serializers.DecimalField(
        required=False, allow_null=True, help_text="Input served from the provider's prompt cache; null: full price.",
        **SUBMISSION_LIMITS["price_cached_input_per_mtok"],
    )
    budget_tokens_per_run = serializers.IntegerField(
        required=False, allow_null=True, **SUBMISSION_LIMITS["budget_tokens_per_run"]
    )
    budget_usd_per_run = serializers.DecimalField(required=False, allow_null=True, **SUBMISSION_LIMITS["budget_usd_per_run"])
    base_url = EndpointURLField(
        max_length=500, help_text="The endpoint's address: returned to the submission's owner (and staff) only.",
    )
    model = serializers.CharField(
        max_length=200, required=False, allow_blank=True, default="",
        help_text="The model name sent in each request; agent endpoints need none.",
    )
    has_api_key = serializers.BooleanField(read_only=True)
    max_concurrent_requests = serializers.IntegerField(
        default=4, help_text="Calls in flight to this endpoint at once; keep 1–4 for a local server with one slot.",
        **SUBMISSION_LIMITS["max_concurrent_requests"],
    )
    endpoint_probe = serializers.JSONField(
        read_only=True, help_text="What the arena found out about the endpoint: context window, images, latency."
    )
    agent_secret = serializers.SerializerMethodField(
        help_text="Agent endpoints only, and only in the response that creates the submission: the HMAC signing secret."
    )
    runs = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    tokens = serializers.SerializerMethodField()
    takedown = serializers.SerializerMethodField(
        help_text="null, or when the operators took the submission down: status \"taken_down\", when (on), why "
        "(reason), what is kept and whom to contact. Only its owner and staff read a taken-down submission."
    )

    class Meta:
        model = Submission
        fields = [
            "id", "name", "kind", "policy", "provider", "base_url", "model", "api_key", "has_api_key", "agent_secret",
            "temperature", "max_tokens", "reasoning_effort", "thinking_budget_tokens", "num_demonstrations", "show_legal_actions", "chain_of_thought",
            "answer_markers", "lenient_parsing", "context_window", "history_window", "keep_reasoning", "self_correction", "reflection",
            "head_to_head", "price_input_per_mtok", "price_output_per_mtok", "price_cached_input_per_mtok", "budget_tokens_per_run", "budget_usd_per_run",
            "model_organisation", "model_release_date", "model_weights", "model_url",
            "strategy_label", "tasks", "suites", "mode", "paper_protocol", "episodes_per_task", "task_settings",
            "runs", "tokens", "created_at",
            "max_concurrent_requests", "endpoint_probe", "moderation", "moderation_reason", "takedown",
        ]
        read_only_fields = ["kind", "policy", "strategy_label", "created_at", "moderation", "moderation_reason"]

    def get_takedown(self, submission) -> dict | None:
        notice = takedown_notice(submission) if submission.pk else None
        return notice.to_json() if notice else None

    def get_agent_secret(self, submission) -> str | None:
        return getattr(submission, "new_agent_secret", None)

    def to_representation(self, submission):
        """Everyone reads the provider, model and settings; only the owner and staff
        read the endpoint's address (arena.endpoints.privacy)."""
        data = super().to_representation(submission)
        request = self.context.get("request")
        if not can_see_endpoint(getattr(request, "user", None), submission):
            data.pop("base_url", None)
            # The probe's notes and errors may quote the address (an unreachable host).
            data["endpoint_probe"] = hide_endpoint_in(data.get("endpoint_probe"), submission.base_url)
        return data

    def get_tokens(self, submission) -> dict:
        """Tokens and cost spent by all of the submission's runs."""
        spent_in = sum(run.tokens_spent_in for run in submission.runs.all())
        spent_out = sum(run.tokens_spent_out for run in submission.runs.all())
        cached = sum(run.cached_tokens_in for run in submission.runs.all())
        written = sum(run.cache_write_tokens_in for run in submission.runs.all())
        return {"in": spent_in, "out": spent_out, "cached_in": cached, "cache_write_in": written,
                "cost_usd": submission.cost_usd(spent_in, spent_out, cached, written)}

    def validate(self, attrs):
        errors: dict[str, list[str]] = {}

        def add_error(field, message):
            errors.setdefault(field, []).append(message)

        variants = choose_task_variants(attrs, add_error)
        if variants is not None:
            self._choose_paper_protocol(attrs, variants, add_error)
        if variants is not None and not errors:
            self.planned_runs = plan_runs(attrs, variants, add_error)
        if variants is not None and not errors and self.planned_runs:
            try:
                check_queued_episodes(self.context["request"].user, self.planned_runs)
            except DjangoValidationError as exc:
                add_error("episodes_per_task", exc.messages[0])
        if errors:
            raise serializers.ValidationError(errors)
        attrs.setdefault("provider", Submission.PROVIDER_OPENAI)
        check_submission_fields(attrs, add_error)
        if errors:
            raise serializers.ValidationError(errors)
        # Only a submission that is otherwise valid is worth a call to its endpoint.
        probe = check_endpoint(attrs, add_error, task_variants=attrs.get("tasks"))
        if errors:
            raise serializers.ValidationError(errors)
        attrs["endpoint_probe"] = probe.to_json() if probe else None
        self.probe_result = probe
        return attrs

    def validate_base_url(self, value):
        return _django_validator(validate_base_url)(value)

    def validate_api_key(self, value):
        return _django_validator(validate_api_key)(value)

    def validate_tasks(self, value):
        return [_django_validator(parse_task_variant)(item) for item in value]

    def validate_suites(self, value):
        return _django_validator(validate_suite_ids)(value)

    def validate_paper_protocol(self, value):
        if isinstance(value, bool):
            return value
        return _django_validator(lambda ids: validate_suite_ids(ids, with_preset=True))(value)

    def _choose_paper_protocol(self, attrs, variants, add_error) -> None:
        """attrs["paper_protocol"] as the suites that play their preset (arena.web
        .preset_choice): the request's, refused where a field it sets contradicts a
        listed suite's preset; or, left out, the form's default."""
        sent = self.initial_data if isinstance(self.initial_data, dict) else {}
        chosen = {name: attrs[name] for name in preset_choice.LABELS if name in sent and name in attrs}
        offered = preset_choice.suites_with_preset(variants)
        given = attrs.get("paper_protocol")
        if given is None:
            conflicting = preset_choice.conflicting_suites(chosen, offered, variants)
            attrs["paper_protocol"] = [suite_id for suite_id in offered if suite_id not in conflicting]
            return
        suites = offered if given is True else [] if given is False else list(given)
        for field, messages in preset_choice.conflicts(chosen, suites, variants).items():
            add_error(field, " ".join(messages) + " " + preset_choice.how_to_choose("api"))
        attrs["paper_protocol"] = suites

    def validate_episodes_per_task(self, value):
        if value > settings.ARENA_MAX_EPISODES_PER_TASK:
            raise serializers.ValidationError(f"At most {settings.ARENA_MAX_EPISODES_PER_TASK} episodes per task.")
        return value

    def create(self, validated):
        api_key = validated.pop("api_key", "")
        for choice in ("tasks", "suites", "mode", "paper_protocol", "episodes_per_task", "task_settings"):
            validated.pop(choice, None)
        try:
            return submission_create(
                owner=self.context["request"].user, fields=validated, api_key=api_key, runs=self.planned_runs
            )
        except QueuedCapReached as exc:  # a submission sent at the same time took the room
            raise serializers.ValidationError({"episodes_per_task": exc.messages}) from None


class ExperimentSerializer(RejectsUnknownFields, serializers.ModelSerializer):
    """An LMAct experiment of a model submission; creating one queues its runs."""

    FIELD_ALIASES = {"episodes_per_task": "num_episodes", "tasks": "task"}

    task = TaskVariantField(help_text='Task and format, e.g. "lmact/gridworld:ascii".')
    num_episodes = serializers.IntegerField(
        write_only=True, min_value=1, default=PAPER_EPISODES_PER_RUN,
        help_text="Episodes per run; the paper's 100 by default (LMAct §2.4).",
    )
    max_demonstrations = serializers.IntegerField(write_only=True, min_value=0, max_value=MAX_DEMONSTRATIONS, default=0)
    runs = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    takedown = serializers.SerializerMethodField(
        help_text="null, or when the operators took its submission down: as the submission's `takedown`. Only its "
        "owner and staff read an experiment of a taken-down submission."
    )

    class Meta:
        model = Experiment
        fields = ["id", "kind", "submission", "task", "format", "config", "num_episodes", "max_demonstrations", "runs",
                  "created_at", "takedown"]
        read_only_fields = ["format", "config", "created_at"]

    def get_takedown(self, experiment) -> dict | None:
        notice = takedown_notice(experiment.submission) if experiment.pk else None
        return notice.to_json() if notice else None

    def validate_task(self, value):
        task_id, fmt = _django_validator(parse_task_variant)(value)
        if not suite_of(task_id).experiments:
            with_experiments = " and ".join(s.title for s in all_suites().values() if s.experiments)
            raise serializers.ValidationError(f"Experiments are defined for {with_experiments} tasks.")
        return task_id, fmt

    def validate_submission(self, submission):
        if submission.is_baseline or submission.owner_id != self.context["request"].user.pk:
            raise serializers.ValidationError("You can run experiments on your own model submissions only.")
        try:
            refuse_if_taken_down(submission)
        except TakenDown as refusal:
            raise serializers.ValidationError(str(refusal)) from None
        return submission

    def validate_num_episodes(self, value):
        if value > settings.ARENA_MAX_EPISODES_PER_TASK:
            raise serializers.ValidationError(f"At most {settings.ARENA_MAX_EPISODES_PER_TASK} episodes per run.")
        return value

    def validate(self, attrs):
        task_id, fmt = attrs["task"]
        runs = experiment_run_specs(
            kind=attrs["kind"], task=task_id, format=fmt, num_episodes=attrs["num_episodes"],
            max_demonstrations=attrs["max_demonstrations"],
        )
        try:
            check_episode_volume(runs, what="experiment")
            check_queued_episodes(self.context["request"].user, runs, what="experiment")
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"num_episodes": exc.messages}) from None
        return attrs

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["task"] = instance.task
        return data

    def create(self, validated):
        task_id, fmt = validated["task"]
        try:
            return experiment_create(
                validated["submission"], kind=validated["kind"], task=task_id, format=fmt,
                num_episodes=validated["num_episodes"], max_demonstrations=validated["max_demonstrations"],
            )
        except QueuedCapReached as exc:  # a submission sent at the same time took the room
            raise serializers.ValidationError({"num_episodes": exc.messages}) from None
        except TakenDown as refusal:  # taken down since it was validated
            raise serializers.ValidationError({"submission": [str(refusal)]}) from None
