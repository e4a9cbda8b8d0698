"""What every BALROG environment shares (BALROG §3 and the appendices of each one).

- The instruction prompt, in the layout of BALROG's prompt builders: the opening that
  names the game (and, for BabyAI, the mission), the action list with a short description
  of each action, the environment's closing part (tips, goal) and a closing line
  (`instruction_prompt`). It carries exactly the information BALROG's prompt for the
  environment carries, in the arena's own words; the arena sends it as the first user
  message (arena.strategies.history).
- Invalid outputs (BALROG §3): an output that is not exactly one of the actions is
  replaced by the environment's default action, and — unless the run switched it off —
  the next observation opens with a line saying so and naming the action executed, in
  the layout of BALROG's harness (`invalid_action_text`).
- Observations: `Observation.text` is the long-term text kept in the history;
  `Observation.context` the short-term context (status, inventory) shown only in the
  latest turn.
- Progress: every episode ends with a progress from 0 to 100 (BALROG §3, "Evaluation"),
  reported as the per-episode metric "progress" that ranks the suite's leaderboards.
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
from typing import ClassVar

import numpy as np

from envs.core import Observation, StepResult, Task
from envs.render import encode_viewer_png

# Encoded pictures one episode keeps for a picture seen again (a few kB each).
ENCODED_PICTURES_KEPT = 512

# The setting that switches the invalid-action line off (BALROG made it switchable);
# named for what it does when set, so a run's label says "silent invalid actions".
SILENT_SETTING = "silent_invalid_actions"


def invalid_action_line(executed: str) -> str:
    """The line that opens the observation after an invalid output (BALROG §3)."""
    return f"Your last output was not one of the valid actions, so the default action was executed instead: {executed}."


def invalid_action_text(executed: str, body: str) -> str:
    """The observation after an invalid output, laid out as BALROG's harness lays it out:
    two blank lines, the line saying so, a blank line, an "Observation:" header, then
    the observation itself."""
    return f"\n\n{invalid_action_line(executed)}\n\nObservation:\n{body}".rstrip()


def action_list_text(descriptions: dict[str, str]) -> str:
    """The action list of the instruction prompt, laid out as BALROG's prompt builders lay
    it out: one action per line with what it does, the lines separated by commas and the
    list closed by a full stop."""
    return ",\n".join(f"{action}: {what}" for action, what in descriptions.items()) + "."


# The sentence that introduces the action list, and the closing line, of BALROG's
# instruction prompts (same information, own wording).
ACTIONS_LEAD = "Below are the actions you can take in the game, each followed by a short description of what it does:"
START_LINE = "Now play!"
# What BALROG's prompts announce next: one observation (BabyAI) or a history of actions
# and observations (Crafter, MiniHack, NetHack).
OBSERVATION_COMING = "You will be shown an observation shortly."
HISTORY_COMING = "You will shortly be shown a history of the game's actions and observations."


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What the game did with an executed action (a `_play` result)."""

    observation: Observation
    reward: float = 0.0
    terminated: bool = False
    end_reason: str | None = None
    info: dict = dataclasses.field(default_factory=dict)


