"""The TextAtari tasks: one Atari game each, played through its verbaliser
(TextAtari §2–3).

Protocol:
- The real console (envs.textatari.emulator): the game's minimal action set, each step
  holds the action for 12 frames (≈ 5 decisions per second of game time, the rate
  §2.2 states), with sticky actions of probability 0.25 (the arena's choice, after
  gymnasium's v5; the paper does not say). The seed drives the sticky actions and
  ALE's own seed; the same seed and actions replay the same episode.
- Observations are text only: the first is the state; every later one narrates the
  transition (envs.textatari.verbaliser.narrate). In the obscured scenario the game's
  nouns and proper names are masked in them.
- An answer is a number of the action list or an action's name (case ignored); the
  chat strategy extracts it from JSON or prose first (`extract_action`). Anything else
  plays NOOP and is recorded as illegal.
- 1,000 steps by default (§3.1); the setting `max_steps` offers 100, 10,000 and
  100,000 as well. The episode also ends when the game does.
- Reward: the game's score. Per episode, "normalised_score" is the arena's own metric
  (the paper defines none): (score − random) / (human − random), random being the
  arena's random policy measured at the episode's step limit, human the DQN
  literature's human tester (envs.textatari.scores).
"""

from __future__ import annotations

import hashlib
from typing import ClassVar

from envs.core import Observation, ReflectionRequest, StepResult, Task, TracedStep
from envs.textatari import agents, answers, expert, scenarios
from envs.textatari.emulator import FRAMES_PER_STEP, AtariEmulator
from envs.textatari.games import VERBALISERS
from envs.textatari.scores import anchors, normalised_score
from envs.textatari.specs import STEP_LIMITS
from envs.textatari.text import obscure
from envs.textatari.verbaliser import GameVerbaliser, Snapshot, narrate, state_text

ILLEGAL_ANSWER_ACTION = "NOOP"


