"""NetHack in BALROG (BALROG App. F): the full game through the NetHack Learning
Environment, scored by BALROG's data-informed progression (App. F.2).

BALROG plays NLE's NetHackChallenge-v0: a random character ("@"), the whole keyboard
as action space, menus and questions left to the agent, no reward shaping, and the game
aborted when its turn counter stands still too long (BALROG sets `no_progress_timeout`
to 150). The Challenge refuses seeds, so this task plays NLE's score task with exactly
the Challenge's options and abort rule (`SeedableNetHackChallenge`), seeded per
episode.

Progress (App. F.2): for every dungeon level ("Dlvl") and experience level ("Xp") the
hero reaches, the empirical probability that a human who reached it went on to win
(`data/nethack_progression.json`, from the NetHack Learning Dataset); an episode's
progress is the largest over the levels it reached, ×100. Dlvl 1 and Xp 1 are 0.
"""

from __future__ import annotations

import functools
import json
import string
from pathlib import Path
from typing import ClassVar

from nle import nethack
from nle.env.tasks import NetHackChallenge, NetHackScore

from envs.balrog.nethack_common import ACTION_KEYS, MOVE_DESCRIPTIONS, OBSERVATION_KEYS, NetHackGameTask
from envs.balrog.protocol import HISTORY_COMING, Outcome
from envs.core import NoExpert, Observation, RandomLegalPolicy

PROGRESSION_FILE = Path(__file__).resolve().parent / "data" / "nethack_progression.json"
# BALROG's NLE settings (its config: nle_kwargs).
NO_PROGRESS_TIMEOUT = 150
from envs.balrog.specs import NETHACK_STEP_LIMITS as STEP_LIMITS  # noqa: E402

# BALROG's NetHack action list (App. F.4), in its order, each with what it does.
ACTION_DESCRIPTIONS: dict[str, str] = {
    **MOVE_DESCRIPTIONS,
    "up": "go up a staircase",
    "down": "go down a staircase (tip: you can only go down while standing on the stairs)",
    "wait": "rest for one move, doing nothing",
    "more": "show more of the message (tip: use it ONLY when the current message ends with --More--)",
    "annotate": "leave a note about the level",
    "apply": "apply (use) a tool",
    "call": "name a monster or an object, or add an annotation",
    "cast": "cast a spell",
    "close": "close a door next to you",
    "open": "open a door next to you",
    "dip": "dip an object into something",
    "drop": "drop an item",
    "droptype": "drop items of specific types (named in the next prompt)",
    "eat": "eat something (tip: eat again when you are hungry)",
    "esc": "leave a menu or a message",
    "engrave": "engrave writing on the floor (tip: Elbereth)",
    "enhance": "check or advance your weapon skills",
    "fire": "fire ammunition from your quiver",
    "fight": "fight a monster (even if you only guess one is there)",
    "force": "force a lock",
    "inventory": "show your inventory",
    "invoke": "invoke",
    "jump": "jump to a location",
    "kick": "kick an enemy, or a locked door or chest",
    "look": "look at what is under you",
    "loot": "loot a box lying on the floor",
    "monster": "use a special ability of a monster (when polymorphed)",
    "offer": "offer a sacrifice to the gods (tip: on an aligned altar)",
    "overview": "show an overview of the dungeon",
    "pay": "pay your shopping bill",
    "pickup": "pick up things where you stand",
    "pray": "pray to the gods for help",
    "puton": "put on an accessory",
    "quaff": "quaff (drink) something",
    "quiver": "choose ammunition for your quiver",
    "read": "read a scroll or a spellbook",
    "remove": "remove an accessory",
    "rub": "rub a lamp or a stone",
    "search": "search for hidden doors and passages",
    "swap": "swap your wielded and your secondary weapon",
    "takeoff": "take off one piece of armor",
    "takeoffall": "take off all your armor",
    "teleport": "teleport to another level (if you have that ability)",
    "throw": "throw something (a dagger or a dart, for instance)",
    "travel": (
        "travel to a chosen place on the map (tip: in the next action, give > or < for stairs, { for a "
        "fountain and _ for an altar)"
    ),
    "twoweapon": "switch two-weapon combat on or off",
    "untrap": "untrap something",
    "wear": "wear a piece of armor",
    "wield": "wield a weapon",
    "wipe": "wipe off your face",
    "zap": "zap a wand",
    # BALROG describes these keys by the character alone.
    "minus": "-",
    "space": " ",
    "apos": "'",
    **{str(digit): str(digit) for digit in range(10)},
}
# One letter answers a question about an item ("What do you want to eat? [fg or ?*]")
# or picks a menu entry; a letter is also the key of a NetHack command.
LETTERS = tuple(string.ascii_lowercase + string.ascii_uppercase)
# BALROG's NetHack accepts the language wrapper's names of NLE's useful actions, not
# the list its prompt gives: six listed actions are not among them (an output naming
# one is invalid and plays "esc"), and these, never listed, are.
UNLISTED_ACCEPTED_KEYS: dict[str, int] = {
    name: int(getattr(nethack.Command, command))
    for name, command in (
        ("adjust", "ADJUST"), ("attributes", "ATTRIBUTES"), ("chat", "CHAT"), ("inventtype", "INVENTTYPE"),
        ("move", "MOVE"), ("movefar", "MOVEFAR"), ("ride", "RIDE"), ("rush", "RUSH"), ("rush2", "RUSH2"),
        ("seeamulet", "SEEAMULET"), ("seearmor", "SEEARMOR"), ("seegold", "SEEGOLD"), ("seerings", "SEERINGS"),
        ("seespells", "SEESPELLS"), ("seetools", "SEETOOLS"), ("seetrap", "SEETRAP"), ("seeweapon", "SEEWEAPON"),
        ("shell", "SHELL"), ("sit", "SIT"), ("tip", "TIP"), ("turnundead", "TURN"), ("versionshort", "VERSIONSHORT"),
    )
}
LISTED_NOT_ACCEPTED = frozenset({"annotate", "overview", "teleport", "travel", "minus", "apos"})
# Every output BALROG's NetHack executes, with its key: named actions, single letters
# (answers to item questions), digits. BALROG's space also holds "00"–"99", which its
# language wrapper cannot send (the episode ends with an exception and is lost); here
# they are invalid and play "esc", a labelled deviation.
ACCEPTED_KEYS: dict[str, int] = {
    **{name: key for name, key in ACTION_KEYS.items() if name not in LISTED_NOT_ACCEPTED},
    **UNLISTED_ACCEPTED_KEYS,
    **{letter: ord(letter) for letter in LETTERS},
}


