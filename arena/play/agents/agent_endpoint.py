"""An agent endpoint: the submitter's own agent, sent each observation in a signed JSON
request (arena.clients.agent_endpoint), answers with its action."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from arena.clients.agent_endpoint import AgentEndpointClient
from arena.clients.base import ModelCallError
from arena.models import Episode, Run, StoredImage, Submission
from arena.play.agents.base import Decision, EndpointFailed
from arena.play.pace import submission_gate
from arena.strategies.base import ImageStore
from envs.core import Observation, Task


class AgentEndpointAgent:
    """The submitter's own agent: the arena POSTs each step as signed JSON and takes the
    returned action (arena.clients.agent_endpoint documents the schema)."""

    demonstrations_capped = None
    begins_instantly = True
    waits_on_endpoint = True

    def __init__(self, submission: Submission, run: Run, episode: Episode, client=None):
        self.run = run
        self.episode = episode
        self.submission = submission
        self.client = client or AgentEndpointClient(
            submission.base_url,
            submission.get_agent_secret(),
            timeout_seconds=settings.ARENA_MODEL_TIMEOUT_SECONDS,
            max_retries=settings.ARENA_MODEL_MAX_RETRIES,
            allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
            backoff_base_seconds=settings.ARENA_MODEL_BACKOFF_SECONDS,
        )
        self.history: list[dict] = []
        self._request: dict = {}
        # Set by `begin`.
        self._images: ImageStore | None = None
        self._task = None

    def begin(self, task: Task, observation: Observation, images: ImageStore) -> tuple[list, list[int]]:
        self._task = task
        self._images = images
        return [], []

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        image_url = None
        if observation.image is not None:
            sha = self._images.sha(observation)
            image_url = settings.ARENA_PUBLIC_URL.rstrip("/") + StoredImage.url_of(sha)
        self._request = {
            "task": self.run.task,
            "suite": self._task.suite,
            "episode": {"id": self.episode.pk, "seed": self.episode.seed},
            "step": index,
            "observation": {"text": observation.text, "image_url": image_url},
            "legal_actions": list(legal),
            "instructions": self._task.instructions,
            "history": self.history,  # the client sends only the most recent steps
        }
        return []

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        self.history.append(
            {"step": index, "observation_text": observation.text, "action": executed_action, "reward": reward}
        )

    def replay_step(self, task: Task, completion: str, parsed_action: str | None, answers: Sequence = ()) -> None:
        return None

    # Its history is the stored observations and actions.
    replays_without_task = True

    def snapshot(self) -> bytes | None:
        return None

    def restore(self, data: bytes) -> None:
        raise TypeError("an agent endpoint is brought up to date from the stored steps")

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        gate = submission_gate(self.submission)
        try:
            reply = await gate.call(
                self.client, lambda: self.client.act(self._request), settings.ARENA_MODEL_TIMEOUT_SECONDS
            )
        except ModelCallError as exc:
            raise EndpointFailed(str(exc), exc.kind) from None
        # An unusable reply (not JSON, no action) is an illegal action, not a crash.
        return Decision(
            parsed_action=reply.text if not reply.error else None,
            completion=reply.text,
            reasoning=reply.reasoning,
            latency_ms=reply.latency_ms,
            error=reply.error,
            calls=[{"purpose": "act", "latency_ms": reply.latency_ms, "attempts": reply.attempts,
                    "http_status": reply.http_status, "completion": reply.text}],
        )

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        return "", 0, 0

    async def aclose(self) -> None:
        await self.client.aclose()
