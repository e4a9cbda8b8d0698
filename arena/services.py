"""Writes of the arena (HackSoft style: views, serializers and the runner call these).

Concurrency rules kept here:
- an episode is claimed with a conditional UPDATE (queued → running), so two workers
  handed the same queue message never both play it;
- steps are unique on (episode, index) and a write happens only while the writer still
  holds the episode (same worker, status running);
- websocket pushes and queue messages are sent from `transaction.on_commit`;
- a worker's writes of an episode are run again when PostgreSQL aborts them to break a
  deadlock (arena.dbretry), so no episode fails for one.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import secrets
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import ExpressionWrapper, F, FloatField, Q, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from arena import images, live, page_generation, queue
from arena.images import ImageRef
from arena.endpoint_privacy import hide_endpoint
from arena.aggregates import STEP_TOTAL_FIELDS, apply_step_totals, played_sums, step_totals
from arena.clients.base import redact
from arena.clients.errors import ends_run
from arena.dbretry import retry_on_conflict
from arena.metrics import fold as fold_metrics
from arena.models import Episode, Experiment, Run, Submission, Worker
from arena.variant import Variant
from arena.steps import LeaseLost, StepNotStored, StepRecord, step_record, steps_record  # noqa: F401  (re-exported)
from envs.registry import get_task_class, suite_of

logger = logging.getLogger(__name__)


# -- submissions and runs -----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunSpec:
    task: str
    format: str
    num_episodes: int
    first_seed: int = 0
    options: dict = dataclasses.field(default_factory=dict)
    # Strategy settings the run plays whatever the submission says: its suite's paper
    # preset (envs.suite.PaperPreset.strategy), when the submitter chose it.
    strategy: dict = dataclasses.field(default_factory=dict)


def enqueue_on_commit(episode_ids: list[int], *, resume: bool = False) -> None:
    """Queue the episodes once the transaction commits (with `resume`, ahead of those
    of their kind not started yet), each in its fair turn (arena.queue), noting when
    their message was sent (arena.requeue) and its priority (the run page's queue
    position)."""
    episode_ids = list(episode_ids)
    if not episode_ids:
        return
    priorities = queue.priorities(_queue_flows(episode_ids), resume=resume)
    Episode.objects.filter(pk__in=episode_ids).update(enqueued_at=timezone.now())
    _note_priorities(priorities)
    transaction.on_commit(partial(queue.enqueue_episodes, priorities))


def _note_priorities(priorities: dict[int, float]) -> None:
    """Store each episode's message priority; one UPDATE per stretch of consecutive ids
    whose priorities fall by one (a run's episodes in one turn order), as a bulk update
    of 5,000 rows took 9 s."""
    stretches: list[list] = []  # [first id, last id, priority of the first]
    for pk, priority in sorted(priorities.items()):
        if stretches and pk == stretches[-1][1] + 1 and priority == stretches[-1][2] - (pk - stretches[-1][0]):
            stretches[-1][1] = pk
        else:
            stretches.append([pk, pk, priority])
    alone: dict[float, list[int]] = {}
    for first, last, priority in stretches:
        if first == last:
            alone.setdefault(priority, []).append(first)
        else:
            Episode.objects.filter(pk__range=(first, last)).update(
                queue_priority=ExpressionWrapper(Value(priority + first) - F("pk"), output_field=FloatField())
            )
    for priority, pks in alone.items():
        Episode.objects.filter(pk__in=pks).update(queue_priority=priority)


def _queue_flows(episode_ids: list[int]) -> list[tuple[queue.Flow, list[int]]]:
    """The episodes by the flow they take turns in, in the order given: a baseline's
    run (so every task's baseline rows grow together), or a user's submission."""
    rows = Episode.objects.filter(pk__in=episode_ids).values_list("pk", "run_id", "run__submission_id", "run__submission__kind")
    flow_of = {
        pk: queue.Flow(f"run:{run_id}", True) if kind == Submission.KIND_BASELINE else queue.Flow(f"submission:{submission_id}", False)
        for pk, run_id, submission_id, kind in rows
    }
    flows: dict[queue.Flow, list[int]] = {}
    for pk in episode_ids:
        if pk in flow_of:
            flows.setdefault(flow_of[pk], []).append(pk)
    return list(flows.items())


def run_variant(submission: Submission, spec: RunSpec, overrides: dict | None = None) -> dict:
    """The variant a run of `spec` gets: the submission's strategy settings (copied, so
    the run stays interpretable if they change), then what the spec fixes (a paper
    preset), then `overrides` (experiments vary them). The preview reads it too, from an
    unsaved submission, so it shows what the runs will play."""
    variant = {
        "format": spec.format,
        "options": dict(spec.options),
        "num_demonstrations": 0 if submission.is_baseline else submission.num_demonstrations,
        "show_legal_actions": submission.show_legal_actions,
        "chain_of_thought": submission.chain_of_thought,
    }
    if submission.answer_markers:
        variant["answer_markers"] = True
    if submission.lenient_parsing:
        variant["lenient_parsing"] = True
    if not submission.is_baseline:
        variant.update(
            history_window=submission.history_window,
            keep_reasoning=submission.keep_reasoning,
            self_correction=submission.self_correction,
            reflection=submission.reflection,
        )
    variant.update(spec.strategy)
    preset = suite_of(spec.task).paper_preset
    if spec.strategy and preset is not None and preset.chain_of_thought_strategy and variant["chain_of_thought"]:
        variant.update(preset.chain_of_thought_strategy)
    variant.update(overrides or {})
    if not suite_of(spec.task).reflection:
        # The LMAct protocol (LMAct §2.3) has no reflection between episodes.
        variant["reflection"] = "none"
    return variant


def run_create(
    submission: Submission, spec: RunSpec, *, overrides: dict | None = None, experiment: Experiment | None = None
) -> Run:
    """Create a run with its episodes and queue them once the transaction commits; its
    variant is `run_variant(submission, spec, overrides)`."""
    variant = run_variant(submission, spec, overrides)
    with transaction.atomic():
        run = Run.objects.create(
            submission=submission,
            experiment=experiment,
            task=spec.task,
            variant=variant,
            budget_tokens=submission.budget_tokens_per_run,
            budget_usd=submission.budget_usd_per_run,
            first_seed=spec.first_seed,
            num_episodes=spec.num_episodes,
        )
        Episode.objects.bulk_create(
            Episode(run=run, index=i, seed=spec.first_seed + i) for i in range(spec.num_episodes)
        )
        episode_ids = list(run.episodes.order_by("index").values_list("id", flat=True))
        if plays_in_order(run):
            # Reflexion carries lessons from one episode to the next: one at a time.
            episode_ids = episode_ids[:1]
        enqueue_on_commit(episode_ids)
    return run


def plays_in_order(run: Run) -> bool:
    return Variant.of(run).plays_in_order


def _enqueue_next_in_order(run_id: int) -> None:
    run = Run.objects.only("variant").get(pk=run_id)
    if plays_in_order(run):
        following = run.episodes.filter(status=Episode.QUEUED).order_by("index").values_list("id", flat=True).first()
        if following is not None:
            enqueue_on_commit([following])


def submission_create(*, owner, fields: dict, api_key: str, runs: list[RunSpec]) -> Submission:
    """Create a model submission and its runs, all or nothing.

    An agent endpoint gets a fresh signing secret; it is available once, as
    `submission.new_agent_secret`, for the response that shows it to the submitter.
    """
    with transaction.atomic():
        submission = Submission(owner=owner, kind=Submission.KIND_MODEL, **fields)
        submission.set_api_key(api_key)
        submission.new_agent_secret = None
        if submission.provider == Submission.PROVIDER_AGENT:
            submission.new_agent_secret = secrets.token_urlsafe(32)
            submission.set_agent_secret(submission.new_agent_secret)
        submission.save()
        for spec in runs:
            run_create(submission, spec)
    return submission


def option_combinations(task_cls, *, for_models: bool = True, chosen: dict | None = None) -> list[dict]:
    """Every combination of the task's variant options ([{}] for tasks without), or of
    the values `chosen` for some of them (validation.check_task_settings: a first try
    may play infogather at 3 colours only). Baselines do not read prompts, so for them
    prompt-only options keep their default."""
    chosen = chosen or {}
    names = [n for n in task_cls.variant_options if for_models or n not in task_cls.prompt_options]
    values = [chosen.get(name, task_cls.variant_options[name]) for name in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def run_specs(
    task_variants: list[tuple[str, str]],
    episodes: int,
    task_settings: dict | None = None,
    paper_protocol: frozenset[str] | set[str] = frozenset(),
) -> list[RunSpec]:
    """The runs of a model submission: each chosen task and format, once per
    combination of the task's options (e.g. infogather's 3–10 colours, §4.4) or of the
    values the submission chose for them, with the settings chosen for the task
    (validation.check_task_settings) on top. Tasks of the suites in `paper_protocol`
    play their suite's paper preset: its strategy settings and its episodes; the others
    play `episodes` with the submission's own settings."""
    task_settings = task_settings or {}
    specs = []
    for task_id, fmt in task_variants:
        task_cls = get_task_class(task_id)
        preset = suite_of(task_id).paper_preset if task_cls.suite in paper_protocol else None
        chosen = task_settings.get(task_id, {})
        swept = {name: values for name, values in chosen.items() if name in task_cls.variant_options}
        fixed = {name: value for name, value in chosen.items() if name not in task_cls.variant_options}
        for combo in option_combinations(task_cls, chosen=swept):
            specs.append(
                RunSpec(
                    task=task_id, format=fmt, options={**combo, **fixed},
                    num_episodes=preset.episodes_of(task_cls) if preset else episodes,
                    strategy=dict(preset.strategy) if preset else {},
                )
            )
    return specs


