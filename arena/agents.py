"""Agents: what turns an observation into an action text for the runner.

A built-in baseline asks an `envs` policy and needs no model. A model agent builds the
LMAct prompt (arena.strategies.lmact), calls the submission's OpenAI-compatible endpoint
and parses the completion. Both expose the same small interface so the runner does not
care which it drives.

The `begin` and `prepare` methods touch the database (they store images) and are called
by the runner in a worker thread; `decide` is a coroutine and only does network I/O.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable, Sequence

from django.conf import settings

from arena.clients.base import ModelCallError
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.images import read_png
from arena.models import Episode, Run, Submission
from arena.strategies import lmact
from envs.core import Observation, Task, make_policy


@dataclasses.dataclass
class Decision:
    parsed_action: str | None
    completion: str = ""
    reasoning: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: float | None = None
    # Transient trouble that was overcome (retries), kept on the step for the record.
    error: str = ""


class EndpointFailed(Exception):
    """The model endpoint could not produce a completion after all retries."""


class BaselineAgent:
    def __init__(self, submission: Submission, episode: Episode):
        self.policy = make_policy(submission.policy, episode.seed)

    def begin(self, task: Task, observation: Observation, store_image) -> tuple[list, list[int]]:
        return [], []

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        return []

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        return Decision(parsed_action=self.policy.act(task))

    async def aclose(self) -> None:
        return None


class ModelAgent:
    """LMAct protocol against an OpenAI-compatible chat-completions endpoint."""

    def __init__(self, submission: Submission, run: Run, episode: Episode, client: OpenAICompatibleClient | None = None):
        self.submission = submission
        self.run = run
        self.episode = episode
        self.client = client or OpenAICompatibleClient(
            base_url=submission.base_url,
            api_key=submission.get_api_key(),
            model=submission.model,
            temperature=submission.temperature,
            max_tokens=submission.max_tokens,
            timeout_seconds=settings.ARENA_MODEL_TIMEOUT_SECONDS,
            max_retries=settings.ARENA_MODEL_MAX_RETRIES,
            allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
            backoff_base_seconds=settings.ARENA_MODEL_BACKOFF_SECONDS,
        )
        self.prompter: lmact.LMActPrompter | None = None
        self._prefix_content: list[dict] = []
        self._trajectory_content: list[dict] = []
        self._data_urls: dict[str, str] = {}

    # -- prompt assembly (sync: stores images) ------------------------------------
    def begin(self, task: Task, observation: Observation, store_image: Callable[[object], str]) -> tuple[list, list[int]]:
        """Draw the demonstrations and assemble the frozen prefix, once per episode."""
        variant = self.run.variant
        k = int(variant.get("num_demonstrations", 0))
        demonstrations = []
        if k:
            from envs.demos import demonstration_pool, sample_demonstrations

            pool = demonstration_pool(self.run.task, self.run.format)
            demonstrations = sample_demonstrations(pool, k, self.episode.seed, exclude_key=task.initial_state_key())
        self.prompter = lmact.LMActPrompter(
            show_legal_actions=bool(variant.get("show_legal_actions", True)),
            chain_of_thought=bool(variant.get("chain_of_thought", False)),
            store_image=store_image,
        )
        prefix = lmact.build_prefix(demonstrations, store_image)
        self._prefix_content = self._to_content(prefix)
        return prefix, [d.seed for d in demonstrations]

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        trajectory = self.prompter.trajectory_parts(index, observation, previous_action)
        self._trajectory_content.extend(self._to_content(trajectory))
        return trajectory + self.prompter.tail_parts(legal)

    def _to_content(self, parts: Sequence[dict]) -> list[dict]:
        content = []
        for part in parts:
            if part["type"] == "text":
                content.append({"type": "text", "text": part["text"]})
            else:
                sha = part["sha"]
                if sha not in self._data_urls:
                    encoded = base64.b64encode(read_png(sha)).decode()
                    self._data_urls[sha] = f"data:image/png;base64,{encoded}"
                content.append({"type": "image_url", "image_url": {"url": self._data_urls[sha]}})
        return content

    def messages(self, prompt_added: list) -> list[dict]:
        tail = self._to_content([p for p in prompt_added if p.get("section") == "instructions"])
        content = self._prefix_content + self._trajectory_content + tail
        if all(part["type"] == "text" for part in content):
            # Text-only prompts go as one string: every server accepts it.
            return [{"role": "user", "content": "".join(part["text"] for part in content)}]
        return [{"role": "user", "content": lmact.merge_text(content)}]

    # -- the call (async) -----------------------------------------------------------
    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        try:
            reply = await self.client.complete(self.messages(prompt_added))
        except ModelCallError as exc:
            raise EndpointFailed(str(exc)) from None
        notes = ""
        if reply.attempts > 1:
            notes = f"succeeded after {reply.attempts} attempts ({reply.error})" if reply.error else (
                f"succeeded after {reply.attempts} attempts"
            )
        return Decision(
            parsed_action=lmact.parse_action(reply.text),
            completion=reply.text,
            reasoning=reply.reasoning or lmact.parse_reasoning(reply.text),
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            latency_ms=reply.latency_ms,
            error=notes,
        )

    async def aclose(self) -> None:
        await self.client.aclose()


def make_agent(submission: Submission, run: Run, episode: Episode):
    if submission.is_baseline:
        return BaselineAgent(submission, episode)
    return ModelAgent(submission, run, episode)
