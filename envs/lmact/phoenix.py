"""LMAct Atari Phoenix (LMAct §2.2, App. B.2, Fig. A1) on the Arcade Learning Environment.

The emulator is ale-py's `ALEInterface` with the Phoenix ROM that ale-py ships; it is
imported when an episode first starts, so importing this module costs nothing.

Protocol: sticky actions (each emulator frame repeats the previous frame's action with
probability 0.25), an action repeat of 4 frames per step, 100 steps (400 frames), and
before the agent takes control a number of no-op frames drawn from the seed, 0–120
(the paper's 0–30 no-op steps, counted in single frames: see NOOP_FRAMES_MAX).

Observation (format "rgb", the only one): the 160×210 RGB screen after the step.
Actions: the names of the game's minimal action set, in ALE's order — NOOP, FIRE,
RIGHT, LEFT, DOWN (the shield), RIGHTFIRE, LEFTFIRE, DOWNFIRE — case ignored;
anything else is illegal and replaced by a uniformly random one of them.

How the emulator is driven. ALE applies sticky actions itself when its
`repeat_action_probability` is set, drawing from a generator seeded by its
`random_seed` setting, which only takes effect when the ROM is loaded (0.2 s). Here
the emulator runs with that probability at 0 and the task applies ALE's rule itself,
frame by frame, with a `random.Random` derived from the episode seed: with probability
0.25 the frame repeats the previous frame's action, otherwise it takes the chosen one
and that becomes the previous action. This keeps an episode a function of its seed and
actions (like every task here), lets one loaded emulator serve many episodes
(`reset_game` costs 10 ms) and makes `cloneState`/`restoreState` transparent (ALE
does not save its sticky-action memory in a state, so restoring a state into an
emulator with sticky actions on would change the episode). The state after each
possible number of no-ops is computed once per process and restored afterwards.
"""

from __future__ import annotations

import hashlib
import random
import threading
import weakref

from PIL import Image

from envs.core import Observation, StepResult, Task, step_random

FRAME_REPEAT = 4
STICKY_ACTION_PROBABILITY = 0.25
# No-ops before control, in emulator frames, drawn uniformly from 0..NOOP_FRAMES_MAX.
# The paper's "different numbers of no-ops" are read as up to 30 steps of 4 frames;
# counting single frames keeps that span but gives 74 different first screens instead
# of 31 (the first ~60 frames of Phoenix show only a few distinct screens), so that a
# pool of demonstrations with distinct initial states can be larger. Waiting much
# longer is not an option: a player left idle is shot down at about frame 130.
NOOP_FRAMES_MAX = 120
DISTINCT_INITIAL_STATES = 74  # distinct first screens over 0..NOOP_FRAMES_MAX no-op frames

# The expert: one-step lookahead with fixed rollouts (see `_rollout_names`).
EXPERT_HORIZON = 10  # steps simulated per candidate action (40 frames)
EXPERT_DEATH_PENALTY = 500.0
# RAM byte that holds the player's state: 0 or 1 while the ship is playable, 2–5 from
# the moment it is hit until it respawns (found by watching the RAM here). The lives
# counter only drops about 180 frames after the hit, too late for a short lookahead.
PLAYER_STATE_RAM_INDEX = 90

_KEEP_IDLE = 4  # loaded emulators kept for reuse
_lock = threading.Lock()
_idle_emulators: list = []
_starts: dict[int, tuple[object, object, str]] = {}  # no-op frames -> (state, first screen, key)


def _ale():
    import ale_py

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    return ale_py


def _acquire_emulator():
    """A loaded Phoenix emulator with ALE's own sticky actions off."""
    with _lock:
        if _idle_emulators:
            return _idle_emulators.pop()
    ale_py = _ale()
    emulator = ale_py.ALEInterface()
    emulator.setInt("random_seed", 0)
    emulator.setFloat("repeat_action_probability", 0.0)
    emulator.setInt("frame_skip", 1)
    emulator.loadROM(ale_py.roms.get_rom_path("phoenix"))
    return emulator


def _release_emulator(emulator) -> None:
    with _lock:
        if len(_idle_emulators) < _KEEP_IDLE:
            _idle_emulators.append(emulator)


def _start(emulator, noop_frames: int) -> tuple[object, object, str]:
    """The emulator state, first screen and initial-state key after `noop_frames` no-ops
    from a reset (computed on `emulator` the first time, then cached)."""
    with _lock:
        cached = _starts.get(noop_frames)
    if cached is not None:
        return cached
    emulator.reset_game()
    noop = _ale().Action.NOOP
    for _ in range(noop_frames):
        emulator.act(noop)
    screen = emulator.getScreenRGB().copy()
    screen.setflags(write=False)
    key = "frame-sha256=" + hashlib.sha256(screen.tobytes()).hexdigest()[:32]
    start = (emulator.cloneState(include_rng=True), screen, key)
    with _lock:
        _starts.setdefault(noop_frames, start)
    return start


def _rollout_names(first: str, horizon: int) -> list[str]:
    """The expert's rollout after taking `first`: keep moving the same way (DOWN, the
    shield, is not held) and press and release FIRE on alternate steps, starting with
    the opposite of `first` — Phoenix has no auto-fire, so this is the fastest firing."""
    move = first.replace("FIRE", "")
    if move in ("NOOP", "DOWN"):
        move = ""
    names = [first]
    fire = "FIRE" in first
    for _ in range(1, horizon):
        fire = not fire
        names.append((move + ("FIRE" if fire else "")) or "NOOP")
    return names