@functools.cache
def progression_table() -> dict[str, float]:
    """"Dlvl:k" and "Xp:k" → probability of winning after reaching that level."""
    return json.loads(PROGRESSION_FILE.read_text())


def progression(dungeon_levels, experience_levels) -> float:
    """BALROG's progression (0–1): the largest table entry over the levels reached;
    levels beyond the table count nothing, as in BALROG."""
    table = progression_table()
    reached = [f"Dlvl:{level}" for level in dungeon_levels] + [f"Xp:{level}" for level in experience_levels]
    return max((table[key] for key in reached if key in table), default=0.0)


class SeedableNetHackChallenge(NetHackScore):
    """NetHackChallenge-v0 without its seed lock: the score task with the Challenge's
    options (random character, the full keyboard, no menu or question skipped, no
    penalties) and its abort rule, plus NLE's moon phase taken from the seed."""

    def _check_abort(self, observation):
        """The Challenge's rule — abort at the step limit, or once the game's turn has
        stood still for `no_progress_timeout` checks — counted once a step, as in
        balrog-nle, where only the end status checks it. nle 1.3.0 checks it twice a
        step (for `truncated`, then for the end status), which aborted after 75 frozen
        steps instead of BALROG's 151; here the first check of a step only looks at the
        step limit."""
        if self._abort_counted_at == self._steps:
            return self._steps >= self._max_episode_steps
        self._abort_counted_at = self._steps
        return NetHackChallenge._check_abort(self, observation)

    def __init__(self, no_progress_timeout: int = NO_PROGRESS_TIMEOUT):
        super().__init__(
            actions=nethack.ACTIONS,
            character="@",
            allow_all_yn_questions=True,
            allow_all_modes=True,
            penalty_mode="constant",
            penalty_step=0.0,
            penalty_time=0.0,
            # The task's protocol applies the step limit; NLE only the abort rule.
            max_episode_steps=10**12,
            observation_keys=OBSERVATION_KEYS,
            savedir=None,
            fix_moon_phase=True,
        )
        self.no_progress_timeout = no_progress_timeout
        self._abort_counted_at = 0

    def reset(self, *args, **kwargs):
        self._turns = None
        self._no_progress_count = 0
        self._abort_counted_at = 0
        return super().reset(*args, **kwargs)


