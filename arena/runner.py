"""The episode runner: plays one episode between an `envs` task and an agent.

Many runners share one asyncio loop in a worker (arena.worker); model calls are awaited,
so one process keeps dozens of episodes in flight. Database work goes to the worker's
database thread (arena.dbthread) and every step is committed before it is
published (arena.services.step_record).

Resuming: if an episode was re-queued after its worker died, the stored steps are
replayed on a fresh task built from the same seed — their executed actions reproduce
the same states because tasks are deterministic — and play continues after the last
stored index. Nothing is written twice.
"""

from __future__ import annotations

import asyncio
import json
import logging


from arena import live, services
from arena.dbthread import db
from arena.stepwriter import StepWriter
from arena.agents import EndpointFailed, make_agent
from arena.images import ImageRef, write_png, write_png_bytes
from arena.models import Episode, Step
from envs.registry import make

logger = logging.getLogger(__name__)


class _ObservationImages:
    """Writes each observation's PNG once, even when both the step record and the
    prompt refer to it."""

    def __init__(self):
        self._last: tuple[int, ImageRef] | None = None

    def write(self, image) -> ImageRef:
        if self._last is not None and self._last[0] == id(image):
            return self._last[1]
        ref = write_png(image)
        self._last = (id(image), ref)
        return ref

    def sha(self, observation) -> str:
        """The stored PNG's hash of an observation's image: a live frame, or a pool
        observation that already holds its PNG bytes."""
        png = getattr(observation, "png", None)
        if png is not None:
            return write_png_bytes(png, observation.width, observation.height).sha256
        return self.write(observation.image).sha256


