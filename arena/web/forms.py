"""The write side's other forms: signing up and in, an experiment, an endpoint's edit; and
the base of the forms a refusal can close (RefusableForm). The submission form is
arena.web.submission_form."""

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.forms.utils import ErrorDict

from arena.clients.reasoning_params import ReasoningSetting, reasoning_problems
from arena.models import Submission
from arena.services.submissions import PAPER_EPISODES_PER_RUN, experiment_run_specs
from arena.web.validation import (
    MAX_DEMONSTRATIONS,
    check_endpoint,
    validate_api_key,
    validate_base_url,
    validate_model_name,
)
from arena.web.task_choice import (
    check_episode_volume,
    check_queued_episodes,
    parse_task_variant,
    task_variant_choices,
)
from envs.registry import suite_of


class SignUpForm(UserCreationForm):
    pass


class LoginForm(AuthenticationForm):
    """Django's login form; when the lock-out (arena.web.login_lockout) refused to check the
    password, it says so instead of "wrong password"."""

    def get_invalid_login_error(self):
        refusal = getattr(self.request, "login_refusal", None)
        if refusal is not None:
            return forms.ValidationError(str(refusal), code="throttled")
        return super().get_invalid_login_error()


class RefusableForm(forms.Form):
    """A form whose request may be refused before any work is done (a rate limit): it
    then shows the refusal, keeps what the user typed, and validates nothing (no DNS
    look-up, no endpoint probe)."""

    def __init__(self, *args, refusal: str | None = None, owner=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.refusal = refusal
        self.owner = owner  # whose queued episodes count against the cap (check_queued_episodes)

    def full_clean(self):
        if self.refusal is None:
            return super().full_clean()
        self._errors = ErrorDict()
        self.cleaned_data = {}
        self.add_error(None, self.refusal)


class ExperimentForm(RefusableForm):
    """An LMAct experiment for an existing model submission (LMAct §3.2, App. C)."""

    kind = forms.ChoiceField(choices=())
    task = forms.ChoiceField(choices=(), label="Task and format")
    episodes = forms.IntegerField(initial=PAPER_EPISODES_PER_RUN, min_value=1, label="Episodes per run")
    max_demonstrations = forms.IntegerField(
        initial=16, min_value=0, max_value=MAX_DEMONSTRATIONS, required=False, label="Most demonstrations (sweep)",
        help_text="The sweep runs 0, 1, 2, 4, … up to this; the context window may cap each episode further.",
    )

    def __init__(self, *args, **kwargs):
        from arena.models import Experiment

        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = Experiment.KIND_CHOICES
        self.fields["task"].choices = [
            (value, label) for value, label in task_variant_choices() if suite_of(value.partition(":")[0]).experiments
        ]
        self.fields["episodes"] = forms.IntegerField(
            initial=PAPER_EPISODES_PER_RUN, min_value=1, max_value=settings.ARENA_MAX_EPISODES_PER_TASK,
            label="Episodes per run",
            help_text=f"The paper evaluates {PAPER_EPISODES_PER_RUN} episodes per point (LMAct §2.4); fewer cost less.",
        )

    def clean_task(self):
        return parse_task_variant(self.cleaned_data["task"])

    def clean(self):
        cleaned = super().clean()
        if {"kind", "task", "episodes"} <= cleaned.keys():
            task_id, fmt = cleaned["task"]
            runs = experiment_run_specs(
                kind=cleaned["kind"], task=task_id, format=fmt, num_episodes=cleaned["episodes"],
                max_demonstrations=cleaned.get("max_demonstrations") or 0,
            )
            try:
                check_episode_volume(runs, what="experiment")
                check_queued_episodes(self.owner, runs, what="experiment")
            except forms.ValidationError as exc:
                self.add_error("episodes", exc)
        return cleaned


class EndpointForm(forms.Form):
    """Fix where a submission's calls go; the endpoint is probed before anything changes."""

    base_url = forms.CharField(max_length=500, label="Base URL")
    model = forms.CharField(max_length=200, required=False)
    api_key = forms.CharField(
        required=False, widget=forms.PasswordInput(render_value=False), label="New API key",
        help_text="Leave empty to keep the current key.",
    )

    def __init__(self, *args, submission, **kwargs):
        kwargs.setdefault("initial", {"base_url": submission.base_url, "model": submission.model})
        super().__init__(*args, **kwargs)
        self.submission = submission
        self.probe = None

    def clean_base_url(self):
        return validate_base_url(self.cleaned_data["base_url"])

    def clean_api_key(self):
        return validate_api_key(self.cleaned_data["api_key"])

    def clean(self):
        cleaned = super().clean()
        submission = self.submission
        if submission.provider != Submission.PROVIDER_AGENT and "model" in cleaned:
            try:
                cleaned["model"] = validate_model_name(cleaned["model"])
            except forms.ValidationError as exc:
                self.add_error("model", exc)
        if not self.errors:
            self._check_reasoning_still_holds(cleaned)
        if not self.errors:
            fields = {**cleaned, "provider": submission.provider, "context_window": submission.context_window}
            key = cleaned.get("api_key") or submission.get_api_key()
            tasks = [(run.task, run.format) for run in submission.runs.all()]
            self.probe = check_endpoint(fields, self.add_error, task_variants=tasks, api_key=key)
        return cleaned

    def _check_reasoning_still_holds(self, cleaned) -> None:
        """The reasoning setting was checked against the old endpoint and model; a new
        model can break its provider's rules (e.g. a fixed thinking budget on an Anthropic
        model that takes only adaptive thinking), and this form cannot change the setting."""
        submission = self.submission
        setting = ReasoningSetting(effort=submission.reasoning_effort, budget_tokens=submission.thinking_budget_tokens)
        for _, message in reasoning_problems(
            submission.provider, cleaned.get("base_url") or "", cleaned.get("model") or "", setting,
            temperature=submission.temperature, max_tokens=submission.max_tokens,
        ):
            self.add_error(None, f"With this endpoint and model, the submission's reasoning setting no longer holds: {message}")
