"""What taking a submission or a run down does to its play, and what restoring it does
(arena.moderation decides and records the state; the moderation page and suspensions
call `moderate_and_apply`).

- Taken down: its queued and running episodes stop as skipped, with the reason
  "taken down by the operators: <reason>" (a worker playing one loses its lease at its
  next step), and its unfinished runs read cancelled; a submission's queued and running
  head-to-head matches are cancelled too. So nothing of it spends its owner's endpoint
  or takes the owner's turns in the queue. Nothing is deleted: the steps played stay.
- Restored (and no longer taken down through its submission, and its owner not
  suspended): the episodes the takedown stopped are queued again in the owner's turn
  and each resumes after its last stored step, as a re-queued episode does; runs the
  owner had cancelled stay cancelled. A restored submission's matches the takedown
  cancelled are queued again, each resuming after its stored moves, once both seats can
  play (neither taken down, neither owner suspended); until then such a match stays
  cancelled and its page says it waits for both seats, never why a seat was taken down.
  A suspended owner's episodes and matches resume when they are reinstated.
"""

from __future__ import annotations

import dataclasses

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena import page_generation
from arena.live.publish import publish_match_end_on_commit
from arena.models import Episode, Match, Moderated, ModerationAction, Run, Submission
from arena.moderation import moderate
from arena.services.run_actions import count_stopped_play, run_stop
from arena.services.runs import enqueue_on_commit, plays_in_order

TAKEN_DOWN = "taken down by the operators: "
# A match's end reason is read by the other seat's owner too: it names no reason.
MATCH_TAKEN_DOWN = "cancelled: a seat was taken down by the operators"
MATCH_WAITING = MATCH_TAKEN_DOWN + "; it plays when both seats can play again"


@dataclasses.dataclass(frozen=True)
class Applied:
    record: ModerationAction
    stopped: int = 0  # episodes stopped by a takedown
    resumed: int = 0  # episodes queued again by a restore
    held: int = 0  # episodes a restore left stopped (the owner is suspended)
    matches: int = 0  # head-to-head matches queued again by a restore

    def summary(self) -> str:
        """What the operator is told beside "Done"."""
        if self.stopped:
            return (f"{_episodes(self.stopped)} stopped (kept, with the reason); they play on from where they "
                    "stopped if it is restored.")
        told = []
        if self.resumed:
            told.append(f"{_episodes(self.resumed)} stopped by the takedown queued again; each resumes after its last step.")
        if self.held:
            told.append(f"{_episodes(self.held)} stopped by the takedown stay stopped while its owner is suspended; "
                        "they resume when the account is reinstated.")
        if self.matches:
            told.append(f"{self.matches} head-to-head match{'' if self.matches == 1 else 'es'} cancelled by the "
                        "takedown queued again.")
        return " ".join(told)


def _episodes(count: int) -> str:
    return f"{count} unfinished episode{'' if count == 1 else 's'}"


def moderate_and_apply(target: Submission | Run, action: str, reason: str, by) -> Applied:
    """arena.moderation.moderate, then its effect on play (module docstring), in one
    transaction; ModerationRefused (nothing changed) as `moderate` refuses."""
    with transaction.atomic():
        was_hidden = type(target).objects.filter(pk=target.pk, moderation=Moderated.HIDDEN).exists()
        record = moderate(target, action, reason, by)
        if action == ModerationAction.HIDE:
            return Applied(record, stopped=stop_taken_down(target, record.reason))
        if was_hidden and target.moderation != Moderated.HIDDEN:
            resumed, held = resume_restored(target)
            matches = requeue_matches(target) if isinstance(target, Submission) else 0
            return Applied(record, resumed=resumed, held=held, matches=matches)
    return Applied(record)


def stop_taken_down(target: Submission | Run, reason: str) -> int:
    """Stop what the taken-down submission or run has unfinished (module docstring); the
    number of episodes stopped."""
    runs = [target] if isinstance(target, Run) else list(target.runs.exclude(status__in=Run.TERMINAL).order_by("pk"))
    stopped = sum(run_stop(run, TAKEN_DOWN + reason) for run in runs)
    if isinstance(target, Submission):
        _cancel_matches(target)
    return stopped


