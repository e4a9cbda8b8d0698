"""The Atari emulator under every TextAtari task: ale-py's `ALEInterface` with the ROMs
ale-py ships. The paper names the emulator (ALE, §2.2) and a decision rate of about
5 Hz, but not its frame skip, sticky actions or environment version; the driving below
is the arena's choice (gymnasium's v5 conventions), not the paper's.

- Decision rate: TextAtari §2.2 throttles observations to about 5 per second. The
  console draws 60 frames a second, so one agent step holds its action for
  FRAMES_PER_STEP = 12 frames (0.2 s of game time). The authors' earlier code
  (Text-Gym-Agents) held an action for 6 frames without sticky actions
  (NoFrameskip-v4, frameskip 6); the paper does not say which the benchmark used, so
  the arena keeps the 5 Hz the paper states.
- Sticky actions, as gymnasium's v5 environments apply them (repeat_action_probability
  0.25; the arena's choice, not stated by the paper): on every frame, with probability
  0.25 the console repeats the previous frame's action instead of the chosen one.
- The minimal action set of the game, in ALE's order.

How randomness is seeded. ALE applies sticky actions itself when asked to, but it does
not save the previous frame's action in a cloned state, so restoring a state changes
what follows (checked here: an episode with clones and restores in between diverged
from the same episode without them). The planning expert restores states all the
time. So the emulator runs with ALE's own stickiness off and this class applies ALE's
rule frame by frame, drawing from a `random.Random` derived from the episode seed;
ALE's `random_seed` is set from the same seed, as gymnasium does on reset. With ALE's
stickiness off the console itself is deterministic, so an episode is a function of its
seed and actions, and cloning and restoring is invisible to it.
"""

from __future__ import annotations

import hashlib
import io
import random
import zlib

import numpy as np
from PIL import Image

FRAMES_PER_STEP = 12
STICKY_ACTION_PROBABILITY = 0.25
# Screens kept encoded for the viewer, by hash (see `screen_png`).
SCREENS_KEPT = 512

# The suite's game names whose ALE ROM id differs (ale_py.roms spells them with "_").
ROM_IDS = {
    "battlezone": "battle_zone",
    "demonattack": "demon_attack",
    "montezumarevenge": "montezuma_revenge",
    "mspacman": "ms_pacman",
    "privateeye": "private_eye",
    "spaceinvaders": "space_invaders",
    "videopinball": "video_pinball",
}


def _ale():
    import ale_py

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    return ale_py


def ale_seed(game: str, seed: int) -> int:
    """ALE's `random_seed` for an episode: a non-negative 31-bit number derived from
    the game and the episode seed (ALE takes a C int)."""
    digest = hashlib.sha256(f"textatari/{game}/ale:{seed}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


class AtariEmulator:
    """One game's console for one episode."""

    def __init__(self, game: str, seed: int):
        ale_py = _ale()
        self.game = game
        self._ale = ale_py.ALEInterface()
        self._ale.setInt("random_seed", ale_seed(game, seed))
        self._ale.setFloat("repeat_action_probability", 0.0)
        self._ale.setInt("frame_skip", 1)
        self._ale.loadROM(ale_py.roms.get_rom_path(ROM_IDS.get(game, game)))
        self._actions = {action.name: action for action in self._ale.getMinimalActionSet()}
        self.action_names = tuple(self._actions)
        self._sticky = random.Random(f"textatari/{game}/sticky:{seed}")
        self._previous = self._actions["NOOP"]
        self.frame = 0
        self.lookahead_frames = 0  # frames emulated by `simulate`, the expert's cost
        self._screens: dict[bytes, bytes] = {}  # screen hash -> PNG, oldest first
        self._palette: dict[int, bytes] = {}  # ALE colour index -> its RGB bytes

    # -- playing ------------------------------------------------------------------------
    def step(self, action_name: str) -> float:
        """Hold an action for one agent step, with sticky actions; the reward gained."""
        chosen = self._actions[action_name]
        reward = 0.0
        for _ in range(FRAMES_PER_STEP):
            if self._sticky.random() >= STICKY_ACTION_PROBABILITY:
                self._previous = chosen
            reward += self._ale.act(self._previous)
            self.frame += 1
            if self._ale.game_over():
                break
        return reward

    def simulate(self, action_name: str, steps: int) -> float:
        """Hold an action for `steps` agent steps without sticky actions, for the
        expert's lookahead: a deterministic function of the console state. Only between
        `save` and `load`; the episode's own frame count and sticky memory are left alone."""
        action = self._actions[action_name]
        reward = 0.0
        for _ in range(steps * FRAMES_PER_STEP):
            reward += self._ale.act(action)
            self.lookahead_frames += 1
            if self._ale.game_over():
                break
        return reward

    # -- state ----------------------------------------------------------------------------
    def save(self):
        return self._ale.cloneState(include_rng=True)

    def load(self, state) -> None:
        self._ale.restoreState(state)

    def snapshot(self) -> tuple:
        """Everything an episode's future depends on, as plain values: the console
        (with ALE's generator), the sticky-action generator and the action it would
        repeat, and the frame count. The console's serialised state is mostly zeros,
        so it is compressed (14 KB to about 7)."""
        console = zlib.compress(self.save().serialize(), 6)
        return console, self._sticky.getstate(), self._previous.name, self.frame

    def restore(self, snapshot: tuple) -> None:
        console, sticky, previous, frame = snapshot
        self.load(_ale().ALEState(zlib.decompress(console)))
        self._sticky.setstate(sticky)
        self._previous = self._actions[previous]
        self.frame = frame

    def screen_png(self) -> bytes:
        """The screen as a PNG with a palette of its own colours (an Atari frame has a
        handful: about 300 bytes for Pong against 700 as RGB). Encoding costs about as
        much as a step, and screens recur (a paddle moving back and forth), so the
        latest few hundred are kept by the hash of their palette indices."""
        indices = self._ale.getScreen()
        key = hashlib.blake2b(indices.tobytes(), digest_size=16).digest()
        data = self._screens.pop(key, None)
        if data is None:
            data = self._encode(indices)
            if len(self._screens) >= SCREENS_KEPT:
                del self._screens[next(iter(self._screens))]
        self._screens[key] = data  # the most recent last
        return data

    def _encode(self, indices) -> bytes:
        used = np.flatnonzero(np.bincount(indices.ravel(), minlength=256))
        unknown = [index for index in used.tolist() if index not in self._palette]
        if unknown:
            rgb = self._ale.getScreenRGB().reshape(-1, 3)
            flat = indices.ravel()
            for index in unknown:
                self._palette[index] = rgb[int(np.argmax(flat == index))].tobytes()
        compact = np.zeros(256, dtype=np.uint8)
        compact[used] = np.arange(len(used), dtype=np.uint8)
        image = Image.fromarray(compact[indices], "P")
        image.putpalette(b"".join(self._palette[index] for index in used.tolist()))
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        return buffer.getvalue()

    @property
    def ram(self):
        return self._ale.getRAM()

    @property
    def lives(self) -> int:
        return int(self._ale.lives())

    @property
    def game_over(self) -> bool:
        return bool(self._ale.game_over())