def demonstration_counts(maximum: int) -> list[int]:
    """0, 1, 2, 4, … up to `maximum` (LMAct §3.2 sweeps powers of two)."""
    counts, n = [0], 1
    while n <= maximum:
        counts.append(n)
        n *= 2
    return counts


# LMAct evaluates 100 episodes per point (LMAct §2.4): the default of an experiment's
# runs, which a user may lower (the run page then says how many of the 100 were played).
PAPER_EPISODES_PER_RUN = 100


def experiment_create(
    submission: Submission, *, kind: str, task: str, format: str, num_episodes: int, max_demonstrations: int = 0
) -> Experiment:
    """A sweep, an ablation grid or a replay-control experiment, with its runs queued.

    - sweep: one run per number of demonstrations 0, 1, 2, 4, … ≤ max_demonstrations;
    - ablation: legal actions × chain of thought with one demonstration (§3, App. C.4);
    - replay: one demonstration replayed with teacher forcing, no chain of thought,
      no legal actions (App. C.2).
    """
    if submission.is_baseline:
        raise ValueError("experiments are for model submissions")
    spec = RunSpec(task=task, format=format, num_episodes=num_episodes)
    with transaction.atomic():
        experiment = Experiment.objects.create(
            submission=submission, kind=kind, task=task, format=format,
            config={"num_episodes": num_episodes, "max_demonstrations": max_demonstrations},
        )
        for overrides in experiment_grid(kind, max_demonstrations):
            run_create(submission, spec, overrides=overrides, experiment=experiment)
    return experiment