def _cancel_matches(submission: Submission) -> None:
    open_matches = Match.objects.filter(Q(first=submission) | Q(second=submission), status__in=(Match.QUEUED, Match.RUNNING))
    ids = list(open_matches.values_list("pk", flat=True))
    Match.objects.filter(pk__in=ids).update(status=Match.CANCELLED, end_reason=MATCH_TAKEN_DOWN, finished_at=timezone.now())
    for match_id in ids:
        publish_match_end_on_commit(match_id)


def resume_restored(target: Submission | Run) -> tuple[int, int]:
    """Queue again the episodes a takedown stopped, of the runs no longer taken down;
    (episodes resumed, episodes left stopped because the owner is suspended)."""
    submission = target.submission if isinstance(target, Run) else target
    submission.refresh_from_db(fields=["moderation"])
    runs = Run.objects.filter(pk=target.pk) if isinstance(target, Run) else submission.runs.all()
    runs = runs.filter(status=Run.CANCELLED).exclude(moderation=Moderated.HIDDEN)
    if submission.moderation == Moderated.HIDDEN:
        return 0, 0
    if submission.owner_id is not None and not get_user_model().objects.filter(pk=submission.owner_id, is_active=True).exists():
        return 0, _stopped(Episode.objects.filter(run__in=runs)).count()
    return sum(_resume_run(run) for run in runs.order_by("pk")), 0


def resume_reinstated(user) -> int:
    """A reinstated owner's episodes and matches stopped by a takedown, of their
    submissions and runs restored meanwhile, queued again; the number of episodes."""
    resumed = 0
    for submission in Submission.objects.filter(owner=user).exclude(moderation=Moderated.HIDDEN).order_by("pk"):
        resumed += resume_restored(submission)[0]
        requeue_matches(submission)
    return resumed


def _can_play(seat: Submission) -> bool:
    return seat.moderation != Moderated.HIDDEN and (seat.owner_id is None or seat.owner.is_active)


def requeue_matches(submission: Submission) -> int:
    """Queue again the submission's matches a takedown cancelled whose two seats can play
    (module docstring); the others stay cancelled, saying they wait for both seats. The
    number queued: the match worker takes them as any queued match, and one cancelled
    while playing resumes after its stored moves."""
    cancelled = Match.objects.select_related("first__owner", "second__owner").filter(
        Q(first=submission) | Q(second=submission), status=Match.CANCELLED, end_reason__startswith=MATCH_TAKEN_DOWN,
    )
    back, waiting = [], []
    for match in cancelled:
        (back if _can_play(match.first) and _can_play(match.second) else waiting).append(match.pk)
    Match.objects.filter(pk__in=waiting).update(end_reason=MATCH_WAITING)
    queued = Match.objects.filter(pk__in=back, status=Match.CANCELLED).update(
        status=Match.QUEUED, end_reason="", finished_at=None, worker="", heartbeat_at=None,
    )
    if queued:
        page_generation.bump_on_commit()  # the match list shows it queued again
    return queued


def _stopped(episodes):
    return episodes.filter(status=Episode.SKIPPED, end_reason__startswith=TAKEN_DOWN)


def _resume_run(run: Run) -> int:
    with transaction.atomic():
        # Episodes are locked before their run, as every writer does (arena.services.steps).
        stopped = list(_stopped(run.episodes.select_for_update()).order_by("pk").values_list("pk", "index", "attempts"))
        if not stopped:
            return 0
        # What they played counted when they stopped; their end counts it again, whole.
        count_stopped_play(run, [pk for pk, _, _ in stopped], sign=-1)
        Episode.objects.filter(pk__in=[pk for pk, _, _ in stopped]).update(
            status=Episode.QUEUED, worker="", end_reason="", finished_at=None,
        )
        Run.objects.filter(pk=run.pk).update(status=Run.RUNNING if run.started_at else Run.QUEUED, finished_at=None)
        if plays_in_order(run):
            # Reflexion's episodes play one at a time: the first stopped, the rest follow it.
            pk, _, attempts = min(stopped, key=lambda row: row[1])
            enqueue_on_commit([pk], resume=bool(attempts))
        else:
            # Started ones resume ahead of those not started yet, as after a worker's crash.
            enqueue_on_commit([pk for pk, _, attempts in stopped if attempts], resume=True)
            enqueue_on_commit([pk for pk, _, attempts in stopped if not attempts])
        page_generation.bump_on_commit()
    return len(stopped)
