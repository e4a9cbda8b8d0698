"""What the episode runner stores of each step: the step record built from the agent's
decision and the task's result, the episode's observation images and the viewer's
pictures, and the earlier answers a resumed episode gives back to its client."""

from __future__ import annotations

import json

from django.conf import settings

from arena.clients.replies import MAX_ERROR_CHARS, capped_text
from arena.storage.images import ImageRef, png_size, read_png, write_png_bytes
from arena.models import Step
from arena.play.agents.base import Decision
from arena.services.steps import StepRecord
from envs.render import encode_png


class ObservationImages:
    """The episode's image store (arena.strategies.base.ImageStore): writes each
    observation's PNG once, even when both the step record and the prompt refer to it,
    and keeps the bytes it wrote or was handed, so the strategy encodes what it sends
    without reading the files back."""

    def __init__(self):
        self._last: tuple[int, ImageRef] | None = None
        self._png: dict[str, bytes] = {}

    def write(self, image) -> ImageRef:
        if self._last is not None and self._last[0] == id(image):
            return self._last[1]
        data = encode_png(image)
        ref = self._keep(data, image.width, image.height)
        self._last = (id(image), ref)
        return ref

    def sha(self, observation) -> str:
        """The stored PNG's hash of an observation's image: a live frame, or a pool
        observation that already holds its PNG bytes."""
        if observation.png is not None:
            return self._keep(observation.png, observation.width, observation.height).sha256
        return self.write(observation.image).sha256

    def png(self, sha: str) -> bytes:
        """The PNG's bytes: held for every image of this episode and its prompt prefix;
        any other is read from its file."""
        data = self._png.get(sha)
        return data if data is not None else read_png(sha)

    def _keep(self, data: bytes, width: int, height: int) -> ImageRef:
        ref = write_png_bytes(data, width, height)
        self._png[ref.sha256] = data
        return ref


class ViewerFrames:
    """The task's pictures for the replay viewer (envs.core.Task.viewer_png), stored
    content-addressed every ARENA_VIEWER_FRAME_EVERY_STEPS steps; every step names the
    latest in `info["viewer_frame"]`. They never reach the agent's prompt."""

    def __init__(self, task):
        self.task = task
        self.every = settings.ARENA_VIEWER_FRAME_EVERY_STEPS
        self.latest: str | None = None

    def at(self, index: int) -> tuple[str | None, ImageRef | None]:
        """The hash of the picture to show at step `index` (the state the agent sees
        then, or the latest sampled before it), and its ImageRef when it is new."""
        if self.latest is not None and index % self.every:
            return self.latest, None
        data = self.task.viewer_png()
        if data is None:
            return None, None
        ref = write_png_bytes(data, *png_size(data))
        if ref.sha256 == self.latest:
            return ref.sha256, None
        self.latest = ref.sha256
        return ref.sha256, ref

    @staticmethod
    def attach(record, frame: tuple[str | None, ImageRef | None]) -> None:
        sha, ref = frame
        if sha is not None:
            record.info["viewer_frame"] = sha
        record.viewer_frame = ref


def step_record_of(index, observation, image, prompt_added, decision: Decision, result, legal: bool):
    """The stored form of one live step: what was seen and sent, what the model said,
    what was executed and what it led to."""
    info = {}
    if result.info:
        # What the task reports about the step (e.g. the hypotheses still consistent,
        # the room and inventory) feeds the replay renderers.
        info.update(json_safe(result.info))
    if decision.forced_action is not None:
        info["forced_action"] = decision.forced_action
        info["match"] = decision.parsed_action == decision.forced_action
    if decision.context:
        info["context"] = decision.context
    if decision.shape:
        info["shape"] = decision.shape
    return StepRecord(
        index=index,
        observation_text=observation.text,
        observation_image=image,
        prompt_added=prompt_added,
        completion=decision.completion,
        reasoning=decision.reasoning,
        parsed_action=decision.parsed_action,
        executed_action=result.executed_action,
        legal=legal,
        reward=result.reward,
        done=result.done,
        end_reason=(result.end_reason or "") if result.done else "",
        tokens_in=decision.tokens_in,
        tokens_out=decision.tokens_out,
        latency_ms=decision.latency_ms,
        # Each call's note is capped by its client; a step with two calls joins two.
        error=capped_text(decision.error, MAX_ERROR_CHARS),
        info=info,
        calls=decision.calls,
        cached_tokens_in=decision.cached_tokens_in,
        cut_off=decision.cut_off,
        reasoning_tokens=decision.reasoning_tokens,
        reasoning_items=decision.reasoning_items,
    )


def answers_of(stored: Step) -> list[tuple[str, list]]:
    """(text, reasoning items) of each model call a stored step made, in call order."""
    calls = stored.calls_with_completions
    items = stored.reasoning_items or [[] for _ in calls]
    return [(call.get("completion") or "", list(kept or [])) for call, kept in zip(calls, items)]


def json_safe(value: dict) -> dict:
    return json.loads(json.dumps(value, default=str))
