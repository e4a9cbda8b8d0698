"""The operators' decisions about submissions and runs: hide, flag, verify, restore.

- hide: the row drops out of every ranking, CSV and rating (`ranked`), with its reason
  shown publicly on its own page ("hidden by the operators: …"); a hidden submission
  takes all its runs with it. Its unfinished episodes (and a submission's matches) stop,
  and restoring queues the stopped episodes again (arena.services.takedowns, which the
  moderation page calls). Nothing is deleted: restoring brings it back as it was.
- flag: it stays ranked, marked, with the reason (e.g. "result under review").
- verify: it stays ranked, marked as checked by the operators.
- restore: back to "as submitted".
- a hidden submission (or run) is taken down: its pages, runs, episodes, matches, live
  channels, API rows and exports answer 404 to everyone but staff (`taken_down_for`),
  without a word of why, so that neither its content nor its existence leaks. Its owner,
  signed in, still opens the pages a link, an email or a bookmark leads to (the
  submission, experiment, run and episode pages, and the API's detail of the submission,
  its experiments, runs and episodes: `owner_reads`), each under a banner saying when it was taken
  down, why and what is kept (arena.selectors.takedown_notice), with no button that
  writes; the lists, boards, matches, live channels and exports stay 404 for them too,
  since those are what would go on sharing what was taken down. Their submission list
  says "taken down: <reason>" too (templates/arena/my_submissions.html).
  A run taken down while its submission stays public is, for everyone else, a run that never
  existed: its submission's and experiments' pages, API details and lists (ids, counts,
  tokens, speed, figures) leave it out (arena.selectors.runs_shown_to), and its 404s are
  those of an id that does not exist (`not_found`); its owner reads it marked "hidden".
- suspend a user (arena.services.accounts): they can no longer sign in, their unfinished
  episodes are cancelled and every submission of theirs is hidden, with the reason.

Every decision is kept as a ModerationAction (who, when, what, why): the audit trail.
"""

from __future__ import annotations

from django.db import transaction
from django.http import Http404
from django.db.models import Q

from arena import page_generation
from arena.models import Moderated, ModerationAction, Run, Submission

STATE_OF = {
    ModerationAction.HIDE: Moderated.HIDDEN,
    ModerationAction.FLAG: Moderated.FLAGGED,
    ModerationAction.VERIFY: Moderated.VERIFIED,
    ModerationAction.RESTORE: Moderated.MODERATION_NONE,
}
# Hiding and flagging tell the public (and the owner) why; the others may say nothing.
REASON_REQUIRED = (ModerationAction.HIDE, ModerationAction.FLAG)
MAX_REASON = 500
SUSPENDED = "account suspended: "


class ModerationRefused(ValueError):
    """A decision that cannot be taken as asked; the message says why."""


def ranked(runs):
    """`runs` without the hidden ones, nor those of hidden submissions: what every
    ranking, CSV and rating is computed from."""
    return runs.exclude(moderation=Moderated.HIDDEN).exclude(submission__moderation=Moderated.HIDDEN)


def moderate(target: Submission | Run, action: str, reason: str, by) -> ModerationAction:
    """Apply the decision to the submission or run and record it; ModerationRefused
    (and nothing changed) for an unknown action, a missing or too long reason."""
    if action not in STATE_OF:
        raise ModerationRefused(f"unknown action {action!r}: one of {', '.join(STATE_OF)}")
    reason = " ".join((reason or "").split())
    if action in REASON_REQUIRED and not reason:
        raise ModerationRefused(f"say why: the reason to {action} is shown publicly")
    if len(reason) > MAX_REASON:
        raise ModerationRefused(f"the reason has {len(reason)} characters; at most {MAX_REASON}")
    if not isinstance(target, (Submission, Run)):
        raise ModerationRefused("only submissions and runs are moderated")
    state = STATE_OF[action]
    with transaction.atomic():
        type(target).objects.filter(pk=target.pk).update(
            moderation=state, moderation_reason=reason if state else ""
        )
        target.moderation, target.moderation_reason = state, (reason if state else "")
        record = ModerationAction.objects.create(
            submission=target if isinstance(target, Submission) else None,
            run=target if isinstance(target, Run) else None,
            action=action, reason=reason, by=by,
        )
        page_generation.bump_on_commit()  # cached public pages show rankings it changes
    return record


class TakenDown(ValueError):
    """A write asked of a taken-down submission or run (a new run, an experiment, a
    re-queue, a re-run): refused, nothing changed; the message says why."""


def refuse_if_taken_down(submission: Submission, run: Run | None = None) -> None:
    """TakenDown when the submission (or the run) is hidden: what it had queued was stopped
    (arena.services.takedowns) and it takes nothing new until the operators restore it."""
    for what, row in (("submission", submission), ("run", run)):
        if row is not None and row.moderation == Moderated.HIDDEN:
            raise TakenDown(
                f"This {what} was taken down by the operators ({row.moderation_reason or 'no reason given'}): "
                "it takes no new runs, experiments or re-queues until they restore it."
            )


def is_staff(user) -> bool:
    return user is not None and user.is_authenticated and user.is_staff


def owns(user, submission: Submission) -> bool:
    """Whether `user` is signed in and submitted this model."""
    return user is not None and user.is_authenticated and submission.owner_id == user.pk


def taken_down_for(user, submission: Submission, run: Run | None = None, *, owner_reads: bool = False) -> bool:
    """Whether `user` must get a 404 for this submission (or this run of it): it is
    hidden, and they are not staff, nor its owner reading a page that lets them
    (`owner_reads`: the module docstring lists them; writes never do)."""
    hidden = submission.moderation == Moderated.HIDDEN or (run is not None and run.moderation == Moderated.HIDDEN)
    return hidden and not is_staff(user) and not (owner_reads and owns(user, submission))


def not_found(model) -> Http404:
    """The 404 of a `model` row taken down for the reader: the very one of an id that does
    not exist (django.shortcuts.get_object_or_404's), so that no message tells them apart."""
    return Http404(f"No {model._meta.object_name} matches the given query.")


def visible_to(user, queryset, *, submission: str, run: str | None = None, owner_reads: bool = False):
    """`queryset` without the rows taken down for `user` (as `taken_down_for` says);
    `submission` and `run` are the paths from its model to theirs ("" for the model itself)."""
    if is_staff(user):
        return queryset
    prefix = f"{submission}__" if submission else ""
    hidden = Q(**{f"{prefix}moderation": Moderated.HIDDEN})
    if run is not None:
        hidden |= Q(**{f"{run}__moderation" if run else "moderation": Moderated.HIDDEN})
    if owner_reads and user is not None and user.is_authenticated:
        hidden &= ~Q(**{f"{prefix}owner": user.pk})
    return queryset.exclude(hidden)
