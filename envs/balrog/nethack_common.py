"""What BALROG's MiniHack and NetHack environments share (BALROG App. E and F): both
are NetHack games run by NLE, played with named actions ("north", "far east", "open",
"esc") and seen through the NetHack Language Wrapper's text (`envs.balrog.nle_text`).

`NetHackGameTask` runs one NLE environment per task instance and plays an episode on it:

- Same seed ⇒ same episode: NetHack's three random generators (core, display and level
  generator) are seeded from the episode's seed before every reset, NetHack's own
  reseeding from true randomness is off, and NLE takes the moon phase from the seed
  instead of the clock (a full moon or Friday the 13th changes the game).
- BALROG continues every "--More--" at once (its `skip_more`), so the agent sees the
  whole message; the continuations are part of the step.
- The long-term text (kept in the history) is the message, the language observation and
  the cursor, plus the ASCII map in the "text" format; the short-term context (latest
  turn only) is the inventory, with the statistics where BALROG shows them. The "rgb"
  format adds the map drawn with NetHack's tiles (`envs.balrog.nethack_tiles`).
"""

from __future__ import annotations

import abc
import random
from typing import ClassVar

import numpy as np
from nle import nethack
from nle.env.base import NLE

from envs.balrog import nle_text
from envs.balrog.nethack_tiles import render_map
from envs.balrog.protocol import BalrogTask
from envs.core import Observation

# Unexplored cells and solid rock: NetHack's "stone" map symbol, drawn blank.
BLANK_GLYPH = nethack.GLYPH_CMAP_OFF + 0

# The keys NLE must observe for the text and the picture.
OBSERVATION_KEYS = ("glyphs", "blstats", "tty_chars", "tty_colors", "tty_cursor", "inv_strs", "inv_letters")

_D, _FAR = nethack.CompassDirection, nethack.CompassDirectionLonger
_C = nethack.Command
# The sixteen moves BALROG's MiniHack and NetHack prompts share (App. E.1, F.4), with
# what each does; each environment adds its own other actions. The eight directions are
# in BALROG's order; its prompts say no more of a move than its direction, and of a
# "far" move that it goes far.
_DIRECTIONS = ("north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest")
MOVE_DESCRIPTIONS: dict[str, str] = {
    **{direction: f"go {direction}" for direction in _DIRECTIONS},
    **{f"far {direction}": f"go far {direction}" for direction in _DIRECTIONS},
}

# BALROG's action names (those of the NetHack Language Wrapper) and the key each sends.
ACTION_KEYS: dict[str, int] = {
    "north": _D.N,
    "east": _D.E,
    "south": _D.S,
    "west": _D.W,
    "northeast": _D.NE,
    "southeast": _D.SE,
    "southwest": _D.SW,
    "northwest": _D.NW,
    "far north": _FAR.N,
    "far east": _FAR.E,
    "far south": _FAR.S,
    "far west": _FAR.W,
    "far northeast": _FAR.NE,
    "far southeast": _FAR.SE,
    "far southwest": _FAR.SW,
    "far northwest": _FAR.NW,
    "up": nethack.MiscDirection.UP,
    "down": nethack.MiscDirection.DOWN,
    "wait": nethack.MiscDirection.WAIT,
    "more": nethack.MiscAction.MORE,
    "annotate": _C.ANNOTATE,
    "apply": _C.APPLY,
    "call": _C.CALL,
    "cast": _C.CAST,
    "close": _C.CLOSE,
    "open": _C.OPEN,
    "dip": _C.DIP,
    "drop": _C.DROP,
    "droptype": _C.DROPTYPE,
    "eat": _C.EAT,
    "esc": _C.ESC,
    "engrave": _C.ENGRAVE,
    "enhance": _C.ENHANCE,
    "fire": _C.FIRE,
    "fight": _C.FIGHT,
    "force": _C.FORCE,
    "inventory": _C.INVENTORY,
    "invoke": _C.INVOKE,
    "jump": _C.JUMP,
    "kick": _C.KICK,
    "look": _C.LOOK,
    "loot": _C.LOOT,
    "monster": _C.MONSTER,
    "offer": _C.OFFER,
    "overview": _C.OVERVIEW,
    "pay": _C.PAY,
    "pickup": _C.PICKUP,
    "pray": _C.PRAY,
    "puton": _C.PUTON,
    "quaff": _C.QUAFF,
    "quiver": _C.QUIVER,
    "read": _C.READ,
    "remove": _C.REMOVE,
    "rub": _C.RUB,
    "search": _C.SEARCH,
    "swap": _C.SWAP,
    "takeoff": _C.TAKEOFF,
    "takeoffall": _C.TAKEOFFALL,
    "teleport": _C.TELEPORT,
    "throw": _C.THROW,
    "travel": _C.TRAVEL,
    "twoweapon": _C.TWOWEAPON,
    "untrap": _C.UNTRAP,
    "wear": _C.WEAR,
    "wield": _C.WIELD,
    "wipe": _C.WIPE,
    "zap": _C.ZAP,
    "minus": nethack.TextCharacters.MINUS,
    "space": nethack.TextCharacters.SPACE,
    "apos": nethack.TextCharacters.APOS,
    **{str(digit): ord(str(digit)) for digit in range(10)},
}
ACTION_KEYS = {name: int(key) for name, key in ACTION_KEYS.items()}
MORE_KEY = int(nethack.MiscAction.MORE)
# A message that keeps asking for more after this many continuations is left to the
# agent (its "more" action), so a step always ends.
MAX_CONTINUATIONS = 64


