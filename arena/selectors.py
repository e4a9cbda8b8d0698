"""Reads of the write side that its own pages need (the leaderboard has its own)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection

from django.conf import settings
from django.db.models import Prefetch, Q, Sum

from arena.moderation import is_staff, owns, visible_to
from arena.models import Episode, Experiment, Moderated, ModerationAction, Run, Submission
from envs import harness
from envs.registry import all_tasks, suite_of


@dataclasses.dataclass(frozen=True)
class EndpointSpeed:
    calls: int
    mean_latency_ms: float | None
    tokens_per_second: float | None


def runs_shown_to(viewer, runs):
    """`runs` without those taken down for `viewer`: a stranger reads a submission as if its
    taken-down runs never existed (no row, link, count, figure or point of theirs); its
    owner reads them, marked, and staff everything (arena.moderation)."""
    return visible_to(viewer, runs, submission="submission", run="", owner_reads=True)


def endpoint_speed(submission: Submission, viewer) -> EndpointSpeed:
    """How fast the endpoint has answered over the submission's episodes (summed when
    each episode ends) of the runs `viewer` may read: mean latency per call and generated
    tokens per second of waiting. Retried attempts are not counted, only the attempt
    that answered."""
    sums = runs_shown_to(viewer, submission.runs.all()).aggregate(calls=Sum("model_calls"), latency=Sum("model_latency_ms"), out=Sum("tokens_out"))
    calls, latency = sums["calls"] or 0, sums["latency"] or 0.0
    if not calls:
        return EndpointSpeed(0, None, None)
    tokens_per_second = (sums["out"] or 0) / (latency / 1000.0) if latency > 0 and sums["out"] else None
    return EndpointSpeed(calls, latency / calls, tokens_per_second)


@dataclasses.dataclass(frozen=True)
class Endpoint:
    key: str  # the tenant's use of the URL (arena.endpoints.tenancy)
    max_concurrent_requests: int


def _playing(playing_here: Collection[int]):
    """Episodes playing: those running anywhere, and those a worker has started and not
    yet claimed (still queued in the table for a few milliseconds)."""
    return Episode.objects.filter(Q(status=Episode.RUNNING) | Q(pk__in=list(playing_here)))


def newcomer_waiting(playing_here: Collection[int] = ()) -> bool:
    """Whether a user's submission has episodes queued and none playing anywhere
    (`playing_here`: the asking worker's episodes, claimed or about to be)."""
    playing = _playing(playing_here).values("run__submission_id")
    queued = (
        Episode.objects.filter(status=Episode.QUEUED)
        .exclude(pk__in=list(playing_here))
        .exclude(run__submission__kind=Submission.KIND_BASELINE)
    )
    return queued.exclude(run__submission_id__in=playing).exists()


def endpoint_playing(base_url: str) -> bool:
    """Whether an episode is playing through the endpoint at `base_url` now (any
    submission's: endpoints shared by submissions share their slots)."""
    base_url = (base_url or "").strip().rstrip("/")
    if not base_url:
        return False
    return Episode.objects.filter(
        status=Episode.RUNNING, run__submission__base_url__in=[base_url, base_url + "/"]
    ).exists()


def submission_playing(episode_id: int, playing_here: Collection[int] = ()) -> bool:
    """Whether the submission of the episode has an episode playing anywhere (as in
    `newcomer_waiting`)."""
    submission_id = Episode.objects.filter(pk=episode_id).values_list("run__submission_id", flat=True).first()
    return submission_id is not None and _playing(playing_here).filter(run__submission_id=submission_id).exists()


@dataclasses.dataclass(frozen=True)
class RunProgress:
    percent: float  # of the run's steps: finished and failed episodes count whole
    steps_running: int  # steps played so far by its running episodes
    step_limit: int | None  # an episode's step limit (None: a task the arena does not play)


def run_progress(run: Run) -> RunProgress:
    """How far a run has got, counting the steps of its running episodes against their
    step limit, so that a run of one 100,000-step episode moves before that episode ends."""
    task_class = all_tasks().get(run.task)  # imported runs may name tasks the arena does not play
    limit = run.options.get("max_steps") or (task_class.max_steps if task_class else None)
    running = 0
    if run.status == Run.RUNNING and limit:
        running = run.episodes.filter(status=Episode.RUNNING).aggregate(steps=Sum("num_steps"))["steps"] or 0
    if not run.num_episodes:
        return RunProgress(0.0, running, limit)
    played = run.episodes_done + run.episodes_failed + (running / limit if limit else 0)
    return RunProgress(100.0 * min(played, run.num_episodes) / run.num_episodes, running, limit)


# The pace a start is estimated from: episodes finished over this many seconds.
QUEUE_PACE_SECONDS = 600


@dataclasses.dataclass(frozen=True)
class QueuePosition:
    ahead: int  # queued episodes taken before the run's next one
    episodes_per_minute: float  # finished over the last QUEUE_PACE_SECONDS
    start_in_seconds: float | None  # None: nothing finished lately to estimate from


def run_queue_position(run: Run, free_slots: int = 0, now=None) -> QueuePosition | None:
    """Where a run's next episode waits in the queue (arena.queue's fair order), and
    when it should start: at once if fewer are ahead than the workers have free slots,
    else when those ahead have been taken at the pace of the last ten minutes. None if
    the run has no episode waiting."""
    from datetime import timedelta

    from django.utils import timezone

    from arena import queue

    priority = (
        run.episodes.filter(status=Episode.QUEUED, queue_priority__isnull=False)
        .order_by("-queue_priority")
        .values_list("queue_priority", flat=True)
        .first()
    )
    if priority is None:
        return None
    ahead = queue.messages_ahead(priority)
    now = now or timezone.now()
    finished = Episode.objects.filter(
        finished_at__gte=now - timedelta(seconds=QUEUE_PACE_SECONDS), status__in=Episode.TERMINAL
    ).count()
    per_second = finished / QUEUE_PACE_SECONDS
    if ahead < free_slots:
        start = 0.0
    else:
        start = (ahead + 1 - free_slots) / per_second if per_second else None
    return QueuePosition(ahead, per_second * 60, start)


def same_runs_key(run: Run) -> str:
    """Runs with equal keys play the same games the same way (a re-run and its original)."""
    return json.dumps([run.task, run.variant, run.first_seed, run.num_episodes, run.experiment_id], sort_keys=True)


def older_runs(submission: Submission, runs=None) -> list[Run]:
    """The submission's runs (those of `runs`, a queryset of them, when given) played under
    an older harness than their suite's current one and not played again since: the ones
    a re-run would bring current. Cancelled runs are left out (their owner stopped them),
    and so are imported runs (never played here). So are the runs the operators took down,
    for everyone, their owner included: one is never played again, nor does one played
    again count as the older run's replacement (as if it had never existed, which is how
    strangers, and the rankings, read the submission: arena.moderation)."""
    runs = (submission.runs.all() if runs is None else runs).exclude(status=Run.CANCELLED)
    runs = list(runs.exclude(moderation=Moderated.HIDDEN).order_by("id"))
    current_keys = set()
    older = []
    for run in runs:
        try:
            suite = suite_of(run.task)
        except KeyError:
            continue
        if harness.standing(run.harness_version, suite).is_old:
            older.append(run)
        else:
            current_keys.add(same_runs_key(run))
    return [run for run in older if same_runs_key(run) not in current_keys]


def taken_down_text(submissions) -> str:
    """What the operators took down among `submissions` (with their runs prefetched), as
    the owner's submission list announces it: "1 submission and 2 runs"; "" for nothing."""
    hidden_submissions = [s for s in submissions if s.is_hidden]
    hidden_runs = [r for s in submissions if not s.is_hidden for r in s.runs.all() if r.is_hidden]
    parts = [f"{n} {noun}{'' if n == 1 else 's'}" for n, noun in
             ((len(hidden_submissions), "submission"), (len(hidden_runs), "run")) if n]
    return " and ".join(parts)


# What the owner of something taken down reads on its pages and in the API's `takedown`.
TAKEN_DOWN_KEPT = (
    "Only you and the operators can open it: to everyone else it is not found, and its results are left out "
    "of every ranking, CSV and rating. Nothing was deleted: its runs, episodes and steps are kept as they were. "
    "Meanwhile it takes no new runs, experiments or re-queues and its exports are not served; if the operators "
    "restore it, the episodes the takedown stopped play on from where they stopped{matches}."
)
TAKEN_DOWN_MATCHES = " and the head-to-head matches it cancelled are played again"
TAKEN_DOWN_CONTACT = "To contest the decision, contact the operators of this arena{at}, quoting the {what}'s number (#{pk})."


@dataclasses.dataclass(frozen=True)
class TakedownNotice:
    what: str  # "submission" or "run"
    pk: int
    reason: str
    on: object  # the takedown's datetime; None for one taken down before decisions were recorded

    @property
    def kept(self) -> str:
        # Only a submission plays head-to-head: a run's takedown cancels no match.
        return TAKEN_DOWN_KEPT.format(matches=TAKEN_DOWN_MATCHES if self.what == "submission" else "")

    @property
    def reason_sentence(self) -> str:
        """The reason as the banner's sentence ends it (one full stop, whatever was typed)."""
        return self.reason.rstrip(" .") or "no reason given"

    @property
    def contact(self) -> str:
        at = f" ({settings.ARENA_OPERATOR_CONTACT})" if settings.ARENA_OPERATOR_CONTACT else ""
        return TAKEN_DOWN_CONTACT.format(what=self.what, pk=self.pk, at=at)

    def to_json(self) -> dict:
        return {
            "status": "taken_down", "what": self.what, "id": self.pk, "reason": self.reason,
            "on": self.on.isoformat() if self.on else None, "kept": self.kept, "contact": self.contact,
        }


def takedown_notice(submission: Submission, run: Run | None = None) -> TakedownNotice | None:
    """Why the submission, or this run of it, is taken down and since when (its latest
    "hide" decision); None when neither is. The submission's takedown comes first: it
    takes every run with it."""
    for what, row in (("submission", submission), ("run", run)):
        if row is not None and row.moderation == Moderated.HIDDEN:
            decision = (ModerationAction.objects.filter(**{what: row}, action=ModerationAction.HIDE)
                        .order_by("-at", "-pk").first())
            return TakedownNotice(what, row.pk, row.moderation_reason, decision.at if decision else None)
    return None


def owners_takedown_notice(viewer, submission: Submission, run: Run | None = None) -> TakedownNotice | None:
    """The banner of a page the owner opens on something taken down (arena.moderation:
    `owner_reads`); None for anyone else: staff read the moderation marks as before, and
    everyone else got a 404 already."""
    if not owns(viewer, submission) or is_staff(viewer):
        return None
    return takedown_notice(submission, run)


def runs_exported_for(viewer, submission: Submission):
    """The submission's runs an export shares with `viewer`: all of them for staff, but the
    taken-down ones for everyone else, its owner included (an export is what would go on
    sharing them, arena.moderation)."""
    return visible_to(viewer, submission.runs.all(), submission="submission", run="")


def _runs_read_by(viewer) -> Prefetch:
    """A submission's or experiment's `runs` as `viewer` reads them: a stranger as if its
    taken-down runs never existed (their ids, and the tokens the submission's figures sum),
    its owner and staff all of them (arena.moderation)."""
    return Prefetch("runs", queryset=runs_shown_to(viewer, Run.objects.all()))


def api_submissions(viewer, *, owner_reads: bool):
    """The API's submissions for `viewer`, newest first, each with the runs they may read;
    the taken-down ones left out as arena.moderation.visible_to says (`owner_reads`)."""
    submissions = Submission.objects.prefetch_related(_runs_read_by(viewer)).order_by("-created_at")
    return visible_to(viewer, submissions, submission="", owner_reads=owner_reads)


def api_experiments(viewer, *, owner_reads: bool):
    """The API's experiments for `viewer`, newest first, as `api_submissions`."""
    experiments = Experiment.objects.select_related("submission").prefetch_related(_runs_read_by(viewer))
    return visible_to(viewer, experiments.order_by("-created_at"), submission="submission", owner_reads=owner_reads)