def experiment_run_specs(*, kind: str, task: str, format: str, num_episodes: int, max_demonstrations: int = 0):
    """The runs an experiment would create, one RunSpec each (what the episode cap counts)."""
    return [RunSpec(task=task, format=format, num_episodes=num_episodes)] * len(experiment_grid(kind, max_demonstrations))


def experiment_grid(kind: str, max_demonstrations: int = 0) -> list[dict]:
    """The variant overrides of an experiment's runs, one dict per run."""
    if kind == Experiment.SWEEP:
        return [{"num_demonstrations": n} for n in demonstration_counts(max_demonstrations)]
    if kind == Experiment.ABLATION:
        return [
            {"num_demonstrations": 1, "show_legal_actions": legal, "chain_of_thought": cot}
            for legal in (False, True)
            for cot in (False, True)
        ]
    if kind == Experiment.REPLAY:
        return [{"num_demonstrations": 1, "show_legal_actions": False, "chain_of_thought": False, "replay_control": True}]
    raise ValueError(f"unknown experiment kind {kind!r}")


def baseline_submission(policy: str, name: str) -> Submission:
    submission, _ = Submission.objects.get_or_create(
        kind=Submission.KIND_BASELINE, policy=policy, defaults={"name": name}
    )
    return submission


# -- episodes -----------------------------------------------------------------------


@retry_on_conflict
def episode_claim(episode_id: int, worker: str) -> bool:
    """Take a queued episode for `worker`. False if someone else has it or it is done."""
    now = timezone.now()
    with transaction.atomic():
        claimed = Episode.objects.filter(pk=episode_id, status=Episode.QUEUED).update(
            status=Episode.RUNNING,
            worker=worker,
            heartbeat_at=now,
            started_at=now,
            attempts=F("attempts") + 1,
        )
        if claimed:
            run_id = Episode.objects.values_list("run_id", flat=True).get(pk=episode_id)
            if Run.objects.filter(pk=run_id, status=Run.QUEUED).update(status=Run.RUNNING, started_at=now):
                page_generation.bump_on_commit()  # the run's status shows on the public pages
    return bool(claimed)


