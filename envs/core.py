"""The game protocol every task of every suite honours (docs/design.md §3, "The game protocol").

A task is plain Python with no Django: `reset(seed)` gives the first observation,
`step(action_text)` applies what the agent said and returns a `StepResult`. The task
itself decides what happens to an action that is not legal, because the suites differ
(LMAct substitutes a random legal action, BALROG a default one, AdventureGame aborts);
whatever it decides is reported in `StepResult.legal` and `StepResult.executed_action`.

`Task.reset` and `Task.step` keep the episode's bookkeeping for every task, once, as
gymnasium's TimeLimit wrapper does: no step before a reset or after the end, the step
count, and the step limit. A task implements the game itself in `_reset` and `_step`.

Same seed ⇒ same episode: every source of randomness inside a task is a
`random.Random` derived from the seed passed to `reset`.

The data passed across the protocol live in envs.step_data and the built-in baselines
in envs.policies; both are re-exported here, the one import path every suite uses.
"""

from __future__ import annotations

import abc
import dataclasses
import pickle
import random
from typing import ClassVar

from envs.policies import (
    DEFAULT_BASELINES,
    ExpertPolicy,
    NoExpert,
    Policy,
    RandomLegalPolicy,
    baselines_of,
    make_policy,
)
from envs.spec import TaskSpec
from envs.step_data import IMAGE_FORMATS, Observation, ReflectionRequest, StepResult, TracedStep

__all__ = [
    "DEFAULT_BASELINES", "IMAGE_FORMATS", "ExpertPolicy", "NoExpert", "Observation", "Policy",
    "RandomLegalPolicy", "ReflectionRequest", "StepResult", "Task", "TracedStep", "baselines_of",
    "make_policy", "step_random", "two_player_result",
]

_NOT_STARTED, _PLAYING, _OVER = "not started", "playing", "over"


