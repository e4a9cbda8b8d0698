"""The write side's data: submissions, runs, episodes, steps and stored images.

Leaderboard numbers are aggregates kept on `Run` and updated when an episode finishes
(docs/design.md §3 "Data volume"), so pages never scan steps.
"""

import math

from django.conf import settings
from django.db import models
from django.urls import reverse

from arena import steptext
from arena.clients.reasoning_params import EFFORTS, ReasoningSetting
from arena.crypto import decrypt_secret, encrypt_secret
from arena.endpoint_url import STORED_MAX_LENGTH, EndpointURLField
from envs import harness

# Anthropic bills input written into its prompt cache with a 5-minute lifetime (the
# lifetime the arena's `cache_control` marks ask for) at 1.25 times the input price.
CACHE_WRITE_PRICE_FACTOR = 1.25


class Moderated(models.Model):
    """What the operators said about a submission or a run (arena.moderation): hidden
    rows drop out of every ranking, CSV and rating; flagged and verified ones stay, with
    the mark. The reason is public."""

    MODERATION_NONE, HIDDEN, FLAGGED, VERIFIED = "", "hidden", "flagged", "verified"
    MODERATION_CHOICES = [
        (MODERATION_NONE, "as submitted"),
        (HIDDEN, "hidden by the operators"),
        (FLAGGED, "flagged by the operators"),
        (VERIFIED, "verified by the operators"),
    ]
    moderation = models.CharField(max_length=16, choices=MODERATION_CHOICES, default=MODERATION_NONE, blank=True)
    moderation_reason = models.CharField(max_length=500, blank=True)

    class Meta:
        abstract = True

    @property
    def is_hidden(self) -> bool:
        return self.moderation == self.HIDDEN