def episode_set_prefix(
    episode_id: int, worker: str, prefix: list, demonstration_seeds: list[int], capped: dict | None = None
) -> None:
    held = Episode.objects.filter(pk=episode_id, worker=worker, status=Episode.RUNNING).update(
        prompt_prefix=prefix,
        demonstration_seeds=demonstration_seeds,
        demonstrations_capped=capped,
        heartbeat_at=timezone.now(),
    )
    if not held:
        raise LeaseLost(episode_id)


def _finish_run_if_complete(run_id: int) -> None:
    now = timezone.now()
    Run.objects.filter(
        pk=run_id, episodes_done__gt=0, status__in=[Run.QUEUED, Run.RUNNING]
    ).filter(num_episodes__lte=F("episodes_done") + F("episodes_failed")).update(status=Run.FINISHED, finished_at=now)
    Run.objects.filter(
        pk=run_id, episodes_done=0, status__in=[Run.QUEUED, Run.RUNNING], num_episodes__lte=F("episodes_failed")
    ).update(status=Run.FAILED, finished_at=now)


@retry_on_conflict
def episode_finish(
    episode_id: int,
    worker: str,
    *,
    score: float,
    end_reason: str,
    final_text: str | None = None,
    final_image: ImageRef | None = None,
    metrics: dict | None = None,
    reflection: tuple[str, int, int] = ("", 0, 0),
) -> None:
    """Mark the episode finished and fold it into its run's aggregates."""
    with transaction.atomic():
        # Image rows before the episode's and the run's: the order every transaction
        # takes its locks in (arena.steps).
        if final_image is not None:
            images.ensure_row(final_image)
        episode = (
            Episode.objects.select_for_update()
            .select_related("run")
            .only("id", "run_id", "worker", "status", "run__variant", "run__metric_sums", "run__shipped_figures")
            .get(pk=episode_id)
        )
        if episode.worker != worker or episode.status != Episode.RUNNING:
            raise LeaseLost(episode_id)
        totals = step_totals(episode)
        episode.status = Episode.FINISHED
        episode.finished_at = timezone.now()
        episode.score = score
        episode.end_reason = end_reason
        episode.error = ""
        episode.error_kind = ""
        apply_step_totals(episode, totals)
        episode.final_observation_text = final_text
        episode.metrics = metrics or {}
        reflection_text, reflection_in, reflection_out = reflection
        episode.reflection = reflection_text
        episode.final_observation_image_id = final_image.sha256 if final_image else None
        episode.save(
            update_fields=[
                "status", "finished_at", "score", "end_reason", "error", "error_kind", *STEP_TOTAL_FIELDS,
                "final_observation_text", "final_observation_image", "metrics", "reflection",
            ]
        )
        if episode.run.shipped_figures is not None:
            # A replay of a run whose figures were shipped: they stay as shipped.
            transaction.on_commit(partial(live.publish_end, episode_id))
            page_generation.bump_on_commit()
            return
        Run.objects.filter(pk=episode.run_id).update(
            episodes_done=F("episodes_done") + 1,
            score_sum=F("score_sum") + score,
            score_sq_sum=F("score_sq_sum") + score * score,
            **played_sums(episode, totals, sign=1, always=True),
        )
        if reflection_in or reflection_out:
            Run.objects.filter(pk=episode.run_id).update(
                tokens_spent_in=F("tokens_spent_in") + reflection_in,
                tokens_spent_out=F("tokens_spent_out") + reflection_out,
            )
        if metrics:
            # The run row was read with the episode under select_for_update, which
            # locks the joined row too (PostgreSQL); SQLite's write transactions are
            # serial. So the sums read then are still current.
            Run.objects.filter(pk=episode.run_id).update(metric_sums=fold_metrics(episode.run.metric_sums, metrics))
        _finish_run_if_complete(episode.run_id)
        if plays_in_order(episode.run):
            _enqueue_next_in_order(episode.run_id)
        transaction.on_commit(partial(live.publish_end, episode_id))
        page_generation.bump_on_commit()


