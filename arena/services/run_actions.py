"""What a submitter can do about their runs: re-queue failed episodes once the endpoint
is fixed, cancel a run or a whole submission, change the endpoint (with its history)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from arena import page_generation
from arena.services.runs import enqueue_on_commit, plays_in_order
from arena.live.publish import publish_end_on_commit
from arena.services.aggregates import STEP_TOTAL_FIELDS, apply_step_totals, played_deltas, played_sums, step_totals
from arena.endpoints.url import without_query
from arena.models import Episode, Run, Step, Submission, SubmissionEdit
from arena.moderation import refuse_if_taken_down


def run_requeue_failed(run: Run) -> int:
    """Queue the run's failed episodes again (after the submitter fixed the endpoint).

    Each resumes after its last stored step; what it had added to the run's aggregates
    is taken back first, since finishing adds its whole playthrough again. TakenDown
    (nothing queued) when the operators took the run or its submission down."""
    with transaction.atomic():
        run = Run.objects.select_for_update().select_related("submission").get(pk=run.pk)
        refuse_if_taken_down(run.submission, run)
        failed = list(run.episodes.select_for_update().filter(status=Episode.FAILED))
        if not failed:
            return 0
        for episode in failed:
            totals = step_totals(episode)
            apply_step_totals(episode, totals)
            Run.objects.filter(pk=run.pk).update(
                episodes_failed=F("episodes_failed") - 1, **played_sums(episode, totals, sign=-1)
            )
        Episode.objects.filter(pk__in=[e.pk for e in failed]).update(
            status=Episode.QUEUED, worker="", error="", error_kind="", end_reason="", finished_at=None,
        )
        Run.objects.filter(pk=run.pk).update(status=Run.QUEUED if not run.started_at else Run.RUNNING, finished_at=None)
        ids = [e.pk for e in sorted(failed, key=lambda e: e.index)]
        enqueue_on_commit(ids[:1] if plays_in_order(run) else ids)
        page_generation.bump_on_commit()
    return len(failed)


CANCELLED_REASON = "cancelled by the submitter"


def run_cancel(run: Run) -> int:
    """Stop a run: its queued and running episodes end as skipped (a worker playing one
    loses its lease at the next step and stops); what was played stays stored."""
    return run_stop(run, CANCELLED_REASON)


def run_stop(run: Run, reason: str) -> int:
    """`run_cancel` with the reason its stopped episodes show (a takedown gives its own:
    arena.services.takedowns); the number of episodes stopped. What a stopped episode
    played counts, as a failed one's does: its steps, illegal actions, answers cut off
    and tokens go into its own totals and the run's aggregates."""
    with transaction.atomic():
        # Locked in id order, as the workers writing their steps lock them (arena.services.steps):
        # a worker's next step finds the episode skipped and is not stored, so the totals
        # read here are final.
        ids = list(
            Episode.objects.select_for_update()
            .filter(run=run, status__in=[Episode.QUEUED, Episode.RUNNING])
            .order_by("pk")
            .values_list("id", flat=True)
        )
        # The reason says why they ended: an earlier note ("worker … was stopped;
        # re-queued to resume") is about an attempt that went on after it.
        Episode.objects.filter(pk__in=ids).update(
            status=Episode.SKIPPED, end_reason=reason[:200], finished_at=timezone.now(), error="", error_kind=""
        )
        count_stopped_play(run, ids, sign=1)
        Run.objects.filter(pk=run.pk).exclude(status__in=Run.TERMINAL).update(
            status=Run.CANCELLED, finished_at=timezone.now()
        )
        for episode_id in ids:
            publish_end_on_commit(episode_id)
        page_generation.bump_on_commit()
    return len(ids)


def count_stopped_play(run: Run, episode_ids: list[int], *, sign: int) -> None:
    """What stopped episodes played (their stored steps), added to their run's aggregates
    when they stop (sign +1), taken back when they are queued again to resume (-1; their
    end adds the whole playthrough), as failed episodes' play is (run_requeue_failed).
    A replay of shipped figures leaves the figures alone, as a failed one does. The
    episodes are locked by the caller."""
    played = set(Step.objects.filter(episode_id__in=episode_ids).values_list("episode_id", flat=True).distinct())
    sums: dict[str, float] = {}
    for episode in Episode.objects.filter(pk__in=sorted(played)).order_by("pk"):
        totals = step_totals(episode)
        apply_step_totals(episode, totals)
        episode.save(update_fields=list(STEP_TOTAL_FIELDS))
        for field, delta in played_deltas(episode, totals, sign=sign).items():
            sums[field] = sums.get(field, 0) + delta
    if sums and run.shipped_figures is None:
        Run.objects.filter(pk=run.pk).update(**{field: F(field) + delta for field, delta in sums.items()})


def submission_cancel(submission: Submission) -> int:
    """Cancel every unfinished run of a submission; the number of episodes stopped."""
    stopped = 0
    for run in submission.runs.exclude(status__in=Run.TERMINAL):
        stopped += run_cancel(run)
    return stopped


ENDPOINT_FIELDS = ("base_url", "model")


def submission_update_endpoint(submission: Submission, *, changed_by, changes: dict, api_key: str | None,
                               probe: dict | None = None) -> SubmissionEdit | None:
    """Change where a submission's calls go (base URL, model name, key), keeping the
    history; the key is recorded only as "changed". None if nothing changed."""
    record: dict = {}
    with transaction.atomic():
        submission = Submission.objects.select_for_update().get(pk=submission.pk)
        for name in ENDPOINT_FIELDS:
            if name in changes and changes[name] != getattr(submission, name):
                # The history is stored in plain text: a query's values (a gateway's
                # credential) stay in the encrypted base URL only (arena.endpoints.url).
                record[name] = [getattr(submission, name), changes[name]]
                if name == "base_url":
                    record[name] = [without_query(url) for url in record[name]]
                setattr(submission, name, changes[name])
        if api_key is not None and api_key != submission.get_api_key():
            submission.set_api_key(api_key)
            record["api_key"] = "changed"
        if probe is not None:
            submission.endpoint_probe = probe
        if not record and probe is None:
            return None
        submission.save()
        if not record:
            return None
        return SubmissionEdit.objects.create(submission=submission, changed_by=changed_by, changes=record)


def submission_record_probe(submission: Submission, probe: dict) -> None:
    Submission.objects.filter(pk=submission.pk).update(endpoint_probe=probe)
