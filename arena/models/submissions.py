"""Who or what is evaluated (`Submission`: an endpoint with its settings, a baseline, or
imported results) and the history of its endpoint's edits."""

from django.conf import settings
from django.db import models
from django.urls import reverse

from arena.clients.reasoning_params import EFFORTS, ReasoningSetting
from arena.endpoints.crypto import decrypt_secret, encrypt_secret
from arena.endpoints.url import STORED_MAX_LENGTH, EndpointURLField
from arena.models.moderation import Moderated

# Anthropic bills input written into its prompt cache with a 5-minute lifetime (the
# lifetime the arena's `cache_control` marks ask for) at 1.25 times the input price.
CACHE_WRITE_PRICE_FACTOR = 1.25


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
    # Its query string is encrypted at rest: gateways put credentials there (arena.endpoints.url).
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