@retry_on_conflict
def episode_fail(episode_id: int, reason: str, *, worker: str | None = None, kind: str = "") -> bool:
    """Give up on an episode with a reason a person can read on the run page.

    What it played still counts: its steps, illegal actions and tokens go into the run's
    aggregates. A failure that every episode of the run would meet alike (a text-only
    model and an image task, a refused key, an unknown model: arena.clients.errors)
    ends the run's queued episodes too, at once, with the same reason; they can be
    re-queued once the submission is fixed."""
    with transaction.atomic():
        filters = Q(pk=episode_id, status__in=[Episode.QUEUED, Episode.RUNNING])
        if worker is not None:
            filters &= Q(worker=worker)
        episode = Episode.objects.select_for_update().filter(filters).first()
        if episode is None:
            return False
        reason = _without_secrets(reason, episode.run.submission)
        totals = step_totals(episode)
        apply_step_totals(episode, totals)
        episode.status = Episode.FAILED
        episode.finished_at = timezone.now()
        episode.end_reason = "failed"
        episode.error = reason[:2000]
        episode.error_kind = kind or ""
        episode.save(
            update_fields=[
                "status", "finished_at", "end_reason", "error", "error_kind", *STEP_TOTAL_FIELDS,
            ]
        )
        if ends_run(kind):
            # Before the run's row: episodes are locked before runs (arena.steps).
            _fail_queued_episodes(episode.run_id, reason, kind)
        if episode.run.shipped_figures is None:  # a failed replay leaves shipped figures alone
            Run.objects.filter(pk=episode.run_id).update(
                episodes_failed=F("episodes_failed") + 1, **played_sums(episode, totals, sign=1)
            )
        _finish_run_if_complete(episode.run_id)
        _enqueue_next_in_order(episode.run_id)
        transaction.on_commit(partial(live.publish_end, episode_id))
        page_generation.bump_on_commit()
    return True


def _without_secrets(text: str, submission: Submission) -> str:
    """`text` with no recognisable part of the submission's key or signing secret, nor
    its endpoint address: episode errors are public, and whatever failed may have quoted
    any of them (arena.endpoint_privacy)."""
    text = hide_endpoint(text, submission.base_url)
    try:
        keys = (submission.get_api_key(), submission.get_agent_secret())
    except ValueError:  # a key the arena cannot decrypt was never sent, so never quoted
        return text
    return redact(text, *keys)


def _fail_queued_episodes(run_id: int, reason: str, kind: str) -> None:
    queued = Episode.objects.filter(run_id=run_id, status=Episode.QUEUED)
    ids = list(queued.values_list("id", flat=True))
    if not ids:
        return
    queued.update(
        status=Episode.FAILED, finished_at=timezone.now(), end_reason="failed",
        error=f"not played: {reason}"[:2000], error_kind=kind,
    )
    Run.objects.filter(pk=run_id).update(episodes_failed=F("episodes_failed") + len(ids))
    for queued_id in ids:
        transaction.on_commit(partial(live.publish_end, queued_id))


def reflections_for(episode: Episode) -> list[str]:
    """Reflexion (TextAtari §3.2): the lessons given at the start of an episode —
    the 3 most recent reflections of the run's earlier episodes, or the one written
    after its best-scoring episode."""
    mode = Variant.of(episode.run).reflection
    if mode == "none":
        return []
    earlier = Episode.objects.filter(
        run_id=episode.run_id, index__lt=episode.index, status=Episode.FINISHED
    ).exclude(reflection="")
    if mode == "best":
        best = earlier.order_by("-score", "-index").values_list("reflection", flat=True).first()
        return [best] if best else []
    recent = list(earlier.order_by("-index").values_list("reflection", flat=True)[:3])
    return list(reversed(recent))


def run_budget_exhausted(run_id: int, episode_id: int, worker: str) -> None:
    """Stop a run cleanly at its budget: the episode being played ends unscored with
    the reason, episodes not started are skipped, the run says "budget exhausted"."""
    with transaction.atomic():
        episode_fail(episode_id, "budget exhausted: the run reached its token/cost budget", worker=worker)
        skipped = Episode.objects.filter(run_id=run_id, status=Episode.QUEUED)
        skipped_ids = list(skipped.values_list("id", flat=True))
        skipped.update(status=Episode.SKIPPED, end_reason="skipped: budget exhausted", finished_at=timezone.now())
        Run.objects.filter(pk=run_id).exclude(status=Run.BUDGET_EXHAUSTED).update(
            status=Run.BUDGET_EXHAUSTED, finished_at=timezone.now()
        )
        for skipped_id in skipped_ids:
            transaction.on_commit(partial(live.publish_end, skipped_id))
        page_generation.bump_on_commit()