class Submission(Moderated):
    """Who or what is evaluated: a model endpoint with its settings, or a baseline."""

    KIND_MODEL = "model"
    KIND_BASELINE = "baseline"
    # Results played elsewhere and imported with their trajectories (e.g. a BALROG
    # leaderboard submission folder): nothing is queued for them.
    KIND_IMPORTED = "imported"
    KIND_CHOICES = [
        (KIND_MODEL, "Model endpoint"),
        (KIND_BASELINE, "Built-in baseline"),
        (KIND_IMPORTED, "Imported results"),
    ]

    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=KIND_CHOICES, default=KIND_MODEL)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # Baselines: the envs policy name ("random", "expert").
    policy = models.CharField(max_length=32, blank=True)
    # Model endpoints: which wire protocol the endpoint speaks.
    PROVIDER_OPENAI, PROVIDER_ANTHROPIC, PROVIDER_GEMINI, PROVIDER_AGENT = "openai", "anthropic", "gemini", "agent"
    PROVIDER_RESPONSES = "responses"
    PROVIDER_CHOICES = [
        (PROVIDER_OPENAI, "OpenAI-compatible chat completions (vLLM, llama.cpp, Ollama, OpenRouter, OpenAI…)"),
        (PROVIDER_RESPONSES, "OpenAI Responses API (reasoning carried across turns)"),
        (PROVIDER_ANTHROPIC, "Anthropic Messages API"),
        (PROVIDER_GEMINI, "Google Gemini generateContent"),
        (PROVIDER_AGENT, "Agent endpoint (your own agent; signed JSON requests)"),
    ]
    provider = models.CharField(max_length=16, choices=PROVIDER_CHOICES, default=PROVIDER_OPENAI)
    # Its query string is encrypted at rest: gateways put credentials there (arena.endpoint_url).
    base_url = EndpointURLField(max_length=STORED_MAX_LENGTH, blank=True)
    model = models.CharField(max_length=200, blank=True)
    api_key_encrypted = models.TextField(blank=True, editable=False)
    # Agent endpoints: the HMAC secret the arena signs requests with (shown once).
    agent_secret_encrypted = models.TextField(blank=True, editable=False)
    temperature = models.FloatField(default=0.0)
    max_tokens = models.PositiveIntegerField(default=2048)
    # Reasoning models: an effort or a thinking budget, sent in the provider's own words
    # (arena.clients.reasoning_params); neither: the model's default.
    REASONING_EFFORT_CHOICES = [("", "Not set (the model's default)")] + [(e, e) for e in EFFORTS]
    reasoning_effort = models.CharField(max_length=8, choices=REASONING_EFFORT_CHOICES, blank=True, default="")
    thinking_budget_tokens = models.PositiveIntegerField(null=True, blank=True)
    # Strategy (the LMAct prompt protocol, LMAct §2.3).
    num_demonstrations = models.PositiveIntegerField(default=0)
    # The model's context window in tokens, if the submitter states it: demonstrations
    # that would not fit are dropped (and the episode says so).
    context_window = models.PositiveIntegerField(null=True, blank=True)
    # What the endpoint probe found (arena.probe.ProbeResult.to_json()): the model's
    # context window and where it came from, whether it accepts images, its latency.
    endpoint_probe = models.JSONField(null=True, blank=True)
    # How many calls the workers keep in flight to this endpoint at once, over all its
    # episodes: a local server with one slot queues the rest (and they time out).
    max_concurrent_requests = models.PositiveIntegerField(default=4)
    show_legal_actions = models.BooleanField(default=True)
    chain_of_thought = models.BooleanField(default=False)
    # Opted in to head-to-head matches against other opted-in submissions (arena.matches).
    head_to_head = models.BooleanField(default=False)
    # BALROG's robust agents: the answer goes between explicit markers, for models that
    # do not follow "output only the action" (BALROG's robust naive and robust CoT).
    answer_markers = models.BooleanField(default=False)
    # BALROG's agents read a reply strictly (arena.strategies.answers); this option reads
    # it leniently (any case of "ACTION:", the last marker pair, spaces trimmed).
    lenient_parsing = models.BooleanField(default=False)
    # Imported submissions: where the results come from ("BALROG leaderboard") and a
    # fingerprint of what was imported, so importing the same folder twice adds nothing.
    source = models.CharField(max_length=100, blank=True)
    import_fingerprint = models.CharField(max_length=64, blank=True, db_index=True)
    # Imported from BALROG's leaderboard repository (balrog-ai/experiments): the folder
    # ("LLM/20240924_naive-GPT4o", under its submissions/), its metadata.yaml as published
    # (name, date, verified, oss, site, org_logo, trajs) and its summary.json's figures
    # (average_progress, standard_error, environments: progression_percentage,
    # standard_error, episodes_played). A folder without trajectories is imported as
    # these figures alone (balrog_figures_only): a leaderboard row with no runs.
    balrog_folder = models.CharField(max_length=200, blank=True)
    balrog_metadata = models.JSONField(default=dict, blank=True)
    balrog_reported = models.JSONField(default=dict, blank=True)
    balrog_figures_only = models.BooleanField(default=False)
    # Multi-turn strategies (BALROG §3; TextAtari §3; Ke et al. §4.2).
    history_window = models.PositiveIntegerField(default=16)
    keep_reasoning = models.BooleanField(default=False)
    self_correction = models.BooleanField(default=False)
    REFLECTION_NONE, REFLECTION_RECENT, REFLECTION_BEST = "none", "recent", "best"
    REFLECTION_CHOICES = [
        (REFLECTION_NONE, "No reflection"),
        (REFLECTION_RECENT, "Reflexion: the 3 most recent reflections"),
        (REFLECTION_BEST, "Reflexion: the reflection of the best episode so far"),
    ]
    reflection = models.CharField(max_length=8, choices=REFLECTION_CHOICES, default=REFLECTION_NONE)
    # Cost: USD per million tokens; a run stops cleanly when it reaches a budget.
    price_input_per_mtok = models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)
    price_output_per_mtok = models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)
    # What the provider charges for input served from its prompt cache (None: the full
    # input price).
    price_cached_input_per_mtok = models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)
    budget_tokens_per_run = models.PositiveBigIntegerField(null=True, blank=True)
    budget_usd_per_run = models.DecimalField(max_digits=10, decimal_places=4, null=True, blank=True)
    # What the model is, as BALROG's site and HAL show beside a row (given by the
    # submitter; blank when not given): who made it, when it was released, whether its
    # weights are published, and a page about it.
    WEIGHTS_OPEN, WEIGHTS_CLOSED = "open", "closed"
    WEIGHTS_CHOICES = [("", "not said"), (WEIGHTS_OPEN, "open weights"), (WEIGHTS_CLOSED, "closed weights")]
    model_organisation = models.CharField(max_length=100, blank=True)
    model_release_date = models.DateField(null=True, blank=True)
    model_weights = models.CharField(max_length=8, choices=WEIGHTS_CHOICES, blank=True, default="")
    model_url = models.URLField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["policy"], condition=models.Q(kind="baseline"), name="one_submission_per_baseline_policy"
            )
        ]

    def __str__(self):
        return self.name

    @property
    def is_baseline(self) -> bool:
        return self.kind == self.KIND_BASELINE

    @property
    def is_imported(self) -> bool:
        return self.kind == self.KIND_IMPORTED

    def set_api_key(self, plaintext: str) -> None:
        self.api_key_encrypted = encrypt_secret(plaintext)

    def get_api_key(self) -> str:
        return decrypt_secret(self.api_key_encrypted)

    def set_agent_secret(self, plaintext: str) -> None:
        self.agent_secret_encrypted = encrypt_secret(plaintext)

    def get_agent_secret(self) -> str:
        return decrypt_secret(self.agent_secret_encrypted)

    def cost_usd(self, tokens_in: int, tokens_out: int, cached_in: int = 0, cache_written_in: int = 0) -> float | None:
        """What this many tokens cost at the submission's prices (None without prices).
        `cached_in` is the part of `tokens_in` served from the provider's prompt cache,
        priced at the cached-input price when there is one; `cache_written_in` the part
        written into it, which Anthropic bills at CACHE_WRITE_PRICE_FACTOR times the input
        price (its prompt-caching pricing: 5-minute cache writes, the only kind the arena
        asks for)."""
        prices = self.effective_prices
        if prices is None:
            return None
        price_in, price_out, price_cached = self._float_prices()
        cached = min(max(cached_in or 0, 0), tokens_in) if prices[2] is not None else 0
        written = min(max(cache_written_in or 0, 0), tokens_in - cached)
        return ((tokens_in - cached - written) * price_in + written * price_in * CACHE_WRITE_PRICE_FACTOR
                + cached * price_cached + tokens_out * price_out) / 1_000_000

    @property
    def model_facts(self) -> list[str]:
        """The model's metadata in words, for a row: ["OpenAI", "released 2024-05-13",
        "closed weights"] (what was given)."""
        facts = [self.model_organisation] if self.model_organisation else []
        if self.model_release_date:
            facts.append(f"released {self.model_release_date.isoformat()}")
        if self.model_weights:
            facts.append(self.get_model_weights_display())
        return facts

    @property
    def price_source(self) -> str:
        """Where the prices the costs use come from: "own" (the submission's), "catalogue"
        (arena.prices, for a well-known model when it gives none), or "" (no price)."""
        if self.price_input_per_mtok is not None or self.price_output_per_mtok is not None:
            return "own"
        return "catalogue" if self._catalogue_price() is not None else ""

    @property
    def effective_prices(self):
        """(input, output, cached input) per million tokens the costs use: the submission's
        own when it gives any (they win), else its model's in the shipped catalogue
        (arena.prices); None when neither has one. Baselines call no model: none."""
        if self.price_input_per_mtok is not None or self.price_output_per_mtok is not None:
            return (self.price_input_per_mtok, self.price_output_per_mtok, self.price_cached_input_per_mtok)
        listed = self._catalogue_price()
        if listed is None:
            return None
        return (listed.input_per_mtok, listed.output_per_mtok, listed.cached_input_per_mtok)

    @property
    def catalogue_price_note(self) -> str:
        """Which catalogue price costs this submission, with its date and source."""
        listed = self._catalogue_price()
        return listed.note if listed is not None else ""

    def _catalogue_price(self):
        if self.kind != self.KIND_MODEL:
            return None
        from arena.prices import catalogue_price

        return catalogue_price(self.model)

    def _float_prices(self) -> tuple[float, float, float]:
        """The input, output and cached-input prices as floats (0 for none), converted once
        per set of prices: a board costs a thousand runs of a few submissions."""
        price_in, price_out, price_cached = self.effective_prices or (None, None, None)
        known = self.__dict__.get("_float_prices_of")
        if known is None or known[0] is not price_in or known[1] is not price_out or known[2] is not price_cached:
            known = self.__dict__["_float_prices_of"] = (
                price_in, price_out, price_cached, (float(price_in or 0), float(price_out or 0), float(price_cached or 0)),
            )
        return known[3]

    @property
    def reasoning_setting(self) -> ReasoningSetting:
        return ReasoningSetting(effort=self.reasoning_effort or "", budget_tokens=self.thinking_budget_tokens)

    @property
    def reasoning_label(self) -> str:
        """The reasoning setting in words ("" when not set)."""
        if self.thinking_budget_tokens is not None:
            return f"thinking budget {self.thinking_budget_tokens:,} tokens"
        if self.reasoning_effort:
            return f"reasoning effort {self.reasoning_effort}"
        return ""

    @property
    def has_api_key(self) -> bool:
        return bool(self.api_key_encrypted)

    @property
    def effective_context_window(self) -> int | None:
        """The window prompts are fitted to: what the probe settled on (the server's
        metadata, else the stated value, else the probe's safe default), else the
        stated value; None when nothing is known (the window is then learned from the
        server's first "context exceeded" answer)."""
        probed = (self.endpoint_probe or {}).get("context_window")
        if isinstance(probed, int) and probed > 0:
            return probed
        return self.context_window

    @property
    def accepts_images(self) -> bool | None:
        """What the probe found out (None: not probed, or it could not tell)."""
        return (self.endpoint_probe or {}).get("accepts_images")

    @property
    def message_shape_findings(self) -> list[tuple[str, bool | None]]:
        """What the probe found about the messages the endpoint takes (arena.probe.shapes),
        as (what, accepted) pairs for the submission page; empty when it did not ask."""
        found = (self.endpoint_probe or {}).get("message_shape")
        if not isinstance(found, dict):
            return []
        names = (("content_parts", "content parts"), ("system_role", "a system message"),
                 ("consecutive_roles", "two messages of one role in a row"))
        return [(label, found.get(key)) for key, label in names]

    @property
    def strategy_label(self) -> str:
        if self.is_baseline:
            return "baseline"
        parts = ["CoT" if self.chain_of_thought else "naive", f"{self.num_demonstrations} demos"]
        if self.answer_markers:
            parts.insert(0, "robust")
        if not self.show_legal_actions:
            parts.append("no legal list")
        if self.lenient_parsing:
            parts.append("lenient parsing")
        if self.history_window != 16:
            parts.append(f"history {self.history_window}")
        if self.keep_reasoning:
            parts.append("own reasoning kept")
        if self.self_correction:
            parts.append("self-correction")
        if self.reflection != self.REFLECTION_NONE:
            parts.append(f"reflexion ({self.reflection})")
        return ", ".join(parts)

    def get_absolute_url(self):
        return reverse("leaderboard:submission", args=[self.pk])


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


