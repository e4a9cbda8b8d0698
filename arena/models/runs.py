"""Runs (a submission × task × variant × seeds, with the aggregates the leaderboards read)
and the experiments that group them."""

import math

from django.db import models
from django.urls import reverse

from arena.models.moderation import Moderated
from arena.models.submissions import Submission
from envs import harness


class Experiment(models.Model):
    """A group of runs that answer one question (LMAct §3.2, App. C.2, C.4)."""

    SWEEP, ABLATION, REPLAY = "sweep", "ablation", "replay"
    KIND_CHOICES = [
        (SWEEP, "Sweep over the number of demonstrations"),
        (ABLATION, "Ablation: legal actions × chain of thought"),
        (REPLAY, "Replay control (teacher-forced copy of one demonstration)"),
    ]

    kind = models.CharField(max_length=16, choices=KIND_CHOICES)
    submission = models.ForeignKey(Submission, related_name="experiments", on_delete=models.CASCADE)
    task = models.CharField(max_length=100)
    format = models.CharField(max_length=32)
    config = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.get_kind_display()} of {self.submission} on {self.task} ({self.format})"

    def get_absolute_url(self):
        return reverse("leaderboard:experiment", args=[self.pk])


class Run(Moderated):
    """A submission × task × variant × set of seeds, with its aggregates."""

    QUEUED, RUNNING, FINISHED, FAILED = "queued", "running", "finished", "failed"
    BUDGET_EXHAUSTED = "budget exhausted"
    CANCELLED = "cancelled"
    STATUS_CHOICES = [(s, s) for s in (QUEUED, RUNNING, FINISHED, FAILED, BUDGET_EXHAUSTED, CANCELLED)]
    # Statuses after which nothing more happens to the run unless a submitter acts.
    TERMINAL = (FINISHED, FAILED, BUDGET_EXHAUSTED, CANCELLED)

    submission = models.ForeignKey(Submission, related_name="runs", on_delete=models.CASCADE)
    experiment = models.ForeignKey(Experiment, related_name="runs", null=True, blank=True, on_delete=models.SET_NULL)
    task = models.CharField(max_length=100, db_index=True)
    # Observation format and the strategy settings in force (copied from the submission so
    # a run stays interpretable): {"format", "num_demonstrations", "show_legal_actions",
    # "chain_of_thought"}.
    variant = models.JSONField(default=dict)
    first_seed = models.BigIntegerField(default=0)
    num_episodes = models.PositiveIntegerField()
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default=QUEUED, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Budget (copied from the submission) and what has been spent so far, counted per
    # step so a run stops as soon as it is reached.
    budget_tokens = models.PositiveBigIntegerField(null=True, blank=True)
    budget_usd = models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)
    tokens_spent_in = models.BigIntegerField(default=0)
    tokens_spent_out = models.BigIntegerField(default=0)
    cached_tokens_in = models.BigIntegerField(default=0)
    # The part of tokens_spent_in written into the provider's prompt cache (Anthropic).
    cache_write_tokens_in = models.BigIntegerField(default=0)
    # Aggregates, updated atomically by services.episode_finish.
    episodes_done = models.PositiveIntegerField(default=0)
    episodes_failed = models.PositiveIntegerField(default=0)
    score_sum = models.FloatField(default=0.0)
    score_sq_sum = models.FloatField(default=0.0)
    steps_total = models.PositiveIntegerField(default=0)
    illegal_total = models.PositiveIntegerField(default=0)
    # Steps whose answer reached the token limit ("answer cut off"), counted apart from
    # illegal actions: the suite's rule for a missing action still decided what was
    # executed, but the model never finished answering.
    cut_off_total = models.PositiveIntegerField(default=0)
    # The reasoning part of tokens_out (priced as output, as every provider bills it).
    reasoning_tokens = models.BigIntegerField(default=0)
    # Sum over finished episodes of each episode's illegal-step fraction (LMAct App. C.3
    # plots the average per-episode percentage).
    illegal_fraction_sum = models.FloatField(default=0.0)
    tokens_in = models.BigIntegerField(default=0)
    tokens_out = models.BigIntegerField(default=0)
    # Episodes whose illegal fraction is in illegal_fraction_sum: every finished one, and
    # every failed or cut-short one that played at least a step.
    illegal_episodes = models.PositiveIntegerField(default=0)
    # Model calls and their summed latency (for the endpoint's measured speed).
    model_calls = models.BigIntegerField(default=0)
    model_latency_ms = models.FloatField(default=0.0)
    # Sums of the suite's per-episode metrics (see arena.metrics.fold).
    metric_sums = models.JSONField(default=dict, blank=True)
    # A baseline run whose figures (the aggregates above) were shipped with the arena
    # rather than played here: where they come from (arena.services.baseline_figures). Its few
    # episode rows are replays played on first start; they do not change the figures.
    shipped_figures = models.JSONField(null=True, blank=True)
    # The harness version it was played under (envs.harness): set when the run is
    # created, from its suite's current version unless the creator says otherwise
    # (shipped figures carry theirs, imports are marked imported).
    harness_version = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["task", "status"])]

    def __str__(self):
        return f"run {self.pk}: {self.submission} on {self.task} ({self.format})"

    def save(self, *args, **kwargs):
        if not self.harness_version:
            self.harness_version = harness.version_for_task(self.task)
        super().save(*args, **kwargs)

    @property
    def settings(self):
        """The variant as a typed value (arena.variant.Variant)."""
        from arena.variant import Variant

        return Variant.of(self)

    @property
    def format(self) -> str:
        return self.settings.format

    @property
    def options(self) -> dict:
        return self.settings.options

    @property
    def num_demonstrations(self) -> int:
        return self.settings.num_demonstrations

    @property
    def progress(self) -> float:
        if not self.num_episodes:
            return 0.0
        return 100.0 * (self.episodes_done + self.episodes_failed) / self.num_episodes

    @property
    def score_mean(self) -> float | None:
        if not self.episodes_done:
            return None
        return self.score_sum / self.episodes_done

    @property
    def score_stderr(self) -> float | None:
        n = self.episodes_done
        if n < 2:
            return None
        mean = self.score_sum / n
        variance = max(0.0, (self.score_sq_sum - n * mean * mean) / (n - 1))
        return math.sqrt(variance / n)

    @property
    def cost_usd(self) -> float | None:
        return self.cost_at(self.submission)

    def cost_at(self, submission: Submission) -> float | None:
        """`cost_usd` at the prices of `submission`, the run's own, given by a caller that
        holds it: a board costs a thousand runs, and reaching each one's submission
        through the relation cost more than the pricing."""
        return submission.cost_usd(self.tokens_spent_in, self.tokens_spent_out, self.cached_tokens_in,
                                   self.cache_write_tokens_in)

    @property
    def cache_hit_rate(self) -> float | None:
        """The share of the input served from the provider's prompt cache (None before
        any input was counted)."""
        if not self.tokens_spent_in:
            return None
        return min(1.0, self.cached_tokens_in / self.tokens_spent_in)

    @property
    def budget_reached(self) -> bool:
        if self.budget_tokens is not None and self.tokens_spent_in + self.tokens_spent_out >= self.budget_tokens:
            return True
        cost = self.cost_usd
        return self.budget_usd is not None and cost is not None and cost >= float(self.budget_usd)

    @property
    def cut_off_rate(self) -> float | None:
        """The share of played steps whose answer was cut off by the token limit."""
        if not self.steps_total:
            return None
        return self.cut_off_total / self.steps_total

    @property
    def illegal_rate(self) -> float | None:
        """Mean over episodes of the fraction of illegal steps: finished ones, and failed
        or cut-short ones that played (what they did counts too)."""
        counted = self.illegal_episodes
        if not counted:
            return None
        return self.illegal_fraction_sum / counted

    def get_absolute_url(self):
        return reverse("leaderboard:run", args=[self.pk])