def run_budget_reached(run_id: int) -> bool:
    run = Run.objects.select_related("submission").only(
        "budget_tokens", "budget_usd", "tokens_spent_in", "tokens_spent_out", "cached_tokens_in",
        "cache_write_tokens_in", "status", "submission__price_input_per_mtok", "submission__price_output_per_mtok",
        "submission__price_cached_input_per_mtok",
    ).get(pk=run_id)
    return run.status == Run.BUDGET_EXHAUSTED or run.budget_reached


def episodes_heartbeat(worker: str, episode_ids: list[int]) -> None:
    """Beat for episodes waiting on a slow model call (steps beat on their own).

    The rows are locked in id order first, as every writer of several episodes does
    (arena.steps): an UPDATE of many ids locks them in whatever order the table is
    scanned, which deadlocked with the worker's step writer. A row locked right now is
    skipped: whoever holds it is storing a step of it (which beats its heart) or ending it.
    """
    if not episode_ids:
        return
    with transaction.atomic():
        beating = list(
            Episode.objects.select_for_update(skip_locked=True)
            .filter(pk__in=episode_ids, worker=worker, status=Episode.RUNNING)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if beating:
            Episode.objects.filter(pk__in=beating).update(heartbeat_at=timezone.now())


def reap_stale_episodes(now=None) -> dict[str, int]:
    """Re-queue (or, past the attempt limit, fail) episodes whose worker went silent.

    A re-queued episode resumes after its last stored step: the runner replays the
    stored executed actions on a fresh environment with the same seed. It is queued
    ahead of the episodes not started yet, so a backlog does not hold it up.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.ARENA_HEARTBEAT_STALE_SECONDS)
    stale = list(
        Episode.objects.filter(status=Episode.RUNNING, heartbeat_at__lt=cutoff).values_list("id", "attempts", "worker")
    )
    requeued, failed = [], 0
    for episode_id, attempts, worker in stale:
        if attempts >= settings.ARENA_MAX_EPISODE_ATTEMPTS:
            reason = (
                f"worker {worker or '?'} stopped sending heartbeats and the episode already had "
                f"{attempts} attempts; giving up"
            )
            failed += episode_fail(episode_id, reason)
            continue
        with transaction.atomic():
            if Episode.objects.filter(pk=episode_id, status=Episode.RUNNING, heartbeat_at__lt=cutoff).update(
                status=Episode.QUEUED, worker="", error=f"worker {worker or '?'} stopped sending heartbeats; re-queued"
            ):
                requeued.append(episode_id)
                enqueue_on_commit([episode_id], resume=True)
    if requeued or failed:
        logger.warning("reaper: re-queued %d stale episodes, failed %d", len(requeued), failed)
    return {"requeued": len(requeued), "failed": failed}


@retry_on_conflict
def episode_release(episode_id: int, worker: str, *, reason: str = "was stopped") -> bool:
    """Give back an episode its worker stopped playing at a step boundary because the
    worker was asked to stop (Ctrl-C, SIGTERM of a deploy) or the episode, a baseline's,
    made way for a user's: queued again to resume after its last stored step, ahead of
    the episodes of its kind not started yet, at once rather than after the reaper's
    heartbeat timeout. The attempt is not counted against ARENA_MAX_EPISODE_ATTEMPTS:
    nothing went wrong with the episode. False if the worker no longer held it."""
    with transaction.atomic():
        released = Episode.objects.filter(pk=episode_id, status=Episode.RUNNING, worker=worker).update(
            status=Episode.QUEUED, worker="", attempts=Greatest(F("attempts") - 1, 0),
            error=f"worker {worker} {reason}; re-queued to resume",
        )
        if released:
            enqueue_on_commit([episode_id], resume=True)
    return bool(released)


def worker_heartbeat(name: str, hostname: str, pid: int, in_flight: int) -> None:
    Worker.objects.update_or_create(
        name=name,
        defaults={"hostname": hostname, "pid": pid, "heartbeat_at": timezone.now(), "episodes_in_flight": in_flight},
    )


def worker_stopped(name: str) -> None:
    Worker.objects.filter(name=name).delete()
