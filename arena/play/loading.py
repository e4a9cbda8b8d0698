"""What a worker takes an episode with (its endpoint, arena.play.worker) and what a
runner starts it from, read on the worker's database thread (arena.play.runner)."""

from __future__ import annotations

from arena.endpoints.tenancy import endpoint_key
from arena.models import Episode
from arena.selectors import Endpoint
from arena.services import snapshots
from arena.services.episodes import episode_claim, episode_has_steps, reflections_for
from arena.services.prepared import Prepared, PreparedGet


def claim_and_load(episode_id: int, worker: str):
    """The episode claimed for `worker` with what its runner starts from (its run,
    submission, stored steps, the run's reflections so far, its latest snapshot), in
    one hop to the database thread; None if another worker has it or it is done."""
    if not episode_claim(episode_id, worker):
        return None
    episode = EPISODE_RUN_SUBMISSION.get(episode_id)
    reflections = reflections_for(episode)
    # `episode` is read too: the related manager sets it on every row it yields, and a
    # deferred foreign key would cost one query per stored step (minutes at 70,000).
    # Calls (with the columns their stored form leaves to the step) and reasoning items:
    # the client is given back what came with each earlier answer (answers_of).
    fields = ("episode", "index", "executed_action", "info", "completion", "parsed_action", "reward",
              "calls", "reasoning_items", "tokens_in", "tokens_out", "cached_tokens_in", "latency_ms")
    steps = list(episode.steps.order_by("index").only(*fields)) if episode_has_steps(episode_id) else []
    snapshot = snapshots.snapshot_latest(episode_id, len(steps)) if steps else None
    return episode, episode.run, episode.run.submission, steps, reflections, snapshot


# The claimed episode with its run and submission, as
# `Episode.objects.select_related("run__submission").get(pk=…)` loads them, the SQL written once.
EPISODE_RUN_SUBMISSION = PreparedGet(Episode, ("run", "submission"))


def episode_endpoint(episode_id: int) -> Endpoint | None:
    """The endpoint an episode's submission plays through (a model's or an agent's);
    None for a baseline's episode, or one that no longer exists."""
    _, row, _ = _ENDPOINT_OF_EPISODE.execute(episode_id=episode_id)
    if row is None or not row[0]:
        return None
    base_url, limit, owner_id, submission_id = row
    return Endpoint(endpoint_key(base_url, owner_id, submission_id), limit)


# Asked by a worker for every episode it takes: the ORM's statement written once
# (arena.services.prepared; building it cost ~1.5 ms of CPU, running it microseconds).
_ENDPOINT_OF_EPISODE = Prepared(
    lambda episode_id: list(
        Episode.objects.filter(pk=episode_id).order_by().values_list(
            "run__submission__base_url", "run__submission__max_concurrent_requests",
            "run__submission__owner_id", "run__submission_id",
        )[:1]
    )
)
