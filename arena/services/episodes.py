"""Writes of episodes and the workers playing them (HackSoft style: the runner and the
worker call these).

Concurrency rules kept here:
- an episode is claimed with a conditional UPDATE (queued → running), so two workers
  handed the same queue message never both play it;
- a write happens only while the writer still holds the episode (same worker, status
  running; steps: arena.services.steps);
- websocket pushes and queue messages are sent from `transaction.on_commit`;
- a worker's writes of an episode are run again when PostgreSQL aborts them to break a
  deadlock (arena.runtime.dbretry), so no episode fails for one.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.dispatch import Signal
from django.utils import timezone

from arena import page_generation
from arena.storage import images
from arena.live.publish import publish_end_on_commit
from arena.storage.images import ImageRef
from arena.endpoints.privacy import hide_endpoint
from arena.services.aggregates import STEP_TOTAL_FIELDS, apply_step_totals, played_deltas, played_sums, step_totals
from arena.services.prepared import Prepared, PreparedGet, update_row
from arena.services.steps import LeaseLost
from arena.clients.base import redact
from arena.clients.errors import ends_run
from arena.runtime.dbretry import retry_on_conflict
from arena.metrics import fold as fold_metrics
from arena.models import Episode, Run, Step, Submission, Worker
from arena.variant import Variant
from arena.services.runs import enqueue_next_in_order, enqueue_on_commit, finish_run_if_complete, plays_in_order

logger = logging.getLogger(__name__)

# Sent after the commit of an episode's finish, with `run_id`: the run's finished values
# changed. The read side keeps figures computed from them (leaderboard.compare.refresh
# recomputes the paired comparisons someone looked at), and this is how it hears of it
# without the write side importing it.
run_results_changed = Signal()


def _announce_results_changed(run_id: int) -> None:
    for receiver, outcome in run_results_changed.send_robust(sender=Run, run_id=run_id):
        if isinstance(outcome, Exception):  # a figure kept for readers never fails an episode
            logger.warning("after episode's end in run %s: %r failed: %r", run_id, receiver, outcome)


@retry_on_conflict
def episode_claim(episode_id: int, worker: str) -> bool:
    """Take a queued episode for `worker`. False if someone else has it or it is done."""
    now = timezone.now()
    with transaction.atomic():
        # Statements the ORM wrote once (arena.services.prepared): building them cost
        # more CPU than running them.
        claimed, _, _ = _CLAIM_EPISODE.execute(episode_id=episode_id, worker=worker, now=now)
        if claimed:
            _, (run_id,), _ = _RUN_ID_OF_EPISODE.execute(episode_id=episode_id)
            if _START_RUN.execute(run_id=run_id, now=now)[0]:
                page_generation.bump_on_commit()  # the run's status shows on the public pages
    return bool(claimed)


_CLAIM_EPISODE = Prepared(
    lambda episode_id, worker, now: Episode.objects.filter(pk=episode_id, status=Episode.QUEUED).update(
        status=Episode.RUNNING, worker=worker, heartbeat_at=now, started_at=now, attempts=F("attempts") + 1,
    ),
    fields={"now": Episode._meta.get_field("heartbeat_at")},
)
_RUN_ID_OF_EPISODE = Prepared(
    lambda episode_id: list(Episode.objects.filter(pk=episode_id).order_by().values_list("run_id", flat=True))
)
_START_RUN = Prepared(
    lambda run_id, now: Run.objects.filter(pk=run_id, status=Run.QUEUED).update(status=Run.RUNNING, started_at=now),
    fields={"now": Run._meta.get_field("started_at")},
)


def episode_set_prefix(
    episode_id: int, worker: str, prefix: list, demonstration_seeds: list[int], capped: dict | None = None
) -> None:
    # `Episode.objects.filter(pk=…, worker=…, status=RUNNING).update(…)`, its SQL written once.
    episode = Episode(pk=episode_id, prompt_prefix=prefix, demonstration_seeds=demonstration_seeds,
                      demonstrations_capped=capped, heartbeat_at=timezone.now())
    held = update_row(episode, _PREFIX_FIELDS, where={"worker": worker, "status": Episode.RUNNING})
    if not held:
        raise LeaseLost(episode_id)


_PREFIX_FIELDS = ("prompt_prefix", "demonstration_seeds", "demonstrations_capped", "heartbeat_at")


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
        # takes its locks in (arena.services.steps).
        if final_image is not None:
            images.ensure_row(final_image)
        episode = _EPISODE_TO_FINISH.get(episode_id)
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
        update_row(episode, _FINISHED_FIELDS)  # episode.save(update_fields=…), its SQL written once
        if episode.run.shipped_figures is not None:
            # A replay of a run whose figures were shipped: they stay as shipped.
            publish_end_on_commit(episode_id)
            page_generation.bump_on_commit()
            return
        _RUN_EPISODE_DONE.execute(
            run_id=episode.run_id, score=score, score_sq=score * score,
            **played_deltas(episode, totals, sign=1, always=True),
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
        finish_run_if_complete(episode.run_id)
        if plays_in_order(episode.run):
            enqueue_next_in_order(episode.run_id)
        publish_end_on_commit(episode_id)
        page_generation.bump_on_commit()
        if run_results_changed.has_listeners(Run):
            transaction.on_commit(partial(_announce_results_changed, episode.run_id))


# The episode and its run as the finish reads them, locked: `Episode.objects.select_for_update()
# .select_related("run").only(...)`, the SQL written once (arena.services.prepared).
_EPISODE_TO_FINISH = PreparedGet(
    Episode, ("run",), for_update=True,
    only={Episode: {"run", "worker", "status"}, Run: {"variant", "metric_sums", "shipped_figures"}},
)
_FINISHED_FIELDS = (
    "status", "finished_at", "score", "end_reason", "error", "error_kind", *STEP_TOTAL_FIELDS,
    "final_observation_text", "final_observation_image", "metrics", "reflection",
)


# The run's aggregates with a finished episode added, as the ORM writes the UPDATE (once).
_RUN_EPISODE_DONE = Prepared(
    lambda run_id, score, score_sq, **deltas: Run.objects.filter(pk=run_id).update(
        episodes_done=F("episodes_done") + 1,
        score_sum=F("score_sum") + score,
        score_sq_sum=F("score_sq_sum") + score_sq,
        **{field: F(field) + delta for field, delta in deltas.items()},
    )
)


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
            # Before the run's row: episodes are locked before runs (arena.services.steps).
            _fail_queued_episodes(episode.run_id, reason, kind)
        if episode.run.shipped_figures is None:  # a failed replay leaves shipped figures alone
            Run.objects.filter(pk=episode.run_id).update(
                episodes_failed=F("episodes_failed") + 1, **played_sums(episode, totals, sign=1)
            )
        finish_run_if_complete(episode.run_id)
        enqueue_next_in_order(episode.run_id)
        publish_end_on_commit(episode_id)
        page_generation.bump_on_commit()
    return True


def _without_secrets(text: str, submission: Submission) -> str:
    """`text` with no recognisable part of the submission's key or signing secret, nor
    its endpoint address: episode errors are public, and whatever failed may have quoted
    any of them (arena.endpoints.privacy)."""
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
        publish_end_on_commit(queued_id)


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


def episode_has_steps(episode_id: int) -> bool:
    """Whether an earlier attempt stored steps of the episode (a fresh one has none, and
    is then spared building the query of its steps)."""
    _, row, _ = _FIRST_STORED_STEP.execute(episode_id=episode_id)
    return row is not None


_FIRST_STORED_STEP = Prepared(
    lambda episode_id: list(Step.objects.filter(episode_id=episode_id).order_by().values_list("index", flat=True)[:1])
)


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
            publish_end_on_commit(skipped_id)
        page_generation.bump_on_commit()


def episodes_heartbeat(worker: str, episode_ids: list[int]) -> None:
    """Beat for episodes waiting on a slow model call (steps beat on their own).

    The rows are locked in id order first, as every writer of several episodes does
    (arena.services.steps): an UPDATE of many ids locks them in whatever order the table is
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