class TextAtariTask(Task):
    """A game of the suite; which one is the spec row's game parameter `game`, whose
    verbaliser `for_spec` puts on the task class."""

    # The scenario changes only what the model is told, so baselines play it once.
    variant_options: ClassVar[dict[str, tuple]] = {"scenario": scenarios.SCENARIOS}
    prompt_options: ClassVar[tuple[str, ...]] = ("scenario",)
    # §3.1: five seeds per game.
    baseline_episodes: ClassVar[int | None] = 5
    blocking: ClassVar[bool] = True  # emulation and the expert's lookahead
    viewer_frames: ClassVar[bool] = True  # the console screen, for the replay only
    # App. D.1: every user turn shows the latest observation together with the actions.
    chat_show_legal_actions: ClassVar[bool | None] = True
    # §3.2, App. D.2: the CoT agent's request and the Reflexion agent's "Recent plans".
    chat_cot_request: ClassVar[str | None] = agents.COT_REQUEST
    chat_reflections_header: ClassVar[str | None] = agents.RECENT_PLANS_HEADER
    game: ClassVar[str]  # "pong"
    verbaliser: ClassVar[GameVerbaliser]
    # The verbaliser's action set, known without an emulator so that `extract_action`
    # can map numbers to names.
    action_names: ClassVar[tuple[str, ...]]

    @classmethod
    def for_spec(cls, spec) -> type[TextAtariTask]:
        """The row's game: its verbaliser, actions, score range (the arena's random
        policy and the human tester, envs.textatari.scores) and description."""
        task_cls = super().for_spec(spec)
        verbaliser = _VERBALISER_OF[task_cls.game]
        figures = anchors(verbaliser.game, STEP_LIMITS[0])
        task_cls.verbaliser = verbaliser
        task_cls.action_names = tuple(verbaliser.action_set)
        task_cls.score_range = (min(figures.random, figures.human), max(figures.random, figures.human))
        task_cls.description = _description(verbaliser, figures)
        return task_cls

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self.scenario = scenarios.BASIC
        self._emulator: AtariEmulator | None = None
        self.score: float | None = None  # the game score so far; None before the first reset
        self.instructions = ""

    def configure(self, **options) -> None:
        super().configure(**options)
        if "max_steps" in options:
            self.max_steps = options["max_steps"]
        if "scenario" in options:
            self.scenario = options["scenario"]

    # -- the protocol -------------------------------------------------------------------
    def _reset(self, seed: int) -> Observation:
        self.close()
        self.seed = seed
        emulator = AtariEmulator(self.verbaliser.game, seed)
        if emulator.action_names != self.action_names:
            raise RuntimeError(f"{self.id}: ALE's minimal action set is {emulator.action_names}")
        self._emulator = emulator
        self.score = 0.0
        self._expert_step, self._expert_choice = -1, ""
        self.instructions = scenarios.instructions(self.verbaliser, self.scenario)
        self._sentences = self._describe()
        self._initial_key = hashlib.sha256(emulator.ram.tobytes()).hexdigest()[:32]
        self._observation = Observation(text=self._masked("The game begins. " + state_text(self._sentences)))
        return self._observation

    def _step(self, action_text: str) -> StepResult:
        name = self.resolve(action_text)
        legal = name is not None
        if not legal:
            name = ILLEGAL_ANSWER_ACTION
        lives_before = self._emulator.lives
        reward = self._emulator.step(name)
        self.score += reward
        before, self._sentences = self._sentences, self._describe()
        meanings = self.describe_actions()
        text = narrate(name, meanings[name], reward, before, self._sentences, answer_was_illegal=not legal)
        terminated = self._emulator.game_over
        self._observation = Observation(text=self._masked(text))
        return StepResult(
            observation=self._observation,
            reward=reward,
            terminated=terminated,
            truncated=False,
            legal=legal,
            executed_action=name,
            end_reason="game over" if terminated else None,
            info={
                "score": self.score,
                "lives": self._emulator.lives,
                "life_lost": self._emulator.lives < lives_before,
                "frame": self._emulator.frame,
            },
        )

    def legal_actions(self) -> list[str]:
        return list(self.action_names)

    def initial_state_key(self) -> str:
        """A hash of the console RAM when the agent takes control. v5 has no random
        no-op starts, so every seed starts from the same state; seeds differ in their
        sticky actions."""
        self._require_episode()
        return f"{self.verbaliser.game}:ram-sha256={self._initial_key}"

    def expert_action(self) -> str:
        """The lookahead planner's action (envs.textatari.expert). It plans at every
        `expert_replan`-th step and holds its choice in between; asking twice at the same
        step gives the same action."""
        self._require_episode()
        if self.done:
            raise RuntimeError("the episode is over")
        if self._expert_step != self.steps_taken:
            if self.steps_taken % self.verbaliser.expert_replan == 0 or not self._expert_choice:
                self._expert_choice = expert.plan(self._emulator, self.verbaliser, self._expert_choice or None)
            self._expert_step = self.steps_taken
        return self._expert_choice

    @classmethod
    def extract_action(cls, completion: str) -> str | None:
        return answers.extract(completion, cls.action_names)

    def reflection_request(self, trace: list[TracedStep], plans: list[str], outcome: str) -> ReflectionRequest:
        """The Reflexion agent's reflection over the whole episode (§3.2, App. D.2)."""
        game = agents.game_text(
            self.verbaliser.title, self.verbaliser.synopsis, self.verbaliser.goal,
            scenarios.action_list(self.describe_actions()),
        )
        return agents.reflection_request(game, trace, plans, self.score or 0.0, outcome)

    def episode_metrics(self) -> dict:
        if self.score is None:
            return {}
        normalised = normalised_score(self.verbaliser.game, self.score, self.max_steps)
        return {"normalised_score": normalised, "game_score": self.score}

    def close(self) -> None:
        """Let the console go; the score stays readable for `episode_metrics`."""
        self._emulator = None

    # -- snapshots and the screen ---------------------------------------------------------
    def _snapshot(self):
        """The console and the task's own state: score, the sentences the next narration
        compares with, the expert's held choice and the observation now shown."""
        self._require_episode()
        return (
            self._emulator.snapshot(), self.score, self._sentences, self._expert_step, self._expert_choice,
            self._observation.text,
        )

    def _restore(self, state) -> Observation:
        self._require_episode()
        console, self.score, self._sentences, self._expert_step, self._expert_choice, text = state
        self._emulator.restore(console)
        self._observation = Observation(text=text)
        return self._observation

    def viewer_png(self) -> bytes | None:
        """The console's screen, for the replay only: the suite is text-only, the agent
        never sees it."""
        return self._emulator.screen_png() if self._emulator is not None else None

    # -- helpers ------------------------------------------------------------------------
    @classmethod
    def describe_actions(cls) -> dict[str, str]:
        return cls.verbaliser.actions()

    @classmethod
    def resolve(cls, action_text: str) -> str | None:
        """The action an answer names exactly: a number of the list or a name."""
        return answers.resolve(action_text or "", cls.action_names)

    def reading(self) -> Snapshot:
        """What the verbaliser reads now (RAM, lives, score, frame)."""
        emulator = self._emulator
        return Snapshot(self.verbaliser.ram(emulator.ram), emulator.lives, self.score, emulator.frame)

    def _describe(self) -> dict[str, str]:
        return self.verbaliser.describe(self.reading())

    def _masked(self, text: str) -> str:
        if self.scenario == scenarios.OBSCURED:
            return obscure(text, self.verbaliser.nouns, self.verbaliser.proper_names)
        return text

    def _require_episode(self) -> None:
        if self._emulator is None:
            raise RuntimeError("call reset(seed) first")


_VERBALISER_OF = {verbaliser.game: verbaliser for verbaliser in VERBALISERS}


def _description(verbaliser: GameVerbaliser, figures) -> str:
    seconds = FRAMES_PER_STEP / 60
    return (
        f"{verbaliser.title} on the Arcade Learning Environment, seen only as text (TextAtari §2.2): the "
        f"console RAM is read through the AtariARI map and told in sentences — {verbaliser.synopsis} "
        f"Every step holds the chosen action for {FRAMES_PER_STEP} frames ({seconds:g} s, about 5 decisions "
        f"per second of play, the rate the paper states) with sticky actions (probability 0.25, the arena's "
        f"choice), over the game's {len(verbaliser.action_set)} "
        "actions; 1,000 steps unless the run sets max_steps (100, 10,000 or 100,000). The scenario (basic, "
        "obscured, manual, reference; App. D.1) changes only the prompt. An answer naming no action plays "
        f"NOOP and counts as illegal. Ranked by the arena's normalised score (the paper defines none): 0 at the "
        f"arena's random policy (at 1,000 steps {figures.random:.1f}, {figures.source_text}), 1 at the DQN "
        f"literature's human tester ({figures.human:g}, whole games). The expert baseline and the reference "
        "scenario's trajectory come from a lookahead planner on the emulator's cloned state, not the paper's PPO "
        "agent."
    )
