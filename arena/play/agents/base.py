"""What the runner drives: the interface every agent keeps (`Agent`), what a decision
holds (`Decision`), and the failure of an endpoint that ends an episode (`EndpointFailed`).

The `begin` and `prepare` methods touch the database (they store images) and are called
by the runner in a worker thread; `decide` is a coroutine and only does network I/O."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from arena.strategies.base import ImageStore
from envs.core import Observation, Task


@dataclasses.dataclass
class Decision:
    parsed_action: str | None
    completion: str = ""
    reasoning: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    cached_tokens_in: int | None = None
    reasoning_tokens: int | None = None
    latency_ms: float | None = None
    # The answer reached the token limit (possibly with no text at all): an "answer
    # cut off" step; the suite's rule for a missing or illegal action still applies.
    cut_off: bool = False
    # Every model call made for this step (self-correction makes two).
    calls: list = dataclasses.field(default_factory=list)
    # Replay control (LMAct App. C.2): the action the runner executes instead.
    forced_action: str | None = None
    # Transient trouble that was overcome (retries), kept on the step for the record.
    error: str = ""
    # What was left out of the prompt to fit the context window (see Prompt.record).
    context: dict | None = None
    # How the messages were adapted to the endpoint's shape (arena.strategies.shape).
    shape: dict | None = None
    # Per call, what its provider wants given back with the answer (ModelReply.
    # reasoning_items); empty when no call had any.
    reasoning_items: list = dataclasses.field(default_factory=list)


class Agent(Protocol):
    """What the runner drives, whatever produces the actions (arena.play.runner).

    `begin` and `prepare` may touch the database (they store images) and are called in a
    worker thread unless `begins_instantly`; `decide` is a coroutine doing network I/O.
    """

    # Set when fewer demonstrations were placed in the prompt than the run asked for.
    demonstrations_capped: dict | None
    # True when `begin` does no work worth moving off the event loop.
    begins_instantly: bool
    # True when `decide` and `reflect` only wait on an endpoint (a model's or an agent's):
    # a stopping worker may cancel them, the step not played (arena.play.stopping).
    waits_on_endpoint: bool

    def begin(self, task: Task, observation: Observation, images: ImageStore) -> tuple[list, list[int]]:
        """The frozen prompt prefix (stored on the episode) and the demonstrations' seeds;
        `images` stores the episode's images (and serves their bytes) from now on."""

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        """What step `index` adds to the prompt (stored on the step)."""

    async def decide(self, task: Task, index: int, prompt_added: list) -> "Decision":
        """The action for the current step."""

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        """What the step's action led to."""

    def replay_step(self, task: Task, completion: str, parsed_action: str | None, answers: Sequence = ()) -> None:
        """A step stored by an earlier attempt at this episode, replayed on resume
        before the task executes its stored action (as `decide` comes before it live);
        the agent ends up where it would be had the episode never stopped. `answers`:
        (text, reasoning items) of each model call the step made, in order."""

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        """Reflexion's lesson after the episode, with the tokens it cost (in, out)."""

    async def aclose(self) -> None: ...

    # Resuming from a task snapshot (arena.services.snapshots): the agent either saves its own
    # state beside the task's (`snapshot` is not None, `restore` puts it back), or it
    # needs nothing from the task to replay a stored step (`replays_without_task`: it is
    # brought up to date from the stored steps' texts alone).
    replays_without_task: bool

    def snapshot(self) -> bytes | None: ...

    def restore(self, data: bytes) -> None: ...


class EndpointFailed(Exception):
    """The model endpoint could not produce a completion after all retries.

    `kind` is the arena.clients.errors.ErrorKind of the failure, when known; the episode
    (and, for kinds that would hit every episode alike, the run) ends with it."""

    def __init__(self, message: str, kind: str | None = None):
        super().__init__(message)
        self.kind = kind
