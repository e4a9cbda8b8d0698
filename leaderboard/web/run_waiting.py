"""Why an unfinished run is not moving, in words (Codabench's "stuck in Running" lesson,
docs/design.md §6): no live worker; how much work is queued ahead of it; or, once its
episodes are claimed, that they wait for a turn at the submission's endpoint."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from arena.models import Run
from arena.play.pace import endpoint_pace
from arena.selectors import run_queue_position
from leaderboard.selectors.episodes import has_queued_episodes, running_without_a_step
from leaderboard.selectors.submissions import episodes_playing_through, fresh_workers


def waiting_reason(run: Run) -> str:
    if run.status not in (Run.QUEUED, Run.RUNNING):
        return ""
    fresh = timezone.now() - timedelta(seconds=60)
    workers = fresh_workers(fresh)
    if not workers:
        return "No worker is running: the episodes wait in the queue until one starts (make serve starts one)."
    if run.status == Run.RUNNING:
        # Its claimed episodes wait for a turn, or its queued ones for the endpoint.
        return _endpoint_turns(run) or (_endpoint_busy(run) if has_queued_episodes(run) else "")
    busy = _endpoint_busy(run)
    if busy:
        return busy
    in_flight = sum(w.episodes_in_flight for w in workers)
    free_slots = max(0, len(workers) * settings.ARENA_WORKER_CONCURRENCY - in_flight)
    position = run_queue_position(run, free_slots=free_slots)
    if position is None:
        return f"Waiting for a free slot: {in_flight} episodes being played now."
    if position.start_in_seconds is None:
        estimate = "no estimate of the start yet (no episode finished in the last ten minutes)"
    elif position.start_in_seconds == 0:
        estimate = "it should start at once"
    else:
        estimate = (
            f"at the last ten minutes' pace ({position.episodes_per_minute:.1f} episodes a minute) "
            f"it should start in about {_duration(position.start_in_seconds)}"
        )
    return (
        f"Queue position {position.ahead + 1}: {position.ahead} queued episodes go before this run's next one "
        f"(submissions take turns, baselines come last), {in_flight} being played now; {estimate}."
    )


def _endpoint_turns(run: Run) -> str:
    """A claimed episode of a model or agent plays only when the endpoint has a turn
    free (arena.clients.limits: an episode keeps its turn until it ends, for the
    server's prompt cache), so a run can sit "running" with no step for as long as
    the episodes ahead take. Say so, with the endpoint's own figures when a worker
    published them."""
    if not run.submission.base_url:
        return ""
    unstarted = running_without_a_step(run)
    if not unstarted:
        return ""
    pace = endpoint_pace(run.submission)
    cap = pace["cap"] if pace else run.submission.max_concurrent_requests
    queue = ""
    if pace and pace.get("waiting"):
        queue = f" {pace['in_flight']} calls are in flight there and {pace['waiting']} episodes wait for a turn, in the order they came."
    return (
        f"{unstarted} of this run's playing episodes {'has' if unstarted == 1 else 'have'} no step yet: each waits "
        f"for its first answer or for a "
        f"turn at the endpoint, which takes {cap} call{'s' if cap != 1 else ''} at once (the submission's "
        f"concurrent requests). An episode keeps its turn until it ends, so that the server keeps its prompt "
        f"in cache.{queue}"
    )


def _endpoint_busy(run: Run) -> str:
    """A queued run whose endpoint has every turn taken: its episodes are taken from the
    queue as the endpoint's episodes end (arena.play.worker), whatever the queue says.
    Only the owner's own episodes count (arena.endpoints.tenancy): another account's use of the
    same URL neither takes this run's turns nor is told to whoever reads this page."""
    cap = run.submission.max_concurrent_requests
    if not run.submission.base_url:
        return ""
    playing = episodes_playing_through(run.submission)
    if playing < cap:
        return ""
    whose = "of this account's submissions" if run.submission.owner_id is not None else "of this submission"
    return (
        f"The endpoint is busy: {playing} episodes {whose} are playing through it or waiting for a turn, and it "
        f"takes {cap} call{'s' if cap != 1 else ''} at once (the submission's concurrent requests). This run's "
        "queued episodes start as those end."
    )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
