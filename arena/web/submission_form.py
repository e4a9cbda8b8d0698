"""The submission form: an endpoint, its model and settings, the tasks to play and the
protocol to play them under (a paper preset or the submitter's own), checked with the rules
the API keeps (arena.web.validation), and grouped for the page's sections."""

from django import forms
from django.conf import settings

from arena.models import Submission
from arena.web import preset_choice
from arena.protocol import setting_text
from arena.web.catalogue import TaskSetting, submission_catalogue
from arena.web.forms import RefusableForm
from arena.web.validation import (
    SUBMISSION_LIMITS,
    check_endpoint,
    check_submission_fields,
    validate_api_key,
    validate_base_url,
)
from arena.web.task_choice import (
    MODE_CHOICES,
    MODE_LLM,
    MODE_VLM,
    check_queued_episodes,
    choose_task_variants,
    parse_task_variant,
    plan_runs,
    task_variant_choices,
)


DEFAULT_CONCURRENT_REQUESTS = 4


def concurrent_requests_field():
    return forms.IntegerField(
        required=False, initial=DEFAULT_CONCURRENT_REQUESTS, label="Concurrent requests",
        **SUBMISSION_LIMITS["max_concurrent_requests"],
        help_text="Calls in flight to this endpoint at once. A local server (llama.cpp, Ollama) with one slot "
        "queues the rest: keep 1–4 there; hosted APIs take 16–64.",
    )