def nle_seeds(seed: int) -> tuple[int, int, bool, int]:
    """NetHack's (core, disp, reseed, lgen) for an episode seed: three generators
    seeded from it, and no reseeding from true randomness during the game."""
    rng = random.Random(f"nethack seeds {seed}")
    core, display, level_generator = (rng.getrandbits(63) for _ in range(3))
    return core, display, False, level_generator


def level_part(glyphs: np.ndarray, margin: int = 1) -> np.ndarray:
    """The glyphs of the smallest box holding every cell that is not blank stone
    (the level seen so far), with `margin` cells around it; all of them if none."""
    drawn = np.argwhere(glyphs != BLANK_GLYPH)
    if not len(drawn):
        return glyphs
    (top, left), (bottom, right) = drawn.min(axis=0), drawn.max(axis=0)
    rows, columns = glyphs.shape
    return glyphs[max(top - margin, 0):min(bottom + margin + 1, rows), max(left - margin, 0):min(right + margin + 1, columns)]


class NetHackGameTask(BalrogTask):
    """A BALROG task played on one NLE environment (MiniHack or NetHack)."""

    blocking = True
    viewer_frames = True
    # Whether the "text" format's short-term context shows the statistics too (the
    # "rgb" format always does, as BALROG's vision-language mode).
    statistics_in_text: ClassVar[bool] = False

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._env: NLE | None = None
        self._key_index: dict[int, int] = {}
        self._observed: dict | None = None
        self._message = ""
        self._seed: int | None = None

    # -- what a subclass provides ------------------------------------------------------
    @abc.abstractmethod
    def _make_env(self) -> NLE:
        """A new NLE environment observing at least OBSERVATION_KEYS."""

    # -- the environment ---------------------------------------------------------------
    @property
    def env(self) -> NLE:
        """The task's NLE environment, made on first use and kept across episodes."""
        if self._env is None:
            self._env = self._make_env()
            # NLE takes the index of an action in its action space, not the key.
            self._key_index = {}
            for index, action in enumerate(self._env.actions):
                self._key_index.setdefault(int(action), index)
        return self._env

    def has_key(self, key: int) -> bool:
        """Whether the environment's action space has the key."""
        return any(int(action) == key for action in self.env.actions)

    def _before_reset(self, seed: int) -> None:
        """Anything the episode of `seed` sets up before NetHack starts (a level)."""

    def _reset_game(self, seed: int) -> None:
        env = self.env
        self._before_reset(seed)
        env.seed(*nle_seeds(seed))
        self._seed = seed
        self._observed, _info = env.reset()
        self._message = nle_text.message_text(self._observed["tty_chars"])
        self._continue_messages(done=False)

    def _send(self, key: int) -> tuple[float, bool, dict]:
        """Press one key; then continue every "--More--" as BALROG does. The summed
        reward, whether the game is over and NLE's information."""
        self._observed, reward, terminated, truncated, info = self.env.step(self._key_index[key])
        self._message = nle_text.message_text(self._observed["tty_chars"])
        done = terminated or truncated
        extra, done, info = self._continue_messages(done, info)
        return reward + extra, done, info

    def _continue_messages(self, done: bool, info: dict | None = None) -> tuple[float, bool, dict]:
        """Answer "--More--" until the message is whole; the parts are joined line by
        line. Tasks whose actions lack "more" leave it to NLE, which skips it."""
        reward = 0.0
        parts = [self._message]
        continuations = 0
        while "--More--" in parts[-1] and not done and MORE_KEY in self._key_index:
            if continuations == MAX_CONTINUATIONS:
                break
            parts[-1] = parts[-1].replace("--More--", "").rstrip()
            self._observed, step_reward, terminated, truncated, info = self.env.step(self._key_index[MORE_KEY])
            reward += step_reward
            done = terminated or truncated
            parts.append(nle_text.message_text(self._observed["tty_chars"]))
            continuations += 1
        self._message = "\n".join(part for part in parts if part)
        return reward, done, info or {}

    # -- what the agent sees -----------------------------------------------------------
    def _observation(self) -> Observation:
        observed = self._observed
        glyphs, blstats = observed["glyphs"], observed["blstats"]
        cursor = nle_text.cursor_text(glyphs, blstats, observed["tty_cursor"])
        long_term = [
            nle_text.section("message", self._message),
            nle_text.section("language observation", nle_text.surroundings_text(glyphs, blstats)),
        ]
        inventory = nle_text.inventory_text(observed["inv_strs"], observed["inv_letters"])
        short_term = [nle_text.section("inventory", inventory)]
        if self.format == "rgb" or self.statistics_in_text:
            short_term.insert(0, nle_text.section("statistics", nle_text.statistics_text(blstats)))
        image = None
        if self.format == "rgb":
            long_term.append(nle_text.section("cursor", cursor))
            image = render_map(glyphs)
        else:
            row, column = (int(value) for value in observed["tty_cursor"])
            long_term.append(nle_text.section("cursor", f"{cursor}\n(x={column}, y={row})"))
            long_term.append(nle_text.section("map", nle_text.map_text(observed["tty_chars"])))
        return Observation(text="\n\n".join(long_term), image=image, context="\n\n".join(short_term))

    def world_picture(self):
        """The map drawn with NetHack's tiles, as the rgb format draws it, cut to the
        part seen so far: MiniHack's levels are small islands in the 79×21 map, and
        NetHack's first level is mostly unexplored rock, drawn at half size otherwise."""
        if self._observed is None:
            return None
        return render_map(level_part(self._observed["glyphs"]))

    @property
    def message(self) -> str:
        """The message of the current state, after every "--More--"."""
        return self._message

    @property
    def blstats(self):
        return self._observed["blstats"]

    @property
    def glyphs(self):
        return self._observed["glyphs"]

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None
