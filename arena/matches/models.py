"""The stored shape of a head-to-head match (imported by arena.models so Django sees it).

A match is one game between two seats. The seat that moves first (white in chess, X in
tic-tac-toe, the first player in Connect Four) is `first`. Each opening is played twice
with colours swapped; the two games share `pair_key`, so a pair of submissions always
plays both sides of the same start."""

from django.db import models


class Match(models.Model):
    QUEUED, RUNNING, FINISHED, FAILED, CANCELLED = "queued", "running", "finished", "failed", "cancelled"
    STATUS_CHOICES = [(s, s) for s in (QUEUED, RUNNING, FINISHED, FAILED, CANCELLED)]
    TERMINAL = (FINISHED, FAILED, CANCELLED)

    # The two-player game, by its slug in the head-to-head game table ("chess", …).
    game = models.CharField(max_length=32, db_index=True)
    first = models.ForeignKey("arena.Submission", related_name="matches_as_first", on_delete=models.CASCADE)
    second = models.ForeignKey("arena.Submission", related_name="matches_as_second", on_delete=models.CASCADE)
    # The shared start: a seed that picks the opening; both games of a pair carry it.
    opening_seed = models.BigIntegerField(default=0)
    pair_key = models.CharField(max_length=64, blank=True, db_index=True)
    # Which scheduling round queued it (ratings read all rounds alike).
    round = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=QUEUED, db_index=True)
    # The first seat's score: 1 win, 0.5 draw, 0 loss; None until finished.
    result = models.FloatField(null=True, blank=True)
    # Why it ended, in a reader's words ("checkmate", "second forfeits: 3 illegal moves", …).
    end_reason = models.CharField(max_length=200, blank=True)
    num_moves = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # Of a match failed by a seat's endpoint: the arena.clients.errors.ErrorKind and the
    # seat (0 first, 1 second), so that readers other than that seat's owner and staff
    # read the kind rather than the endpoint's message (arena.endpoints.public_errors).
    error_kind = models.CharField(max_length=32, blank=True)
    failed_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    harness_version = models.CharField(max_length=64, blank=True, default="")
    # The shared start as a reader sees it: the opening's name (chess) and its moves.
    opening = models.CharField(max_length=200, blank=True)
    opening_moves = models.JSONField(default=list, blank=True)
    # The position the first move is played from (FEN for chess, the grid for the others).
    start_board = models.TextField(blank=True)
    # The worker playing it (a running match) and when it last said so: a match whose
    # worker fell silent is given back to the queue and resumed after its stored moves.
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "arena"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(first=models.F("second")), name="match_seats_differ"),
            models.CheckConstraint(
                condition=models.Q(result__isnull=True) | models.Q(result__in=[0.0, 0.5, 1.0]),
                name="match_result_is_a_game_score",
            ),
        ]

    def __str__(self):
        return f"{self.game}: {self.first} v {self.second} ({self.status})"


class MatchMove(models.Model):
    """One move of a match: what the seat to move was shown, every answer it gave (an
    illegal answer is answered with feedback and asked again, up to MAX_ATTEMPTS), and
    the position after it. Enough to replay exactly what each side saw and said."""

    match = models.ForeignKey(Match, related_name="moves", on_delete=models.CASCADE)
    # 0 for the first move after the opening.
    index = models.PositiveIntegerField()
    # 0: the match's first seat, 1: its second.
    seat = models.PositiveSmallIntegerField()
    # The board as the seat was shown it (the model's observation; a baseline sees the same).
    observation = models.TextField(blank=True)
    # The messages of the first attempt, exactly as sent (empty for a baseline).
    messages = models.JSONField(default=list, blank=True)
    # The last attempt's answer, its reasoning and the move read from it.
    completion = models.TextField(blank=True)
    reasoning = models.TextField(blank=True)
    parsed_action = models.CharField(max_length=200, blank=True)
    # The move played; blank when the seat forfeited on this move.
    action = models.CharField(max_length=32, blank=True)
    legal = models.BooleanField(default=True)
    # Every attempt: {"messages_added", "completion", "reasoning", "parsed_action",
    # "legal", "feedback", "tokens_in", "tokens_out", "reasoning_tokens", "latency_ms"}.
    attempts = models.JSONField(default=list, blank=True)
    num_attempts = models.PositiveSmallIntegerField(default=1)
    tokens_in = models.PositiveIntegerField(null=True, blank=True)
    tokens_out = models.PositiveIntegerField(null=True, blank=True)
    reasoning_tokens = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    # The position after the move (FEN for chess, the grid for the others).
    board_after = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "arena"
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint(fields=["match", "index"], name="one_match_move_per_index")]

    def __str__(self):
        return f"match {self.match_id} move {self.index}: {self.action or 'forfeit'}"