class SubmissionForm(RefusableForm):
    """The submission form. The task choice is laid out from the suites' descriptors
    (arena.web.catalogue): per suite a "whole suite" toggle, "as in the paper", and each task
    with its formats and settings; `task_groups()` gives the template that layout with
    what is checked. Validation is arena.web.validation's, shared with the API."""

    name = forms.CharField(max_length=100, help_text="Shown on the leaderboard.")
    provider = forms.ChoiceField(
        choices=Submission.PROVIDER_CHOICES, initial=Submission.PROVIDER_OPENAI,
        help_text="The wire protocol of the endpoint. An agent endpoint receives signed JSON steps and answers with an action.",
    )
    base_url = forms.CharField(
        max_length=500,
        label="Base URL",
        help_text="OpenAI-compatible: BASE_URL/chat/completions · Responses API: BASE_URL/responses · Anthropic: BASE_URL/v1/messages · "
        "Gemini: BASE_URL/v1beta/models/MODEL:generateContent · agent endpoint: the URL the arena POSTs to.",
    )
    model = forms.CharField(max_length=200, required=False, help_text="Model name sent in each request.")
    api_key = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        label="API key",
        help_text="Stored encrypted and never shown again. Leave empty for endpoints without a key.",
    )
    temperature = forms.FloatField(initial=0.0, **SUBMISSION_LIMITS["temperature"])
    max_tokens = forms.IntegerField(
        initial=2048, label="Max tokens", **SUBMISSION_LIMITS["max_tokens"],
        help_text="The answer budget of each call (never more than a quarter of the context window).",
    )
    reasoning_effort = forms.ChoiceField(
        choices=Submission.REASONING_EFFORT_CHOICES, required=False, initial="", label="Reasoning effort",
        help_text="Reasoning models: how hard the model thinks, sent in the provider's own parameter "
        "(OpenAI reasoning_effort, Anthropic thinking, Gemini thinkingConfig, OpenRouter reasoning, "
        "enable_thinking for self-hosted Qwen3-style templates).",
    )
    thinking_budget_tokens = forms.IntegerField(
        required=False, label="Thinking budget (tokens)", **SUBMISSION_LIMITS["thinking_budget_tokens"],
        help_text="Instead of an effort, for the APIs that take a budget (Anthropic before Claude 4.6, Gemini, "
        "OpenRouter).",
    )
    mode = forms.ChoiceField(
        choices=MODE_CHOICES, initial=MODE_LLM, required=False, widget=forms.RadioSelect, label="Observations",
        help_text="LLM mode leaves the image formats out; VLM mode offers them too (BALROG reports the two apart).",
    )
    suites = forms.MultipleChoiceField(required=False, choices=())
    tasks = forms.MultipleChoiceField(required=False, choices=())
    paper_protocol = forms.MultipleChoiceField(required=False, choices=(), label="As in the paper")
    num_demonstrations = forms.IntegerField(
        initial=0, label="Demonstration episodes", **SUBMISSION_LIMITS["num_demonstrations"],
        help_text="Expert episodes placed in the prompt (LMAct §2.3).",
    )
    show_legal_actions = forms.BooleanField(required=False, initial=True, label="Show legal actions")
    chain_of_thought = forms.BooleanField(
        required=False, initial=False, label="Chain of thought", help_text="Reason first, then answer (otherwise: naive, answer only)."
    )
    history_window = forms.IntegerField(
        initial=16, label="History window", **SUBMISSION_LIMITS["history_window"],
        help_text="Multi-turn suites: how many recent observations the model sees (BALROG uses 16).",
    )
    answer_markers = forms.BooleanField(
        required=False, initial=False, label="Answer between markers (robust)",
        help_text="BALROG's robust agents: the action goes between explicit markers, for models that add other text to their answers.",
    )
    lenient_parsing = forms.BooleanField(
        required=False, initial=False, label="Lenient answer parsing",
        help_text="Read the action leniently (any case of “ACTION:”, the last marker pair, spaces trimmed) instead of "
        "exactly as BALROG's agents read it. Not BALROG's protocol: the paper preset turns it off.",
    )
    keep_reasoning = forms.BooleanField(
        required=False, label="Keep own reasoning in context", help_text="Earlier replies are kept whole, not reduced to the action."
    )
    self_correction = forms.BooleanField(
        required=False, label="Self-correction", help_text="A second call checks and revises each answer (two calls per step)."
    )
    head_to_head = forms.BooleanField(
        required=False, initial=False, label="Head-to-head matches",
        help_text="Also play chess, tic-tac-toe and Connect Four against the other opted-in submissions and the "
        "baselines (Stockfish, a perfect tic-tac-toe player, a Connect Four searcher, random moves), for the "
        "ratings. The worker schedules the matches by itself, the first within a minute, within your endpoint's "
        "concurrent requests and the token budget per run.",
    )
    reflection = forms.ChoiceField(
        choices=Submission.REFLECTION_CHOICES, initial=Submission.REFLECTION_NONE, label="Reflection (multi-turn suites)",
        help_text="After each episode the model writes a reflection that is given at the start of the next; episodes then play one at a time.",
    )
    price_input_per_mtok = forms.DecimalField(
        required=False, label="Price per million input tokens (USD)", **SUBMISSION_LIMITS["price_input_per_mtok"],
        help_text="With prices, the preview estimates the cost. Empty: a well-known hosted model is costed at the "
        "arena's price catalogue (its list price, dated); your prices win.",
    )
    price_output_per_mtok = forms.DecimalField(
        required=False, label="Price per million output tokens (USD)", **SUBMISSION_LIMITS["price_output_per_mtok"]
    )
    price_cached_input_per_mtok = forms.DecimalField(
        required=False, label="Price per million cached input tokens (USD)",
        **SUBMISSION_LIMITS["price_cached_input_per_mtok"],
        help_text="Input the provider serves from its prompt cache; empty: the full input price.",
    )
    model_organisation = forms.CharField(
        required=False, max_length=100, label="Organisation", help_text="Who made the model (shown on its rows).",
    )
    model_release_date = forms.DateField(
        required=False, label="Release date", widget=forms.DateInput(attrs={"type": "date"}),
    )
    model_weights = forms.ChoiceField(
        required=False, choices=Submission.WEIGHTS_CHOICES, initial="", label="Weights",
    )
    model_url = forms.URLField(
        required=False, max_length=500, label="Link", help_text="A page about the model.", assume_scheme="https",
    )
    budget_tokens_per_run = forms.IntegerField(
        required=False, label="Token budget per run", **SUBMISSION_LIMITS["budget_tokens_per_run"]
    )
    budget_usd_per_run = forms.DecimalField(
        required=False, label="Cost budget per run (USD)", **SUBMISSION_LIMITS["budget_usd_per_run"],
        help_text="A run that reaches a budget stops cleanly with the status “budget exhausted”.",
    )

    # Shown under "Advanced" (a <details>), which opens when one of them has an error.
    ADVANCED_FIELDS = (
        "answer_markers", "lenient_parsing", "keep_reasoning", "self_correction", "reflection", "context_window",
        "max_concurrent_requests", "price_input_per_mtok", "price_output_per_mtok", "price_cached_input_per_mtok",
        "budget_tokens_per_run",
        "budget_usd_per_run",
    )
    ENDPOINT_FIELDS = (
        "name", "provider", "base_url", "model", "api_key", "temperature", "max_tokens", "reasoning_effort",
        "thinking_budget_tokens",
    )
    MODEL_FIELDS = ("model_organisation", "model_release_date", "model_weights", "model_url")
    OWN_PROTOCOL_FIELDS = ("episodes_per_task", "num_demonstrations", "show_legal_actions", "chain_of_thought", "history_window")

    def __init__(self, *args, known_probe=None, **kwargs):
        super().__init__(*args, **kwargs)
        # cleaned data -> a probe result already made for that endpoint, or None (the view's).
        self.known_probe = known_probe
        self.catalogue = submission_catalogue()
        self.fields["suites"].choices = [(suite.id, suite.title) for suite in self.catalogue]
        self.fields["tasks"].choices = task_variant_choices()
        with_preset = [(suite.id, suite.title) for suite in self.catalogue if suite.preset]
        self.fields["paper_protocol"].choices = with_preset
        self.fields["paper_protocol"].initial = [suite_id for suite_id, _ in with_preset]
        # The operator's limit is a setting, so the field is built here rather than above.
        self.fields["episodes_per_task"] = forms.IntegerField(
            initial=10, min_value=1, max_value=settings.ARENA_MAX_EPISODES_PER_TASK, label="Episodes per task",
            help_text="Per run, for the suites not played as in their paper.",
        )
        self.fields["context_window"] = forms.IntegerField(
            required=False, label="Context window (tokens)", **SUBMISSION_LIMITS["context_window"],
            help_text="Used when the server does not report its own (vLLM, llama.cpp, Ollama, OpenRouter and "
            "Gemini do). Prompts are fitted to it: demonstrations and the oldest steps that do not fit are left "
            "out, and each episode says so.",
        )
        self.fields["max_concurrent_requests"] = concurrent_requests_field()
        # One choice per task setting (Task.settings), the paper's value first and preselected.
        self.setting_fields: dict[str, list[tuple[str, TaskSetting]]] = {}
        self.sweep_fields: dict[str, list[tuple[str, TaskSetting]]] = {}
        for suite in self.catalogue:
            for task in suite.tasks:
                for setting in task.settings:
                    field_name = f"setting--{task.id}--{setting.name}"
                    self.fields[field_name] = forms.TypedChoiceField(
                        label=setting.label, coerce=int, initial=0, required=False, empty_value=0,
                        choices=[
                            (index, setting_text(value) + (" (paper)" if index == 0 else ""))
                            for index, value in enumerate(setting.values)
                        ],
                    )
                    self.setting_fields.setdefault(task.id, []).append((field_name, setting))
                # The values of each swept option, all ticked: a first try may play fewer.
                for sweep in task.sweeps:
                    field_name = f"sweep--{task.id}--{sweep.name}"
                    choices = [(str(index), setting_text(value)) for index, value in enumerate(sweep.values)]
                    self.fields[field_name] = forms.MultipleChoiceField(
                        label=sweep.label, choices=choices, required=False, initial=[c for c, _ in choices],
                        widget=forms.CheckboxSelectMultiple,
                    )
                    self.sweep_fields.setdefault(task.id, []).append((field_name, sweep))
        self.probe = None
        self.runs = None

    def clean_base_url(self):
        return validate_base_url(self.cleaned_data["base_url"])

    def clean_api_key(self):
        return validate_api_key(self.cleaned_data["api_key"])

    def clean_max_concurrent_requests(self):
        return self.cleaned_data.get("max_concurrent_requests") or DEFAULT_CONCURRENT_REQUESTS

    def clean_tasks(self):
        return [parse_task_variant(value) for value in self.cleaned_data["tasks"]]

    def clean(self):
        cleaned = super().clean()
        check_submission_fields(cleaned, self.add_error)
        if {"tasks", "suites", "mode", "paper_protocol", "episodes_per_task"} <= cleaned.keys():
            variants = choose_task_variants(cleaned, self._add_error)
            if variants is not None:
                cleaned["task_settings"] = self._chosen_settings({task_id for task_id, _ in variants})
                self._check_preset_against_choices(cleaned, variants)
            if variants is not None and not self.errors:
                self.runs = plan_runs(cleaned, variants, self._add_error)
        if self.runs and not self.errors:
            try:
                check_queued_episodes(self.owner, self.runs)
            except forms.ValidationError as exc:
                self.add_error("episodes_per_task", exc)
        if not self.errors:
            # Only a submission that is otherwise valid is worth a call to its endpoint.
            known = self.known_probe(cleaned) if self.known_probe else None
            self.probe = check_endpoint(cleaned, self.add_error, task_variants=cleaned.get("tasks"), known=known)
        return cleaned

    def _check_preset_against_choices(self, cleaned, variants) -> None:
        """The pre-ticked "As in the paper" never overrides a setting the submitter
        changed (arena.web.preset_choice): where they disagree, the form says so, naming
        the setting, both values and the two ways out, and nothing is queued."""
        chosen = {
            name: cleaned[name] for name in preset_choice.LABELS if name in self.changed_data and name in cleaned
        }
        found = preset_choice.conflicts(chosen, cleaned.get("paper_protocol") or (), variants)
        for field, messages in found.items():
            self.add_error(field, " ".join(messages) + " " + preset_choice.how_to_choose("form"))

    def _add_error(self, field, message):
        # The shared checks name the API's fields; this form spreads task settings
        # over one field per setting, so their errors go to the top.
        self.add_error(field if field in self.fields else None, message)

    def _chosen_settings(self, chosen: set[str]) -> dict[str, dict]:
        """{task id: {setting: value}} for the chosen tasks whose setting is not the
        paper's (the run then plays the task's default, which is the paper's)."""
        chosen_settings: dict[str, dict] = {}
        for task_id, fields in self.setting_fields.items():
            for field_name, setting in fields:
                index = self.cleaned_data.get(field_name) or 0
                if task_id in chosen and 0 < index < len(setting.values):
                    chosen_settings.setdefault(task_id, {})[setting.name] = setting.values[index]
        # A swept option with some of its values ticked plays those; none ticked (or a
        # form that does not send the field) plays them all.
        for task_id, fields in self.sweep_fields.items():
            for field_name, sweep in fields:
                ticked = {int(index) for index in self.cleaned_data.get(field_name) or ()}
                if task_id in chosen and ticked and len(ticked) < len(sweep.values):
                    chosen_settings.setdefault(task_id, {})[sweep.name] = [
                        value for index, value in enumerate(sweep.values) if index in ticked
                    ]
        return chosen_settings

    # -- layout ---------------------------------------------------------------------
    def task_groups(self) -> list[dict]:
        """The task choice per suite for the template, with what is checked."""
        chosen_tasks = set(self["tasks"].value() or [])
        whole = set(self["suites"].value() or [])
        paper = set(self["paper_protocol"].value() or [])
        groups = []
        for suite in self.catalogue:
            tasks = [
                {
                    "task": task,
                    "formats": [
                        {"value": f"{task.id}:{fmt}", "name": fmt, "image": fmt in task.image_formats,
                         "checked": f"{task.id}:{fmt}" in chosen_tasks}
                        for fmt in task.formats
                    ],
                    "settings": [self[field_name] for field_name, _ in self.setting_fields.get(task.id, [])],
                    "sweeps": [self[field_name] for field_name, _ in self.sweep_fields.get(task.id, [])],
                    "image_only": set(task.formats) == set(task.image_formats),
                }
                for task in suite.tasks
            ]
            groups.append({"suite": suite, "whole": suite.id in whole, "paper": suite.id in paper, "tasks": tasks})
        return groups

    def bound_fields(self, names) -> list:
        return [self[name] for name in names]

    @property
    def endpoint_fields(self):
        return self.bound_fields(self.ENDPOINT_FIELDS)

    @property
    def model_fields(self):
        return self.bound_fields(self.MODEL_FIELDS)

    @property
    def own_protocol_fields(self):
        return self.bound_fields(self.OWN_PROTOCOL_FIELDS)

    @property
    def advanced_fields(self):
        return self.bound_fields(self.ADVANCED_FIELDS)

    @property
    def advanced_open(self) -> bool:
        """Open when one of the advanced fields has an error or a value of its own, so
        neither is hidden after a preview."""
        for name in self.ADVANCED_FIELDS:
            field = self[name]
            initial = self.fields[name].initial
            if name in self.errors or field.value() not in (None, "", False, initial, str(initial)):
                return True
        return False

    @property
    def image_mode(self) -> bool:
        return (self["mode"].value() or MODE_VLM) == MODE_VLM