class Task(abc.ABC):
    """One game of a suite with its fixed protocol.

    Subclasses implement the abstract methods and set the game's class attributes;
    what the catalogue says of a task (id, title, limit, formats, the row's settings
    and game parameters) is its row of the suite's spec table (envs.spec.TaskSpec),
    put on the class the registry hands out by `for_spec`. The instance holds one
    episode at a time; `reset` starts a new one.
    """

    # From the task's spec row (`for_spec`).
    spec: ClassVar[TaskSpec]
    id: ClassVar[str]  # "lmact/tictactoe"
    suite: ClassVar[str]  # "lmact"
    title: ClassVar[str]  # "Tic-tac-toe"
    formats: ClassVar[tuple[str, ...]]  # observation formats, first is the default
    max_steps: ClassVar[int]
    # Shown on the task page: what the task is, where its protocol comes from and
    # any deviation from the paper.
    description: ClassVar[str] = ""
    # The suite's system prompt where the paper has one (LMAct has none: §2.3).
    instructions: ClassVar[str] = ""
    # Score range, for charts: (worst, best) summed reward of one episode.
    score_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    # Options besides the format that change what is played (e.g. infogather's number
    # of colours): name -> allowed values; the first value is the default. Applied with
    # `configure(**options)` before `reset`.
    variant_options: ClassVar[dict[str, tuple]] = {}
    # Options that only change what a model is told (baselines play their default).
    prompt_options: ClassVar[tuple[str, ...]] = ()
    # Options a run may set but that are not swept: a submission plays the first value
    # (the paper's protocol) unless it asks for another, e.g. BALROG's feedback on
    # invalid actions or a shorter Crafter episode. Applied by `configure` as well.
    settings: ClassVar[dict[str, tuple]] = {}
    # Built-in baselines that can play this task: policy name -> Policy class.
    baselines: ClassVar[dict[str, type["Policy"]]] = {}
    # For suites played as a conversation, what the paper fixes regardless of the
    # submission's strategy: whether the legal actions may be listed (None: the
    # submission decides) and how many turns stay in context (None: the submission's
    # history window).
    chat_show_legal_actions: ClassVar[bool | None] = None
    chat_history_window: ClassVar[int | None] = None
    # What a chat suite's paper asks of a model that reasons before answering, in place
    # of the arena's generic request (None: the generic one), and how it labels the
    # reflections carried from earlier episodes (None: the generic label).
    chat_cot_request: ClassVar[str | None] = None
    chat_reflections_header: ClassVar[str | None] = None
    # True for tasks whose step or expert does real work (an engine search, a physics
    # rollout): the arena then runs them off its event loop so other episodes go on.
    blocking: ClassVar[bool] = False
    # True for blocking tasks whose step computes in the interpreter (crafter's world and
    # drawing) rather than waiting on another process (an engine, an interpreter): the
    # worker runs them on as many threads as it has cores (arena.play.simulators).
    cpu_bound: ClassVar[bool] = False
    # True for tasks that draw a picture for the replay viewer at every step
    # (`viewer_png`); a replay of theirs without one says the pictures are unavailable.
    viewer_frames: ClassVar[bool] = False
    # How many episodes the built-in baselines play by default (None: the operator's
    # setting); expensive experts (engines, planners) play fewer.
    baseline_episodes: ClassVar[int | None] = None
    # Episodes per run under the suite's paper preset when the paper played another
    # number for this task than for the rest of its suite (BALROG: 25 per BabyAI task,
    # 10 for Crafter); None: the preset's.
    paper_episodes: ClassVar[int | None] = None
    # How many expert demonstrations the pool holds (LMAct §2.4: up to 1000);
    # planning experts on real simulators are slow, so their pools are smaller.
    demonstration_pool_size: ClassVar[int] = 1000
    # For tasks whose actions cannot be listed: the answer format shown instead.
    action_format: ClassVar[str] = ""
    # Per-episode 0/1 metrics (keys of `episode_metrics`) the task page shows as rates
    # per run, with their labels, under `rate_breakdown_title` — e.g. Crafter's
    # per-achievement unlock rates (BALROG App. B.1).
    rate_breakdown: ClassVar[tuple[tuple[str, str], ...]] = ()
    rate_breakdown_title: ClassVar[str] = ""
    # The end reason of an episode cut by the step limit.
    step_limit_reason: ClassVar[str] = "step limit"
    # The replay renderer of the task's text observations when it is not the suite's
    # (static/js/renderers*.js), e.g. "chess".
    renderer: ClassVar[str | None] = None

    @classmethod
    def for_spec(cls, spec: TaskSpec) -> type[Task]:
        """The task class of one spec row: this game with the row's id, title, limit,
        formats and game parameters, and the game's settings with the row's. A game
        whose class data derive from its parameters (AdventureGame's prompt template)
        extends this."""
        attributes = {
            "spec": spec, "id": spec.id, "suite": spec.suite, "title": spec.title, "max_steps": spec.max_steps,
            "formats": spec.formats, "settings": {**cls.settings, **spec.settings}, **spec.game,
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        }
        return type(cls.__name__, (cls,), attributes)

    def __init__(self, format: str | None = None):
        if not hasattr(type(self), "spec"):
            raise TypeError(
                f"{type(self).__name__} is a game without its spec row: get the task from envs.registry "
                "(make(task_id) or get_task_class(task_id))"
            )
        fmt = format or self.formats[0]
        if fmt not in self.formats:
            raise ValueError(f"{self.id} has no observation format {fmt!r}; choose one of {', '.join(self.formats)}")
        self.format = fmt
        # Episode bookkeeping, kept by `reset` and `step` only.
        self.steps_taken = 0
        self._phase = _NOT_STARTED

    def configure(self, **options) -> None:
        """Apply variant options; tasks with options override this (and call it for
        validation)."""
        for name, value in options.items():
            allowed = self.variant_options.get(name, self.settings.get(name))
            if allowed is None:
                raise ValueError(f"{self.id} has no option {name!r}")
            if value not in allowed:
                raise ValueError(f"{self.id}: {name} must be one of {', '.join(map(str, allowed))}; got {value!r}")

    # -- protocol ---------------------------------------------------------------
    def reset(self, seed: int) -> Observation:
        """Start the episode of `seed` and return its first observation."""
        # The count is zero while `_reset` builds the first observation (some show the
        # turns left); the episode is playable only once `_reset` has succeeded.
        self.steps_taken = 0
        self._phase = _NOT_STARTED
        observation = self._reset(seed)
        self._phase = _PLAYING
        return observation

    def start_builder(self, seed: int):
        """For games whose start computes long in the interpreter (crafter generates its
        world cell by cell in Python): a picklable function and its arguments that build, in any
        process, what `reset(seed)` starts from, for `reset_built`. A worker runs it in a
        process of its own (arena.play.starts) so its interpreter plays other episodes
        meanwhile. None: `reset` builds its start itself."""
        return None

    def reset_built(self, seed: int, built) -> Observation:
        """`reset(seed)` from what the function of `start_builder(seed)` returned: the
        same episode, state for state, as `reset(seed)` starts."""
        raise TypeError(f"{self.id} builds its start in `reset`")

    def step(self, action_text: str) -> StepResult:
        """Apply the agent's action; the one place that counts steps and applies the
        step limit. An episode the game ends on its last allowed step is terminated,
        not truncated (gymnasium's rule)."""
        if self._phase == _NOT_STARTED:
            raise RuntimeError(f"{self.id}: call reset(seed) before step()")
        if self._phase == _OVER:
            raise RuntimeError(f"{self.id}: the episode is over; call reset(seed) to start another")
        # Counted before `_step` runs, so the game sees this step in `steps_taken`
        # (e.g. the turns left in the observation it returns).
        self.steps_taken += 1
        result = self._step(action_text)
        if not result.done and self.steps_taken >= self.max_steps:
            result = dataclasses.replace(result, truncated=True, end_reason=self.step_limit_reason)
        if result.done:
            self._phase = _OVER
        return result

    @property
    def done(self) -> bool:
        """Whether the current episode has ended, by the game or by the step limit."""
        return self._phase == _OVER

    @property
    def steps_left(self) -> int:
        """Steps the agent may still take in this episode."""
        return max(0, self.max_steps - self.steps_taken)

    @abc.abstractmethod
    def _reset(self, seed: int) -> Observation:
        """Set up the game of `seed` and return the first observation."""

    @abc.abstractmethod
    def _step(self, action_text: str) -> StepResult:
        """Play one step of a running episode (`steps_taken` already counts it). The
        result's `terminated` and `end_reason` are the game's; `step` adds the limit."""

    @abc.abstractmethod
    def legal_actions(self) -> list[str]:
        """The actions the agent may take now, in a stable order."""

    @abc.abstractmethod
    def initial_state_key(self) -> str:
        """A string that identifies the episode's initial state.

        Two episodes with equal keys start from the same situation; demonstrations
        must never share the evaluation episode's key (LMAct §2.4).
        """

    @abc.abstractmethod
    def expert_action(self) -> str:
        """The expert's action in the current state (LMAct §2.2)."""

    def initial_messages(self) -> list[dict] | None:
        """The chat turns a conversation starts with, for suites whose paper opens it
        with given turns (AdventureGame); None: the conversation starts with the system
        prompt (`instructions`) and the first observation."""
        return None

    def observation_is_text(self) -> bool:
        return self.format not in IMAGE_FORMATS

    @classmethod
    def extract_action(cls, completion: str) -> str | None:
        """The action text in a model's reply, for suites that talk in turns (the
        arena's chat strategy). By default the whole reply; the task's `step` decides
        whether it is legal. LMAct has its own strict parser (arena.strategies.lmact)."""
        return completion.strip()

    def reflection_request(self, trace: list["TracedStep"], plans: list[str], outcome: str) -> "ReflectionRequest | None":
        """The end-of-episode reflection as the suite's paper asks it (TextAtari §3.2), from
        every step of the episode and the plans carried into it; None: the arena's
        generic reflection over the conversation."""
        return None

    def episode_metrics(self) -> dict:
        """Suite-specific per-episode metrics, read when the episode ends (e.g.
        infogather's steps to sufficient information, AdventureGame's goal success
        rate). JSON-serialisable; empty for suites whose score is the summed reward."""
        return {}

    def random_action(self, rng: random.Random) -> str:
        """A uniformly random action, for tasks whose legal actions cannot be listed."""
        raise TypeError(f"{self.id} lists its legal actions; draw from legal_actions() instead")

    def close(self) -> None:
        """Release what the task holds (engine processes, emulators); safe to repeat."""
        return None

    # -- optional: snapshots and a picture for the viewer ---------------------------------
    # A task whose steps are costly (an emulator) may save the whole state of a running
    # episode, so that the arena resumes an interrupted long episode from the latest
    # snapshot instead of replaying every stored action (arena.snapshots). The state is
    # the game's and the task's own counters; `restore` on a task reset with the same
    # seed makes it play on exactly as the saved one would have.
    @property
    def supports_snapshots(self) -> bool:
        return type(self)._snapshot is not Task._snapshot

    def snapshot(self) -> bytes:
        """The running episode's state as bytes (only for tasks that support it)."""
        if not self.supports_snapshots or self._phase != _PLAYING:
            raise RuntimeError(f"{self.id}: no running episode to snapshot")
        return pickle.dumps((self.steps_taken, self._snapshot()), protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, data: bytes) -> Observation:
        """Put the episode reset with the same seed back into a snapshot's state; the
        observation the agent sees next."""
        if self._phase == _NOT_STARTED:
            raise RuntimeError(f"{self.id}: call reset(seed) before restore()")
        steps_taken, state = pickle.loads(data)
        observation = self._restore(state)
        self.steps_taken, self._phase = steps_taken, _PLAYING
        return observation

    def _snapshot(self):
        """The game's state, picklable; overridden by tasks that support snapshots."""
        raise TypeError(f"{self.id} cannot save its state")

    def _restore(self, state) -> Observation:
        raise TypeError(f"{self.id} cannot restore a state")

    def viewer_png(self) -> bytes | None:
        """A picture of the game now for the person watching the replay (TextAtari's
        console screen, the cheetah's body, the world of a BALROG text run),
        PNG-encoded; never shown to the agent. None: the task has none."""
        return None

    def progress(self, total_reward: float) -> float:
        """The episode's progress on the suite's 0–100 scale."""
        low, high = self.score_range
        if high == low:
            return 0.0
        return max(0.0, min(100.0, 100.0 * (total_reward - low) / (high - low)))


def two_player_result(winner, agent, draw_reason: str = "draw") -> tuple[float, str]:
    """Reward and end reason of a finished two-player game (LMAct §2.2: +1 win,
    0 draw, −1 loss), whatever the game uses to name its sides."""
    if winner is None:
        return 0.0, draw_reason
    return (1.0, "won") if winner == agent else (-1.0, "lost")


def step_random(task: Task, purpose: str) -> random.Random:
    """A generator for what a task draws while playing the current step (e.g. the
    substitute for an illegal action), seeded with the task, the episode's `seed` and
    the step's index. One generator per episode would not do: the arena resumes an
    interrupted episode by replaying its executed actions, which draw nothing, so from
    there an episode-wide generator would be behind the uninterrupted episode's."""
    return random.Random(f"{task.id}/{purpose}:{task.seed}:{task.steps_taken - 1}")
