"""The episode runner: plays one episode between an `envs` task and an agent.

Many runners share one asyncio loop in a worker (arena.play.worker); model calls are awaited,
so one process keeps dozens of episodes in flight. Database work goes to the worker's
database thread (arena.play.dbthread) and every step is committed before it is
published (arena.services.steps.step_record).

Resuming: if an episode was re-queued after its worker died, the stored steps are
replayed on a fresh task built from the same seed — their executed actions reproduce
the same states because tasks are deterministic — and play continues after the last
stored index. The agent replays each stored step too (a baseline asks its policy
again), so it goes on as it would have: same seed ⇒ same episode, across crashes.
Nothing is written twice. Tasks that can save their state are snapshotted every so many
steps, and a resumed episode replays only the steps after the latest snapshot
(arena.services.snapshots).

What each step stores (its record, images, viewer pictures) is built in
arena.play.step_records.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from arena.services.episodes import (
    episode_fail, episode_finish, episode_release, episode_set_prefix, run_budget_exhausted,
)
from arena.services.runs import run_budget_reached
from arena.services.steps import LeaseLost, StepNotStored
from arena.live import publish
from arena.services import snapshots
from arena.play import starts
from arena.play.dbthread import db, db_first, db_future
from arena.play.loading import claim_and_load
from arena.play.resuming import restore_from_snapshot
from arena.play.simulators import computing
from arena.play.stopping import EndpointWaits, StopRequested
from arena.endpoints.privacy import hide_endpoint
from arena.play.stepwriter import StepWriter
from arena.play.agents import make_agent
from arena.play.agents.base import Agent, EndpointFailed
from arena.play.step_records import ObservationImages, ViewerFrames, answers_of, step_record_of
from arena.strategies.context import ContextExhausted
from arena.variant import Variant
from arena.models import Episode, Step
from envs.registry import make

logger = logging.getLogger(__name__)


def play_episode_blocking(episode_id: int) -> None:
    """Play one episode to its end on a fresh event loop (Huey's own consumer runs the
    queued task this way, one episode per consumer thread)."""
    asyncio.run(EpisodeRunner(worker_name="huey-consumer").run(episode_id))


class EpisodeRunner:
    def __init__(self, worker_name: str, agent_factory=make_agent, writer: StepWriter | None = None):
        self.worker_name = worker_name
        self.agent_factory = agent_factory
        self.writer = writer or StepWriter()
        # Set by request_stop: every episode in play stops before its next step.
        self.stop_requested = False
        # Episodes asked to give way (request_give_way): they stop before their next step.
        self.giving_way: set[int] = set()
        # Episodes waiting on their endpoint, which request_stop interrupts.
        self.endpoint_waits = EndpointWaits()

    def request_stop(self) -> None:
        """Stop every episode at its next step boundary and give it back to the queue;
        not in the middle of a step, whose simulator call may be running on a thread.
        An episode waiting on its endpoint stops waiting now: a killed model server's
        connect and read timeouts and retries would hold the stop for minutes."""
        self.stop_requested = True
        self.endpoint_waits.interrupt()

    def request_give_way(self, episode_ids) -> None:
        """Stop these episodes at their next step boundary and give them back to the
        queue, as request_stop does, the worker playing on (baselines make way for a
        user's episodes)."""
        self.giving_way.update(episode_ids)

    def must_stop(self, episode_id: int) -> bool:
        return self.stop_requested or episode_id in self.giving_way

    async def run(self, episode_id: int, model_work_over: Callable[[], None] | None = None) -> None:
        """Play the episode to its end. `model_work_over` is called once the agent makes
        no more calls (after the reflection, before the episode's last writes; or when
        play stops or fails): a worker gives the episode's place to the next one then,
        not once its database finish is done."""
        publish.bind_loop(asyncio.get_running_loop())
        # First on the database thread: the place waits for it (arena.play.worker).
        loaded = await db_first(claim_and_load, episode_id, self.worker_name)
        if loaded is None:
            return
        agent = playthrough = None
        try:
            episode, run, submission, stored_steps, reflections, snapshot = loaded
            agent = self.agent_factory(submission, run, episode, reflections=reflections)
            task = make(run.task, run.format, **run.options)
            try:
                playthrough = _Playthrough(self, task, episode, run, agent, model_work_over)
                await playthrough.play(stored_steps, snapshot)
            finally:
                task.close()
        except LeaseLost:
            logger.warning("episode %s was taken away from %s; stopping", episode_id, self.worker_name)
        except StopRequested:
            reason = "was stopped" if self.stop_requested else "made way for a user's episode"
            if await db(episode_release, episode_id, self.worker_name, reason=reason):
                logger.info("episode %s given back to the queue: worker %s %s", episode_id, self.worker_name, reason)
        except StepNotStored as exc:
            # Its steps must be stored in order, so this episode cannot go on; the other
            # episodes whose steps shared the batch were stored and play on.
            await db(episode_fail, episode_id, str(exc), worker=self.worker_name)
        except EndpointFailed as exc:
            await db(
                episode_fail,
                episode_id, f"model endpoint failed: {exc}", worker=self.worker_name, kind=exc.kind or "",
            )
        except Exception as exc:  # a bug or a broken simulator must not take the worker down
            logger.exception("episode %s crashed", episode_id)
            await db(
                episode_fail,
                episode_id, f"internal error while playing: {type(exc).__name__}: {exc}", worker=self.worker_name
            )
        finally:
            self.giving_way.discard(episode_id)
            if playthrough is not None:
                await playthrough.end_model_work()
            elif agent is not None:
                await agent.aclose()


class _Playthrough:
    """One attempt at one episode: replay what an earlier attempt stored, play on live,
    then finish (or stop at the run's budget, or at the end of the context window)."""

    def __init__(self, runner: EpisodeRunner, task, episode: Episode, run, agent: Agent,
                 model_work_over: Callable[[], None] | None = None):
        self.runner = runner
        self.model_work_over = model_work_over
        self.model_work_ended = False
        self.worker = runner.worker_name
        self.task = task
        self.episode = episode
        self.run = run
        self.agent = agent
        self.images = ObservationImages()
        self.total_reward = 0.0
        self.matches: list[bool] = []
        self.previous_action: str | None = None
        self.observation = None
        self.index = 0
        self.end_reason = ""
        self.pending_write: asyncio.Future | None = None
        self.snapshot_every = snapshots.every_steps() if task.supports_snapshots else 0
        self.frames = ViewerFrames(task)

    async def off_loop(self, function, *args):
        # Engine searches and physics rollouts leave the loop free for other episodes.
        if self.task.blocking:
            if self.task.cpu_bound:  # no more threads than cores (arena.play.simulators)
                return await computing(function, *args)
            return await asyncio.to_thread(function, *args)
        return function(*args)

    async def play(self, stored_steps: list[Step], snapshot=None) -> None:
        try:
            await self._play(stored_steps, snapshot)
        except BaseException:
            await self.end_model_work()
            await self._settle_pending_write()
            raise

    async def end_model_work(self) -> None:
        """The agent makes no more calls: its endpoint's slot and client are given back
        and the worker told, so the next episode's calls start while this one's last
        writes wait their turn on the database thread (once; the first call counts)."""
        if self.model_work_ended:
            return
        self.model_work_ended = True
        try:
            await self.agent.aclose()
        finally:
            if self.model_work_over is not None:
                self.model_work_over()

    async def _settle_pending_write(self) -> None:
        """The step written last is committed (or refused) before the episode is failed
        or released: its write was not awaited, and the writer may be gathering."""
        pending = self.pending_write
        if pending is not None and not pending.done():
            self.runner.writer.hurry()
            await asyncio.wait([pending])

    async def _play(self, stored_steps: list[Step], snapshot=None) -> None:
        self.observation = await self._reset()
        await self._begin()
        if snapshot is not None:
            await restore_from_snapshot(self, snapshot, stored_steps)
        ended = await self._replay(stored_steps[self.index :])
        try:
            if not ended and not await self._play_live():
                return  # stopped at the run's budget
        except ContextExhausted as exhausted:
            # Nothing more could be dropped from the prompt: the episode ends here with
            # the score it reached, as a finished episode (not a failure of the model).
            logger.info("episode %s: %s", self.episode.pk, exhausted)
            self.end_reason = f"context window exhausted at step {self.index}"
        await self._finish()

    async def _reset(self):
        """The task reset to the episode's seed; from a start built in a start process
        when the task builds one (arena.play.starts), else by the task itself."""
        seed = self.episode.seed
        built = await starts.built(self.task, seed)
        if built is None:
            return await self.off_loop(self.task.reset, seed)
        return await self.off_loop(self.task.reset_built, seed, built)

    async def _begin(self) -> None:
        agent = self.agent
        # Drawing demonstrations may build a pool (CPU work, no database): off the loop.
        if agent.begins_instantly:
            prefix, demo_seeds = agent.begin(self.task, self.observation, self.images)
        else:
            prefix, demo_seeds = await asyncio.to_thread(agent.begin, self.task, self.observation, self.images)
        if prefix and not self.episode.prompt_prefix:
            # Stored while the first model call is made, as a step's write overlaps the
            # next call: the first step's flush awaits it, so no step is stored before
            # its episode's prefix, and a lost lease stops play there.
            self.pending_write = db_future(
                episode_set_prefix, self.episode.pk, self.worker, prefix, demo_seeds,
                capped=agent.demonstrations_capped,
            )

    async def _snapshot(self) -> None:
        """Store the episode's state after `index` steps, those steps committed first."""
        await self._flush()
        storable, agent_state = snapshots.agent_state_to_store(self.agent)
        if not storable:
            self.snapshot_every = 0
            return
        state = await self.off_loop(self.task.snapshot)
        await db(snapshots.snapshot_store, self.episode.pk, self.worker, self.index, state, agent_state)

    async def _replay(self, stored_steps: list[Step]) -> bool:
        """Replay the steps an earlier attempt stored; True if the episode had ended."""
        for stored in stored_steps:
            self._stop_if_requested()
            self.agent.prepare(self.index, self.observation, self.previous_action, self.task.legal_actions())
            # In the order of live play: the agent decides, then the task steps.
            await self.off_loop(
                self.agent.replay_step, self.task, stored.completion, stored.parsed_action, answers_of(stored)
            )
            result = await self.off_loop(self.task.step, stored.executed_action)
            self.agent.observe_result(self.index, self.observation, stored.executed_action, result.reward)
            if "match" in stored.info:
                self.matches.append(bool(stored.info["match"]))
            self._advance(result)
            if result.done:
                self.end_reason = result.end_reason or ""
                return True
        return False

    def _stop_if_requested(self) -> None:
        if self.runner.must_stop(self.episode.pk):
            raise StopRequested(self.episode.pk)

    def _advance(self, result) -> None:
        self.total_reward += result.reward
        self.previous_action = result.executed_action
        self.observation = result.observation
        self.index += 1

    async def _play_live(self) -> bool:
        """Play until the episode ends; False if the run's budget stopped it first."""
        task, agent = self.task, self.agent
        budgeted = self.run.budget_tokens is not None or self.run.budget_usd is not None
        frame = await self.off_loop(self.frames.at, self.index)
        # The task applies its own step limit (envs.core.Task.step): play until it says done.
        while True:
            if self.runner.must_stop(self.episode.pk):
                await self._flush()  # the step played last is committed before the release
                self._stop_if_requested()
            if budgeted and self.pending_write is not None:
                self.runner.writer.hurry()  # the tokens of the step before count, as they did
            if budgeted and await db(run_budget_reached, self.run.pk):
                await self.end_model_work()
                await self._flush()
                await db(run_budget_exhausted, self.run.pk, self.episode.pk, self.worker)
                return False
            legal = task.legal_actions()
            image = self.images.write(self.observation.image) if self.observation.image is not None else None
            prompt_added = agent.prepare(self.index, self.observation, self.previous_action, legal)
            decision = await self._unless_stopped(agent.decide(task, self.index, prompt_added))
            if decision.forced_action is not None:
                # Teacher forcing (replay control): the demonstration's action is
                # executed; the step records whether the model's matched it.
                result, next_frame = await self.off_loop(self._step, decision.forced_action)
                legal_answer = decision.parsed_action in legal if legal else decision.parsed_action is not None
                self.matches.append(decision.parsed_action == decision.forced_action)
            else:
                action = decision.parsed_action if decision.parsed_action is not None else ""
                result, next_frame = await self.off_loop(self._step, action)
                legal_answer = result.legal
            self.end_reason = result.end_reason or ""
            record = step_record_of(self.index, self.observation, image, prompt_added, decision, result, legal_answer)
            # A step's error is public: a retried call may have quoted the endpoint's address.
            record.error = hide_endpoint(record.error, self.run.submission.base_url)
            self.frames.attach(record, frame)
            frame = next_frame
            # The write of step k overlaps the model call of step k+1; at most one
            # write is outstanding, so a lost lease still stops play one step later.
            await self._flush()
            self.pending_write = self.runner.writer.submit(self.episode.pk, self.worker, record, may_wait=True)
            agent.observe_result(self.index, self.observation, result.executed_action, result.reward)
            self._advance(result)
            if result.done:
                break
            if self.snapshot_every and self.index % self.snapshot_every == 0:
                await self._snapshot()
        return True

    async def _unless_stopped(self, waiting):
        """`waiting`, the agent's call to its endpoint, awaited unless the worker stops
        first (arena.play.stopping). A baseline's policy computes on a thread, which the
        episode's end would pull the task from under: its step is finished first."""
        if not self.agent.waits_on_endpoint:
            return await waiting
        return await self.runner.endpoint_waits.wait(self.episode.pk, waiting)

    def _step(self, action: str):
        """The task's step, and the viewer's picture of the state it leads to (taken in
        the same hop off the event loop)."""
        result = self.task.step(action)
        return result, (None, None) if result.done else self.frames.at(self.index + 1)

    async def _flush(self) -> None:
        if self.pending_write is not None:
            pending, self.pending_write = self.pending_write, None
            if not pending.done():
                self.runner.writer.hurry()
            await pending

    async def _finish(self) -> None:
        observation = self.observation
        final_image = self.images.write(observation.image) if observation.image is not None else None
        reflection = ("", 0, 0)
        if Variant.of(self.run).reflection != "none":
            # The last step's write overlaps the reflection's call, as each step's the next.
            outcome = f"total reward {self.total_reward:g}, {self.end_reason or 'step limit'}"
            reflection = await self._unless_stopped(self.agent.reflect(outcome))
        await self.end_model_work()
        await self._flush()  # every step is committed before the episode is finished
        await db(
            episode_finish,
            self.episode.pk,
            self.worker,
            score=self.total_reward,
            end_reason=self.end_reason or "step limit",
            final_text=observation.text,
            final_image=final_image,
            metrics=_metrics(self.task, self.matches),
            reflection=reflection,
        )
        if self.task.supports_snapshots:
            await db(snapshots.snapshots_discard, self.episode.pk)


def _metrics(task, matches: list[bool]) -> dict:
    metrics = dict(task.episode_metrics())
    if matches:
        metrics["replay_accuracy"] = [1.0 if m else 0.0 for m in matches]
        metrics["replay_match_rate"] = sum(matches) / len(matches)
    return metrics