class EpisodeRunner:
    def __init__(self, worker_name: str, agent_factory=make_agent, writer: StepWriter | None = None):
        self.worker_name = worker_name
        self.agent_factory = agent_factory
        self.writer = writer or StepWriter()

    async def run(self, episode_id: int) -> None:
        live.bind_loop(asyncio.get_running_loop())
        loaded = await db(_claim_and_load, episode_id, self.worker_name)
        if loaded is None:
            return
        agent = None
        try:
            episode, run, submission, stored_steps = loaded
            agent = self.agent_factory(submission, run, episode)
            await self._play(episode, run, agent, stored_steps)
        except services.LeaseLost:
            logger.warning("episode %s was taken away from %s; stopping", episode_id, self.worker_name)
        except EndpointFailed as exc:
            await db(
                services.episode_fail,
                episode_id, f"model endpoint failed: {exc}", worker=self.worker_name
            )
        except Exception as exc:  # a bug or a broken simulator must not take the worker down
            logger.exception("episode %s crashed", episode_id)
            await db(
                services.episode_fail,
                episode_id, f"internal error while playing: {type(exc).__name__}: {exc}", worker=self.worker_name
            )
        finally:
            if agent is not None:
                await agent.aclose()

    async def _play(self, episode: Episode, run, agent, stored_steps: list[Step]) -> None:
        task = make(run.task, run.format, **run.options)
        try:
            await self._play_task(task, episode, run, agent, stored_steps)
        finally:
            task.close()

    async def _play_task(self, task, episode: Episode, run, agent, stored_steps: list[Step]) -> None:
        # Engine searches and physics rollouts leave the loop free for other episodes.
        step = (lambda action: asyncio.to_thread(task.step, action)) if task.blocking else _immediately(task.step)
        images = _ObservationImages()
        observation = await asyncio.to_thread(task.reset, episode.seed) if task.blocking else task.reset(episode.seed)
        # Drawing demonstrations may build a pool (CPU work, no database): off the loop.
        if getattr(agent, "begins_instantly", False):
            prefix, demo_seeds = agent.begin(task, observation, images.sha)
        else:
            prefix, demo_seeds = await asyncio.to_thread(agent.begin, task, observation, images.sha)
        if prefix and not episode.prompt_prefix:
            await db(
                services.episode_set_prefix, episode.pk, self.worker_name, prefix, demo_seeds,
                capped=agent.demonstrations_capped,
            )

        total_reward = 0.0
        pending_write: asyncio.Future | None = None
        budgeted = run.budget_tokens is not None or run.budget_usd is not None
        matches: list[bool] = []
        previous_action: str | None = None
        end_reason = ""
        index = 0
        # Replay what an earlier attempt already stored.
        for stored in stored_steps:
            agent.prepare(index, observation, previous_action, task.legal_actions())
            result = await step(stored.executed_action)
            agent.observe_result(index, observation, stored.executed_action, result.reward)
            if hasattr(agent, "strategy"):
                agent.strategy.record(stored.completion, stored.parsed_action)
            if "match" in stored.info:
                matches.append(bool(stored.info["match"]))
            total_reward += result.reward
            previous_action = result.executed_action
            observation = result.observation
            index += 1
            if result.done:
                end_reason = result.end_reason or ""
                break
        else:
            while index < task.max_steps:
                if budgeted and await db(services.run_budget_reached, run.pk):
                    if pending_write is not None:
                        await pending_write
                    await db(services.run_budget_exhausted, run.pk, episode.pk, self.worker_name)
                    return
                legal = task.legal_actions()
                image = images.write(observation.image) if observation.image is not None else None
                prompt_added = agent.prepare(index, observation, previous_action, legal)
                decision = await agent.decide(task, index, prompt_added)
                info = {}
                if decision.forced_action is not None:
                    # Teacher forcing (replay control): the demonstration's action is
                    # executed; the step records whether the model's matched it.
                    match = decision.parsed_action == decision.forced_action
                    matches.append(match)
                    info = {"forced_action": decision.forced_action, "match": match}
                    result = await step(decision.forced_action)
                    legal_answer = decision.parsed_action in legal if legal else decision.parsed_action is not None
                else:
                    result = await step(decision.parsed_action if decision.parsed_action is not None else "")
                    legal_answer = result.legal
                if result.info:
                    # What the task reports about the step (e.g. the hypotheses still
                    # consistent, the room and inventory) feeds the replay renderers.
                    info = {**_json_safe(result.info), **info}
                total_reward += result.reward
                end_reason = result.end_reason or ("step limit" if index + 1 >= task.max_steps else "")
                record = services.StepRecord(
                    index=index,
                    observation_text=observation.text,
                    observation_image=image,
                    prompt_added=prompt_added,
                    completion=decision.completion,
                    reasoning=decision.reasoning,
                    parsed_action=decision.parsed_action,
                    executed_action=result.executed_action,
                    legal=legal_answer,
                    reward=result.reward,
                    done=result.done or index + 1 >= task.max_steps,
                    end_reason=end_reason if (result.done or index + 1 >= task.max_steps) else "",
                    tokens_in=decision.tokens_in,
                    tokens_out=decision.tokens_out,
                    latency_ms=decision.latency_ms,
                    error=decision.error,
                    info=info,
                    calls=decision.calls,
                    cached_tokens_in=decision.cached_tokens_in,
                )
                # The write of step k overlaps the model call of step k+1; at most one
                # write is outstanding, so a lost lease still stops play one step later.
                if pending_write is not None:
                    await pending_write
                pending_write = asyncio.ensure_future(self.writer.write(episode.pk, self.worker_name, record))
                agent.observe_result(index, observation, result.executed_action, result.reward)
                previous_action = result.executed_action
                observation = result.observation
                index += 1
                if result.done:
                    break
        if pending_write is not None:
            await pending_write  # every step is committed before the episode is finished
        final_image = images.write(observation.image) if observation.image is not None else None
        reflection = ("", 0, 0)
        if run.variant.get("reflection", "none") != "none":
            outcome = f"total reward {total_reward:g}, {end_reason or 'step limit'}"
            reflection = await agent.reflect(outcome)
        await db(
            services.episode_finish,
            episode.pk,
            self.worker_name,
            score=total_reward,
            end_reason=end_reason or "step limit",
            final_text=observation.text,
            final_image=final_image,
            metrics=_metrics(task, matches),
            reflection=reflection,
        )


def _claim_and_load(episode_id: int, worker: str):
    if not services.episode_claim(episode_id, worker):
        return None
    episode = Episode.objects.select_related("run__submission").get(pk=episode_id)
    episode.previous_reflections = services.reflections_for(episode)
    steps = list(episode.steps.order_by("index").only("index", "executed_action", "info", "completion", "parsed_action"))
    return episode, episode.run, episode.run.submission, steps


def _metrics(task, matches: list[bool]) -> dict:
    metrics = dict(task.episode_metrics())
    if matches:
        metrics["replay_accuracy"] = [1.0 if m else 0.0 for m in matches]
        metrics["replay_match_rate"] = sum(matches) / len(matches)
    return metrics


def _immediately(function):
    async def call(*args):
        return function(*args)

    return call


def _json_safe(value: dict) -> dict:
    return json.loads(json.dumps(value, default=str))
