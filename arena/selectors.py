"""Reads of the write side that its own pages need (the leaderboard has its own)."""

from __future__ import annotations

import dataclasses

from django.db.models import Sum

from arena.models import Submission


@dataclasses.dataclass(frozen=True)
class EndpointSpeed:
    calls: int
    mean_latency_ms: float | None
    tokens_per_second: float | None


def endpoint_speed(submission: Submission) -> EndpointSpeed:
    """How fast the endpoint has answered over all the submission's episodes (summed
    when each episode ends): mean latency per call and generated tokens per second of
    waiting. Retried attempts are not counted, only the attempt that answered."""
    sums = submission.runs.aggregate(calls=Sum("model_calls"), latency=Sum("model_latency_ms"), out=Sum("tokens_out"))
    calls, latency = sums["calls"] or 0, sums["latency"] or 0.0
    if not calls:
        return EndpointSpeed(0, None, None)
    tokens_per_second = (sums["out"] or 0) / (latency / 1000.0) if latency > 0 and sums["out"] else None
    return EndpointSpeed(calls, latency / calls, tokens_per_second)