class StoredImage(models.Model):
    """A PNG stored once under its SHA-256 (content-addressed)."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    size_bytes = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    @staticmethod
    def relative_path_of(sha256: str) -> str:
        """Where the PNG of this hash lives under MEDIA_ROOT and MEDIA_URL: the one
        place that spells the layout (fanned out by the first two hex digits so no
        directory grows huge)."""
        return f"images/{sha256[:2]}/{sha256}.png"

    @classmethod
    def url_of(cls, sha256: str) -> str:
        """The site-relative URL of the PNG of this hash."""
        return "/" + settings.MEDIA_URL.strip("/") + "/" + cls.relative_path_of(sha256)

    @property
    def relative_path(self) -> str:
        return self.relative_path_of(self.sha256)

    @property
    def url(self) -> str:
        return self.url_of(self.sha256)

    def __str__(self):
        return self.sha256[:12]


class Episode(models.Model):
    """One seed of a run. Liveness (worker, heartbeat) lives on this row."""

    QUEUED, RUNNING, FINISHED, FAILED = "queued", "running", "finished", "failed"
    SKIPPED = "skipped"  # never played: the run's budget ran out first
    STATUS_CHOICES = [(s, s) for s in (QUEUED, RUNNING, FINISHED, FAILED, SKIPPED)]
    # Statuses an episode never leaves: no step will follow, the live channel ends.
    TERMINAL = (FINISHED, FAILED, SKIPPED)

    run = models.ForeignKey(Run, related_name="episodes", on_delete=models.CASCADE)
    index = models.PositiveIntegerField()
    # None only for an imported episode whose submission logged no seed.
    seed = models.BigIntegerField(null=True)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=QUEUED, db_index=True)
    worker = models.CharField(max_length=100, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # When its last queue message was sent (None: none yet, e.g. the later episodes of
    # a run played in order); a queued episode whose message is long gone from the
    # queue lost it with a dying worker and is queued again (arena.play.requeue).
    enqueued_at = models.DateTimeField(null=True, blank=True)
    # The priority of that message (arena.queue): how many go before it is the run
    # page's queue position.
    queue_priority = models.FloatField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    num_steps = models.PositiveIntegerField(default=0)
    illegal_steps = models.PositiveIntegerField(default=0)
    cut_off_steps = models.PositiveIntegerField(default=0)  # answers cut off by the token limit
    tokens_in = models.BigIntegerField(default=0)
    tokens_out = models.BigIntegerField(default=0)
    reasoning_tokens = models.BigIntegerField(default=0)
    end_reason = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    # arena.clients.errors.ErrorKind of a failed episode's error, for grouping on the
    # run page ("12 episodes: the model does not accept images").
    error_kind = models.CharField(max_length=32, blank=True)
    # The first step whose prompt had to leave something out to fit the context window.
    first_trimmed_step = models.PositiveIntegerField(null=True, blank=True)
    # Reflexion (TextAtari §3.2): what the model wrote after this episode.
    reflection = models.TextField(blank=True)
    # The state after the last action (steps store what the agent saw *before* acting),
    # so the replay can show how the game ended.
    final_observation_text = models.TextField(null=True, blank=True)
    final_observation_image = models.ForeignKey(
        StoredImage, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The suite's per-episode metrics (Task.episode_metrics), e.g. steps to sufficient
    # information or the goal success rate.
    metrics = models.JSONField(default=dict, blank=True)
    # The frozen part of the prompt (preamble + demonstrations), identical at every step
    # of the episode: a list of parts {"type": "text", "text"} / {"type": "image", "sha"}.
    prompt_prefix = models.JSONField(default=list, blank=True)
    # Seeds of the demonstrations drawn for this episode (for audit and reproduction).
    demonstration_seeds = models.JSONField(default=list, blank=True)
    # Set when the context window could not hold the requested demonstrations:
    # {"requested": n, "used": m, "estimated_tokens": t, "context_window": w}.
    demonstrations_capped = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="unique_episode_index_per_run")]
        indexes = [models.Index(fields=["status", "heartbeat_at"]), models.Index(fields=["status", "enqueued_at"])]

    def __str__(self):
        return f"episode {self.pk} (run {self.run_id}, seed {self.seed})"

    def get_absolute_url(self):
        return reverse("leaderboard:episode", args=[self.pk])


class Step(models.Model):
    """One decision inside an episode; written once per (episode, index)."""

    episode = models.ForeignKey(Episode, related_name="steps", on_delete=models.CASCADE)
    index = models.PositiveIntegerField()
    observation_text = models.TextField(null=True, blank=True)
    observation_image = models.ForeignKey(StoredImage, null=True, blank=True, on_delete=models.PROTECT)
    # What this step appended to the prompt (parts as in Episode.prompt_prefix); with the
    # episode's prefix and the earlier steps' parts it rebuilds the exact prompt sent.
    # Stored without the observation text it shows (arena.steptext).
    prompt_added = models.JSONField(default=list, blank=True)
    completion = models.TextField(blank=True)
    # Stored NULL when it is the completion itself, stripped (arena.steptext); read as text.
    # A step created without one has none (""); only the step writer stores NULL.
    reasoning = models.TextField(null=True, blank=True, default="")
    parsed_action = models.TextField(null=True, blank=True)
    executed_action = models.TextField()
    legal = models.BooleanField()
    # The answer reached the token limit (finish_reason "length", stop_reason
    # "max_tokens"…): an "answer cut off" step, not counted as an illegal action.
    cut_off = models.BooleanField(default=False)
    reward = models.FloatField(default=0.0)
    done = models.BooleanField(default=False)
    end_reason = models.CharField(max_length=200, blank=True)
    tokens_in = models.PositiveIntegerField(null=True, blank=True)
    tokens_out = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Every model call made for this step, in order (a self-correction step has two):
    # [{"purpose", "tokens_in", "tokens_out", "cached_tokens_in", "latency_ms",
    #   "attempts", "http_status", "completion"}]. A call's "completion" is kept only
    # where it differs from the step's own (self-correction's first answer): the text is
    # kept once. Read them with `calls_with_completions`. Stored with the values the step
    # already holds left out (arena.steptext).
    calls = models.JSONField(default=list, blank=True)
    cached_tokens_in = models.PositiveIntegerField(null=True, blank=True)
    reasoning_tokens = models.PositiveIntegerField(null=True, blank=True)
    # Per call of `calls`, what its provider wants given back with the answer when the
    # conversation goes on (Anthropic's signed thinking blocks, the Responses API's
    # encrypted reasoning items): a resumed episode's client is given them back, so it
    # sends what an uninterrupted one would. Empty when no call had any; never shown.
    reasoning_items = models.JSONField(default=list, blank=True)
    # Extras of special protocols, e.g. the replay-control experiment's
    # {"forced_action": …, "match": bool}.
    info = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["episode", "index"]
        constraints = [models.UniqueConstraint(fields=["episode", "index"], name="unique_step_index_per_episode")]

    def __str__(self):
        return f"step {self.index} of episode {self.episode_id}"

    @classmethod
    def from_db(cls, db, field_names, values):
        """Every row loaded (querysets, iterators, refreshes) has its texts restored from
        their stored form (arena.steptext), so readers see each step as it was played."""
        step = super().from_db(db, field_names, values)
        steptext.restore_loaded(step)
        return step

    @property
    def calls_with_completions(self) -> list[dict]:
        """`calls`, each with its completion (a call stored without one answered the
        step's own completion)."""
        return [call if "completion" in call else {**call, "completion": self.completion} for call in self.calls]


class EpisodeSnapshot(models.Model):
    """The saved state of a running episode after its first `index` steps, for tasks
    that can save one (envs.core.Task.snapshot): a worker resuming the episode restores
    it and replays only the steps stored after it (arena.services.snapshots). Only the latest is
    kept while the episode runs, none once it has ended."""

    episode = models.ForeignKey(Episode, related_name="snapshots", on_delete=models.CASCADE)
    index = models.PositiveIntegerField()  # steps played before it: the next step's index
    task_state = models.BinaryField()
    agent_state = models.BinaryField(null=True, blank=True)  # None: the agent replays the stored steps
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["episode", "index"], name="unique_snapshot_index_per_episode")]

    def __str__(self):
        return f"snapshot of episode {self.episode_id} at step {self.index}"


