"""Snapshots of long episodes: resuming without replaying every step.

A worker that dies in the middle of a 100,000-step TextAtari episode leaves tens of
thousands of stored steps. The runner resumes an episode by replaying the stored
actions on a task reset with the same seed (arena.play.runner); through an emulator that
takes minutes. So for tasks that can save their state (envs.core.Task.snapshot) the
runner stores a snapshot every ARENA_SNAPSHOT_EVERY_STEPS steps — the task's state and
the agent's — and a resumed episode restores the latest one at or before its last
stored step, then replays only the steps stored after it.

The agent must come back exactly too: a baseline saves its policy's state beside the
task's (the random policy's generator; the expert keeps its state in the task); a model
agent, whose prompt is made of the stored observations and answers, is brought up to
date from the stored steps' texts without touching the task. An agent that can do
neither gets no snapshot, and its episodes are resumed by the full replay.

Only the latest snapshot of an episode is kept, and none once the episode has ended. A
snapshot is written after the steps before it are committed, so its index never passes
the stored steps (the choice at resume checks it anyway).
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from arena.models import Episode, EpisodeSnapshot, Step
from arena.services.steps import LeaseLost
from envs.core import Observation


def every_steps() -> int:
    return settings.ARENA_SNAPSHOT_EVERY_STEPS


def snapshot_store(episode_id: int, worker: str, index: int, task_state: bytes, agent_state: bytes | None) -> None:
    """Keep the state after `index` steps as the episode's snapshot, replacing the one
    before; LeaseLost if the worker no longer holds the episode."""
    with transaction.atomic():
        held = Episode.objects.filter(pk=episode_id, worker=worker, status=Episode.RUNNING).exists()
        if not held:
            raise LeaseLost(episode_id)
        EpisodeSnapshot.objects.filter(episode_id=episode_id).delete()
        EpisodeSnapshot.objects.create(
            episode_id=episode_id, index=index, task_state=task_state, agent_state=agent_state
        )


def snapshot_latest(episode_id: int, stored_steps: int) -> EpisodeSnapshot | None:
    """The latest snapshot no later than the stored steps."""
    return (
        EpisodeSnapshot.objects.filter(episode_id=episode_id, index__lte=stored_steps).order_by("-index").first()
    )


def snapshots_discard(episode_id: int) -> None:
    EpisodeSnapshot.objects.filter(episode_id=episode_id).delete()


def agent_state_to_store(agent) -> tuple[bool, bytes | None]:
    """Whether a snapshot may be stored for this agent, and its state to store with it."""
    state = agent.snapshot()
    return state is not None or agent.replays_without_task, state


def observations_before(episode_id: int, index: int) -> list[Observation] | None:
    """The observations the agent was shown at the first `index` steps, rebuilt from
    their stored texts; None if one of them was an image (the replay through the task
    then brings the agent up to date instead)."""
    rows = Step.objects.filter(episode_id=episode_id, index__lt=index).order_by("index")
    observations = []
    for text, image in rows.values_list("observation_text", "observation_image_id").iterator(chunk_size=2000):
        if image is not None:
            return None
        observations.append(Observation(text=text or ""))
    return observations