class NetHackTask(NetHackGameTask):
    balrog_name: ClassVar[str] = "NetHackChallenge-v0"
    # BALROG's text mode ("hybrid") gives the inventory alone as short-term context; the
    # statistics only come with images.
    statistics_in_text = False
    action_descriptions = ACTION_DESCRIPTIONS
    default_action = "esc"
    baselines = {"random": RandomLegalPolicy}
    baseline_episodes = 20
    description = (
        "NetHack (BALROG App. F) through the NetHack Learning Environment 1.3: the whole game, with a random "
        "role, race and alignment, up to 100,000 steps (the max_steps setting offers shorter runs). The text "
        "is the NetHack Language Wrapper's, written here from NLE's observations: the message (every --More-- "
        "is continued at once, as BALROG does), every creature, object and dungeon feature in sight with its "
        "distance and direction, the cursor, and the ASCII map; statistics and inventory are short-term "
        "context. The rgb format replaces the ASCII map by the map drawn with NetHack's 16×16 tiles. Actions: "
        "what BALROG's NetHack accepts — the language wrapper's names of NLE's useful actions (so 'travel', "
        "'teleport', 'overview', 'annotate', 'minus' and 'apos', listed in the prompt, are invalid, and a few "
        "unlisted ones such as 'sit' or 'chat' are valid), single letters and digits; anything else plays "
        "'esc'. Progress is BALROG's progression: the largest human win probability over the dungeon and "
        "experience levels reached, ×100. The game is aborted once the turn counter has stood still for 150 "
        "steps (151 steps of repeated 'esc', as in balrog-nle). Deviations: NLE 1.3 rather than balrog-nle "
        "(which MiniHack 1.0.2 cannot share); NLE's score task with the Challenge's options and abort rule, "
        "seeded from the episode's seed (core, display and level generators, no reseeding, the moon phase "
        "from the seed); BALROG's two-digit answers ('00'–'99'), which end BALROG's episode with an "
        "exception, play 'esc' here. As in BALROG, the statistics are shown only in the rgb format."
    )

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._dungeon_levels: set[int] = set()
        self._experience_levels: set[int] = set()

    def configure(self, **options) -> None:
        super().configure(**options)
        if "max_steps" in options:
            self.max_steps = options["max_steps"]

    def _make_env(self) -> SeedableNetHackChallenge:
        return SeedableNetHackChallenge()

    def rules_text(self) -> str:
        return "You are an agent playing NetHack."

    def closing_text(self) -> str:
        # BALROG's tips, no more: nothing on which replies are valid beyond the actions
        # listed, nothing on "esc" but its description.
        return (
            "Tips:\n"
            "- When the message asks you to complete something, such as \"What do you want to eat? [d or ?*]\", "
            "answer with the single character of the item you want to eat or use.\n"
            "    - For example, for \"What do you want to eat? [dgh or ?*]\" the possible answers are \"d\", "
            "\"g\" or \"h\", to eat the matching food.\n"
            "- When the message asks for a direction, such as \"In what direction?\", answer with a direction.\n"
            "- When the message ends with --More--, your next action should be \"more\" to read the rest of "
            "the message.\n"
            "- Explore the level to find the stairs down to the next one.\n"
            "- Always read the last message carefully to understand the current state of the game before you "
            "choose your next action.\n"
            "- If you keep moving in one direction you will hit a wall sooner or later and stop moving; the "
            "message may then say \"It's solid stone\" or \"It's a wall\". Move in another direction to keep "
            "exploring.\n"
            "- Read the language observation carefully and look at the ASCII map or the image to decide your "
            "next action and where to move next.\n"
            "- Moving into a monster attacks it.\n\n"
            f"{HISTORY_COMING}\n"
            "Your goal is to get as far as you can in the game."
        )

    def legal_actions(self) -> list[str]:
        return list(ACCEPTED_KEYS)

    def is_valid(self, candidate: str) -> bool:
        return candidate in ACCEPTED_KEYS

    # -- the game ----------------------------------------------------------------------
    def _start(self, seed: int) -> Observation:
        self._reset_game(seed)
        self._dungeon_levels, self._experience_levels = set(), set()
        self._record_levels()
        return self._observation()

    def _play(self, action: str) -> Outcome:
        reward, done, info = self._send(ACCEPTED_KEYS[action])
        self._record_levels()
        end_reason = self._end_reason(info) if done else None
        return Outcome(
            observation=self._observation(),
            reward=float(reward),
            terminated=done,
            end_reason=end_reason,
            info={"dungeon_level": int(self.blstats[nethack.NLE_BL_DEPTH])},
        )

    def _record_levels(self) -> None:
        self._dungeon_levels.add(int(self.blstats[nethack.NLE_BL_DEPTH]))
        self._experience_levels.add(int(self.blstats[nethack.NLE_BL_XP]))

    def _end_reason(self, info: dict) -> str:
        if info.get("is_ascended"):
            return "ascended"
        if info.get("end_status") == SeedableNetHackChallenge.StepStatus.ABORTED:
            return "no progress"
        how = self.env.nethack.how_done()
        return "died" if how == nethack.DIED else f"game over ({how.name.lower()})"

    # -- progress and metrics ----------------------------------------------------------
    def progress_percent(self) -> float:
        return 100.0 * progression(self._dungeon_levels, self._experience_levels)

    def episode_metrics(self) -> dict:
        return {
            **super().episode_metrics(),
            "max_dungeon_level": max(self._dungeon_levels, default=1),
            "max_experience_level": max(self._experience_levels, default=1),
        }

    def initial_state_key(self) -> str:
        if self._seed is None:
            raise RuntimeError("call reset(seed) first")
        return f"nethack seed {self._seed}"

    def expert_action(self) -> str:
        raise NoExpert(
            "NetHack has no expert: BALROG gives none and no planner plays the full game; "
            "its only built-in baseline is the random policy"
        )
