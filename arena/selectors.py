"""Reads of the write side that its own pages need (the leaderboard has its own)."""

from __future__ import annotations

import dataclasses

from django.db.models import Sum

from arena.models import Episode, Run, Submission
from envs.registry import all_tasks


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
