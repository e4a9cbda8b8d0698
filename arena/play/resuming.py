"""An episode taken up from its latest snapshot (arena.services.snapshots) instead of
step 0: the task restores its saved state, and the agent its own, or it catches up on
the stored steps' texts without the task (arena.play.runner replays the steps after the
snapshot as it replays any stored step)."""

from __future__ import annotations

import asyncio

from arena.models import Step
from arena.play.dbthread import db
from arena.play.step_records import answers_of
from arena.services import snapshots


async def restore_from_snapshot(playthrough, snapshot, stored_steps: list[Step]) -> None:
    """`playthrough` (arena.play.runner's) brought to the snapshot's step, or left at
    step 0 when its agent can neither restore nor catch up (the replay through the task
    then brings it up to date)."""
    agent, count = playthrough.agent, snapshot.index
    observations = None
    if snapshot.agent_state is None:
        if not agent.replays_without_task:
            return
        observations = await db(snapshots.observations_before, playthrough.episode.pk, count)
        if observations is None or len(observations) != count:
            return
    playthrough.observation = await playthrough.off_loop(playthrough.task.restore, bytes(snapshot.task_state))
    if observations is None:
        agent.restore(bytes(snapshot.agent_state))
    else:
        await asyncio.to_thread(
            _catch_up, playthrough.task, agent, observations + [playthrough.observation], stored_steps[:count]
        )
    for stored in stored_steps[:count]:
        if "match" in stored.info:
            playthrough.matches.append(bool(stored.info["match"]))
        playthrough.total_reward += stored.reward
    if count:
        playthrough.previous_action = stored_steps[count - 1].executed_action
    playthrough.index = count


def _catch_up(task, agent, observations: list, stored_steps: list[Step]) -> None:
    """The agent's side of the replay without the task: what it was shown and answered
    at each stored step. The task's actions are those of its restored state (a task
    that can be snapshotted offers the same actions throughout)."""
    legal = task.legal_actions()
    previous = None
    for index, stored in enumerate(stored_steps):
        agent.prepare(index, observations[index], previous, legal)
        agent.replay_step(task, stored.completion, stored.parsed_action, answers_of(stored))
        agent.observe_result(index, observations[index + 1], stored.executed_action, stored.reward)
        previous = stored.executed_action