class Worker(models.Model):
    """A worker process, for /healthz and for the run page's "why is it waiting" line."""

    name = models.CharField(max_length=100, unique=True)
    hostname = models.CharField(max_length=200)
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    heartbeat_at = models.DateTimeField()
    episodes_in_flight = models.PositiveIntegerField(default=0)

    def __str__(self):
        return self.name


class SubmissionEdit(models.Model):
    """One change of a submission's endpoint (base URL, model, key), kept as history.

    The key itself is never recorded, only that it changed."""

    submission = models.ForeignKey(Submission, related_name="edits", on_delete=models.CASCADE)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    changed_at = models.DateTimeField(auto_now_add=True)
    # {"base_url": [old, new], "model": [old, new], "api_key": "changed"}
    changes = models.JSONField(default=dict)

    class Meta:
        ordering = ["-changed_at"]

    def __str__(self):
        return f"edit of {self.submission} at {self.changed_at:%Y-%m-%d %H:%M}"


class ModerationAction(models.Model):
    """One decision of the operators about a submission or a run, kept as the audit trail."""

    HIDE, FLAG, VERIFY, RESTORE = "hide", "flag", "verify", "restore"
    ACTION_CHOICES = [(HIDE, "hide"), (FLAG, "flag"), (VERIFY, "verify"), (RESTORE, "restore")]

    submission = models.ForeignKey(
        Submission, null=True, blank=True, related_name="moderation_actions", on_delete=models.CASCADE
    )
    run = models.ForeignKey(Run, null=True, blank=True, related_name="moderation_actions", on_delete=models.CASCADE)
    action = models.CharField(max_length=16, choices=ACTION_CHOICES)
    reason = models.CharField(max_length=500, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(submission__isnull=False, run__isnull=True)
                | models.Q(submission__isnull=True, run__isnull=False),
                name="moderation_action_has_one_target",
            )
        ]

    @property
    def target(self):
        return self.submission if self.submission_id else self.run

    def __str__(self):
        return f"{self.action} {self.target} at {self.at:%Y-%m-%d %H:%M}"


# Head-to-head matches live in their own room; imported here so Django registers them.
from arena.matches.models import Match, MatchMove  # noqa: E402,F401
