"""The operators' marks on submissions and runs, and the audit trail of their decisions
(arena.moderation applies them)."""

from django.conf import settings
from django.db import models


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


class ModerationAction(models.Model):
    """One decision of the operators about a submission or a run, kept as the audit trail."""

    HIDE, FLAG, VERIFY, RESTORE = "hide", "flag", "verify", "restore"
    ACTION_CHOICES = [(HIDE, "hide"), (FLAG, "flag"), (VERIFY, "verify"), (RESTORE, "restore")]

    submission = models.ForeignKey(
        "arena.Submission", null=True, blank=True, related_name="moderation_actions", on_delete=models.CASCADE
    )
    run = models.ForeignKey("arena.Run", null=True, blank=True, related_name="moderation_actions", on_delete=models.CASCADE)
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