class BalrogTask(Task):
    """A BALROG environment on the arena's game protocol.

    Subclasses give the actions with their descriptions, the default action, the rules
    (`rules_text`), and implement `_start` (the first observation of a seed), `_play`
    (one valid action) and `progress_percent`.
    """

    suite: ClassVar[str] = "balrog"
    # Every action the agent may output, in the order the prompt lists them, with a
    # short description of each (BALROG §3: the instruction prompt lists them).
    action_descriptions: ClassVar[dict[str, str]] = {}
    # What an invalid output executes instead (BALROG §3).
    default_action: ClassVar[str] = ""
    score_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    settings: ClassVar[dict[str, tuple]] = {SILENT_SETTING: (False, True)}

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self.invalid_action_feedback = True
        # The encoded pictures of this episode by a digest of their pixels: an agent
        # that turns back and forth, bumps into a wall or waits sees the same picture
        # again, and encoding it costs more than drawing it (see `viewer_png`).
        self._encoded_pictures: dict[bytes, bytes] = {}
        # The same pictures by the game state that fixes them (`picture_state`), for
        # games whose drawing costs more than naming that state (minigrid's).
        self._pictures_by_state: dict = {}

    def configure(self, **options) -> None:
        super().configure(**options)
        if SILENT_SETTING in options:
            self.invalid_action_feedback = not options[SILENT_SETTING]

    # -- what a subclass provides ------------------------------------------------------
    # The sentence that introduces the action list (Crafter's says they are the only
    # valid ones).
    actions_lead: ClassVar[str] = ACTIONS_LEAD

    @abc.abstractmethod
    def rules_text(self) -> str:
        """The opening of the instruction prompt, before the action list (BabyAI's names
        the episode's mission)."""

    def closing_text(self) -> str:
        """What BALROG's prompt says after the action list (tips, achievements, goal)."""
        return ""

    @abc.abstractmethod
    def _start(self, seed: int) -> Observation:
        """Set up the episode of `seed`; the first observation."""

    @abc.abstractmethod
    def _play(self, action: str) -> Outcome:
        """Execute one valid action."""

    @abc.abstractmethod
    def progress_percent(self) -> float:
        """The episode's progress so far, 0–100 (BALROG §3)."""

    def world_picture(self):
        """The engine's own picture of the world now (a PIL image), for the person
        watching the replay; None for games without one (TextWorld)."""
        return None

    def world_pixels(self):
        """`world_picture` as RGB pixels (height × width × 3 bytes), None for games
        without one; a game that draws into an array gives that array."""
        picture = self.world_picture()
        return None if picture is None else np.asarray(picture.convert("RGB"))

    # Whether the same picture comes back within an episode (an agent turning back and
    # forth, bumping into a wall, waiting); a game whose every picture differs skips the
    # digest that finds them.
    pictures_repeat: ClassVar[bool] = True

    def picture_state(self):
        """A hashable value that fixes every pixel of `world_picture` now, for games
        that can name it for less than drawing the picture costs; None: draw it."""
        return None

    def viewer_png(self) -> bytes | None:
        """The world's picture beside a text run's observations: the agent read the
        text and never sees it. An image run's observation is already the picture, so
        it gets none."""
        if not self.observation_is_text():
            return None
        state = self.picture_state()
        if state is not None:
            png = self._pictures_by_state.get(state)
            if png is not None:
                return png
        png = self._encoded_viewer_picture()
        if state is not None and png is not None:
            if len(self._pictures_by_state) >= ENCODED_PICTURES_KEPT:
                self._pictures_by_state.clear()
            self._pictures_by_state[state] = png
        return png

    def _encoded_viewer_picture(self) -> bytes | None:
        pixels = self.world_pixels()
        if pixels is None:
            return None
        if not self.pictures_repeat:
            return encode_viewer_png(pixels)
        pixels = np.ascontiguousarray(pixels)
        key = hashlib.blake2b(pixels.data, digest_size=16).digest() + bytes(f"{pixels.shape}", "ascii")
        png = self._encoded_pictures.get(key)
        if png is None:
            if len(self._encoded_pictures) >= ENCODED_PICTURES_KEPT:
                self._encoded_pictures.clear()
            png = self._encoded_pictures[key] = encode_viewer_png(pixels)
        return png

    def is_valid(self, candidate: str) -> bool:
        """Whether an output is exactly one of the actions (BALROG §3)."""
        return candidate in self.action_descriptions

    # -- the protocol ------------------------------------------------------------------
    def instruction_prompt(self) -> str:
        """The first user message of an episode: the opening and the sentence that
        introduces the actions, the action list, the closing part, the closing line."""
        parts = [f"{self.rules_text().strip()} {self.actions_lead}", action_list_text(self.action_descriptions_now())]
        closing = self.closing_text().strip()
        if closing:
            parts.append(closing)
        parts.append(START_LINE)
        return "\n\n".join(parts)

    def action_descriptions_now(self) -> dict[str, str]:
        """The actions the prompt lists; TextWorld's depend on the game."""
        return dict(self.action_descriptions)

    def legal_actions(self) -> list[str]:
        return list(self.action_descriptions)

    def _reset(self, seed: int) -> Observation:
        return self._start(seed)

    def _step(self, action_text: str) -> StepResult:
        # Exactly one of the actions, as BALROG checks it: the reading of the reply
        # (arena.strategies.answers) decides what is trimmed, not the environment.
        candidate = action_text or ""
        legal = self.is_valid(candidate)
        executed = candidate if legal else self.default_action
        outcome = self._play(executed)
        observation = outcome.observation
        if not legal and self.invalid_action_feedback:
            body = observation.text or ""
            observation = dataclasses.replace(observation, text=invalid_action_text(executed, body))
        return StepResult(
            observation=observation,
            reward=outcome.reward,
            terminated=outcome.terminated,
            truncated=False,
            legal=legal,
            executed_action=executed,
            end_reason=outcome.end_reason,
            info=dict(outcome.info),
        )

    def episode_metrics(self) -> dict:
        return {"progress": float(self.progress_percent())}
