"""What a task and an agent hand each other under the game protocol (envs.core):
the observation shown, the result of a step, and the trace and prompt of an
end-of-episode reflection. Plain data, no game logic."""

from __future__ import annotations

import dataclasses

from PIL import Image

# Observation formats given to the agent as an image (everything else is text).
IMAGE_FORMATS = ("rgb",)


@dataclasses.dataclass(frozen=True)
class Observation:
    """What the agent is shown: text for text formats, an RGB image for `rgb`."""

    text: str | None = None
    image: Image.Image | None = None
    # BALROG's short-term context (§3: status and inventory): shown only in the latest
    # turn of a conversation, before `text`, and never kept in the history.
    context: str | None = None

    def __post_init__(self):
        if self.text is None and self.image is None:
            raise ValueError("an observation needs text, an image or both")

    @property
    def png(self) -> bytes | None:
        """The image already encoded as PNG: None for a live frame, which holds pixels;
        observations kept in demonstration pools (envs.demos.PackedObservation) hold
        their frame this way instead."""
        return None


@dataclasses.dataclass(frozen=True)
class StepResult:
    observation: Observation
    reward: float
    terminated: bool
    truncated: bool
    legal: bool
    executed_action: str
    # Why the episode ended, in words a person reads on the replay page
    # ("won", "lost", "draw", "reached the target", "step limit"...); None while running.
    end_reason: str | None = None
    info: dict = dataclasses.field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated


@dataclasses.dataclass
class TracedStep:
    """One step of an episode as an agent lived it: what it was shown, what it answered,
    the action played and the reward that followed (Reflexion's input)."""

    observation: str
    answer: str = ""
    action: str = ""
    reward: float = 0.0


@dataclasses.dataclass(frozen=True)
class ReflectionRequest:
    """A suite's reflection prompt: `head` messages, then one user message with
    `intro` and one text per step (oldest first; the oldest are left out, and
    `left_out` says how many, when the prompt outgrows the context window), then `tail`."""

    head: list[dict]
    intro: str
    steps: list[str]
    left_out: str  # formatted with {count}
    closing: str  # ends the trajectory message (the episode's outcome)
    tail: list[dict]

    def messages(self, dropped: int = 0) -> list[dict]:
        parts = [self.intro]
        if dropped:
            parts.append(self.left_out.format(count=dropped))
        parts += [*self.steps[dropped:], self.closing]
        return [*self.head, {"role": "user", "content": "\n\n".join(parts)}, *self.tail]
