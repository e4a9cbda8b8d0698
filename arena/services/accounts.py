"""Suspending and reinstating an account (the moderation page, arena.web.moderation_views).

A suspended user can no longer sign in nor use their API token (Django refuses inactive
accounts everywhere), so cannot submit; every submission of theirs is hidden with the
reason (arena.moderation: taken down for everyone but staff, themselves included, each
hiding in the audit trail) and its unfinished episodes and matches stopped
(arena.services.takedowns). Reinstating lets them sign in again; their submissions stay
hidden until restored one by one, since an operator decides which were the abusive
ones; the episodes of those restored meanwhile play on.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from arena.models import Moderated, ModerationAction, Submission
from arena.moderation import MAX_REASON, SUSPENDED, ModerationRefused
from arena.services.takedowns import moderate_and_apply, resume_reinstated, stop_taken_down


def suspend_user(user, reason: str, by) -> int:
    """Suspend `user` (see the module's docstring); the number of submissions hidden."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise ModerationRefused("say why: the reason is shown publicly on the hidden submissions")
    if len(SUSPENDED + reason) > MAX_REASON:
        raise ModerationRefused(f"the reason has {len(reason)} characters; at most {MAX_REASON - len(SUSPENDED)}")
    if user.is_staff:
        raise ModerationRefused("staff accounts are not suspended here: take their staff status away in the admin first")
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(is_active=False)
        hidden = 0
        for submission in Submission.objects.filter(owner=user).order_by("pk"):
            if submission.moderation != Moderated.HIDDEN:
                moderate_and_apply(submission, ModerationAction.HIDE, SUSPENDED + reason, by)
                hidden += 1
            else:  # taken down before: anything it still has unfinished stops now
                stop_taken_down(submission, submission.moderation_reason)
    return hidden


def reinstate_user(user) -> int:
    """Let them sign in again; the number of their episodes queued again (those a
    takedown stopped, of their submissions restored while they were suspended)."""
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(is_active=True)
        return resume_reinstated(user)
