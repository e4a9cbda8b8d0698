"""What playing leaves behind: episodes, their steps, the images the steps show, the
snapshots a resumed episode restores, and the workers that play them."""

from django.conf import settings
from django.db import models
from django.urls import reverse

from arena.models.runs import Run
from arena.storage import steptext


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
    SKIPPED = "skipped"  # not played to its end: the run's budget ran out, or it was cancelled
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

    @property
    def step_counts_known(self) -> bool:
        """Whether `illegal_steps` and `cut_off_steps` are counted: they are when the
        episode ends (arena.services.aggregates), while `num_steps` moves with each step."""
        return self.status in self.TERMINAL


class Step(models.Model):
    """One decision inside an episode; written once per (episode, index)."""

    episode = models.ForeignKey(Episode, related_name="steps", on_delete=models.CASCADE)
    index = models.PositiveIntegerField()
    observation_text = models.TextField(null=True, blank=True)
    observation_image = models.ForeignKey(StoredImage, null=True, blank=True, on_delete=models.PROTECT)
    # What this step appended to the prompt (parts as in Episode.prompt_prefix); with the
    # episode's prefix and the earlier steps' parts it rebuilds the exact prompt sent.
    # Stored without the observation text it shows (arena.storage.steptext).
    prompt_added = models.JSONField(default=list, blank=True)
    completion = models.TextField(blank=True)
    # Stored NULL when it is the completion itself, stripped (arena.storage.steptext); read as text.
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
    # already holds left out (arena.storage.steptext).
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
        their stored form (arena.storage.steptext), so readers see each step as it was played."""
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