class Phoenix(Task):
    blocking = True  # physics / emulator steps and a planning expert
    baseline_episodes = 10
    demonstration_pool_size = 100
    score_range = (0.0, 1000.0)
    description = (
        "The Atari 2600 game Phoenix on the Arcade Learning Environment (protocol: "
        "LMAct §2.2, App. B.2): shoot the birds, dodge their bullets. Settings as in "
        "the paper: sticky actions (probability 0.25), every action held for 4 frames, "
        "100 steps (400 frames, about 7 s of play), the screen at its original 160×210 "
        "resolution as the observation, and a number of no-ops drawn from the seed before "
        "the agent takes control, so episodes start from different screens. The no-ops "
        "are counted in single frames, 0–120, the same span as the paper's 0–30 steps of "
        "4 frames, which gives 74 different starting screens instead of 31. Actions: NOOP, "
        "FIRE, RIGHT, LEFT, DOWN (shield), RIGHTFIRE, LEFTFIRE, DOWNFIRE (case ignored); "
        "any other text is replaced by a random one of them and counted as illegal. There "
        "is no auto-fire: holding FIRE shoots once. The score is the game score gained in "
        "the 100 steps. Demonstrations come from a planning expert, not Gato data: the "
        "paper used the best episodes of a Muesli agent from the Gato training set (mean "
        "459.9 over the first 400 frames), which cannot be had here. At every step the "
        "expert saves the emulator state, tries each of the 8 actions followed by 9 more "
        "steps that keep moving the same way while tapping FIRE (ignoring sticky actions), "
        "restores the state and takes the action with the most points, heavily penalising "
        "any that gets the ship hit; it is deterministic for a seed and scores about 350, "
        "against about 75 for random actions."
    )

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._emulator = None
        self._release = None

    # -- protocol ----------------------------------------------------------------
    def _reset(self, seed: int) -> Observation:
        self.close()
        self.seed = seed
        emulator = _acquire_emulator()
        self._emulator = emulator
        # Hand the emulator back for reuse when the task is closed or garbage-collected.
        self._release = weakref.finalize(self, _release_emulator, emulator)
        self._actions = {action.name: action for action in emulator.getMinimalActionSet()}
        self._action_names = list(self._actions)
        self.noop_frames = random.Random(f"{self.id}/noops:{seed}").randint(0, NOOP_FRAMES_MAX)
        state, screen, self._initial_key = _start(emulator, self.noop_frames)
        emulator.restoreState(state)
        self._sticky_rng = random.Random(f"{self.id}/sticky:{seed}")
        self._previous_action = self._actions["NOOP"]  # what the no-op frames pressed
        self._expert_step = -1
        self._expert_choice = ""
        return Observation(image=Image.fromarray(screen))

    def _step(self, action_text: str) -> StepResult:
        name = action_text.strip().upper()
        legal = name in self._actions
        if not legal:
            name = step_random(self, "illegal").choice(self._action_names)
        chosen = self._actions[name]
        reward = 0.0
        for _ in range(FRAME_REPEAT):
            # ALE's sticky-action rule, applied here (see the module docstring).
            if self._sticky_rng.random() >= STICKY_ACTION_PROBABILITY:
                self._previous_action = chosen
            reward += self._emulator.act(self._previous_action)
        terminated = self._emulator.game_over()
        return StepResult(
            observation=Observation(image=Image.fromarray(self._emulator.getScreenRGB())),
            reward=reward,
            terminated=terminated,
            truncated=False,
            legal=legal,
            executed_action=name,
            end_reason="game over" if terminated else None,
            info={"lives": int(self._emulator.lives())},
        )

    def legal_actions(self) -> list[str]:
        if self._emulator is None:
            raise RuntimeError("call reset(seed) first")
        return list(self._action_names)

    def initial_state_key(self) -> str:
        """A hash of the first screen the agent sees."""
        if self._emulator is None:
            raise RuntimeError("call reset(seed) first")
        return self._initial_key

    def expert_action(self) -> str:
        """One-step lookahead on the emulator itself (see `_rollout_names`).

        The current state is saved with `cloneState`, each of the 8 actions is tried
        followed by its rollout, and the state is restored afterwards, which leaves the
        episode exactly as it was. Rollouts ignore sticky actions, so they are a
        deterministic function of the emulator state. A rollout in which the ship gets
        hit scores its points minus EXPERT_DEATH_PENALTY. Ties go to the first action in
        legal_actions() order; asking twice at the same step returns the same action.
        """
        if self._emulator is None:
            raise RuntimeError("call reset(seed) first")
        if self.done:
            raise RuntimeError("the episode is over")
        if self._expert_step == self.steps_taken:
            return self._expert_choice
        emulator = self._emulator
        root = emulator.cloneState(include_rng=True)
        hit_already = self._player_hit()
        best_name, best_value = self._action_names[0], None
        try:
            for name in self._action_names:
                emulator.restoreState(root)
                value = self._rollout_value(name, hit_already)
                if best_value is None or value > best_value:
                    best_name, best_value = name, value
        finally:
            emulator.restoreState(root)
        self._expert_step = self.steps_taken
        self._expert_choice = best_name
        return best_name

    def close(self) -> None:
        """Hand the emulator back for reuse by later episodes."""
        if self._release is not None:
            self._release()
        self._emulator = None
        self._release = None

    # -- helpers -----------------------------------------------------------------
    @property
    def lives(self) -> int:
        return int(self._emulator.lives())

    def _player_hit(self) -> bool:
        return int(self._emulator.getRAM()[PLAYER_STATE_RAM_INDEX]) >= 2

    def _rollout_value(self, first: str, hit_already: bool) -> float:
        emulator = self._emulator
        total = 0.0
        for name in _rollout_names(first, EXPERT_HORIZON):
            action = self._actions[name]
            for _ in range(FRAME_REPEAT):
                total += emulator.act(action)
            if emulator.game_over():
                break
            if not hit_already and self._player_hit():
                return total - EXPERT_DEATH_PENALTY
        return total
