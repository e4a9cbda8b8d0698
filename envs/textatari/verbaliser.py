"""The interface every game's verbaliser implements (TextAtari §2.2, Fig. 4).

TextAtari gives each game its own translator, all built on one design (§2.2). Here that
design is one class, `GameVerbaliser`, with three parts:

- the game describer: static context — a synopsis, the goal (the win or termination
  clause) and the legal actions, each with a short description (`synopsis`, `goal`,
  `actions`), which the task turns into the header of its instructions;
- the observation translator: `describe(snapshot)` turns the console RAM, read through
  the AtariARI map (envs.textatari.ram), into sentences in the game's vocabulary —
  positions, scores, lives, the things on screen — one sentence per topic;
- the transition narration: `narrate` tells what the last step did — the action in
  words, the reward, the earlier state of whatever changed, and the new state.

A game module (envs/textatari/games/<game>.py) subclasses `GameVerbaliser` with its
vocabulary and templates; the narration and the length cap are shared. The same module
holds the game's manual summary (the "manual" scenario, §2.2) and its dictionary of
nouns for the "obscured" scenario.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import ClassVar

from envs.textatari.ram import Ram
from envs.textatari.text import estimate_tokens

# §2.2 caps the length of an observation in tokens so that it fits the context window,
# without giving the number; 300 estimated tokens keeps a 16-turn history window under
# 5,000 tokens.
MAX_OBSERVATION_TOKENS = 300

# What each of ALE's action names does in most games; a game overrides the ones it
# gives another meaning (Pong's RIGHT moves the paddle up, Boxing's FIRE punches).
GENERIC_ACTIONS = {
    "NOOP": "do nothing",
    "FIRE": "press the fire button",
    "UP": "move up",
    "RIGHT": "move right",
    "LEFT": "move left",
    "DOWN": "move down",
    "UPRIGHT": "move up and right",
    "UPLEFT": "move up and left",
    "DOWNRIGHT": "move down and right",
    "DOWNLEFT": "move down and left",
    "UPFIRE": "move up while pressing fire",
    "RIGHTFIRE": "move right while pressing fire",
    "LEFTFIRE": "move left while pressing fire",
    "DOWNFIRE": "move down while pressing fire",
    "UPRIGHTFIRE": "move up and right while pressing fire",
    "UPLEFTFIRE": "move up and left while pressing fire",
    "DOWNRIGHTFIRE": "move down and right while pressing fire",
    "DOWNLEFTFIRE": "move down and left while pressing fire",
}


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """What a translator reads at one moment of an episode."""

    ram: Ram
    lives: int  # as ALE counts them (0 for games without lives)
    score: float  # the game score gained so far in the episode (its summed reward)
    frame: int  # console frames since the episode began


class GameVerbaliser(abc.ABC):
    """One game's describer, translator and vocabulary."""

    # -- identity ------------------------------------------------------------------------
    game: ClassVar[str]  # the suite's name of the game: "mspacman"
    title: ClassVar[str]  # "Ms. Pac-Man"
    # The game's minimal action set in ALE's order (the tests check it against ALE).
    action_set: ClassVar[tuple[str, ...]]
    # -- the game describer (static context) ----------------------------------------------
    synopsis: ClassVar[str]  # what the game is and how its positions are measured
    goal: ClassVar[str]  # how points are won and how the game ends
    # Every action of the game's minimal action set, in ALE's order, with what it does
    # in this game (GENERIC_ACTIONS for the ones the game leaves as they are).
    action_meanings: ClassVar[dict[str, str]] = {}
    # RAM variables the game needs that AtariARI does not label (name → index), each
    # found by watching the RAM and documented in the game module; rare.
    extra_ram: ClassVar[dict[str, int]] = {}
    # -- scenarios ------------------------------------------------------------------------
    # The game's nouns that the "obscured" scenario replaces by "item" (singular forms;
    # `envs.textatari.text.obscure` adds plurals).
    nouns: ClassVar[tuple[str, ...]] = ()
    # The proper names the observations use ("Ms. Pac-Man", the ghosts' names,
    # "Q*bert"): masked as "item" too, since they name the game's things as surely as
    # its nouns do.
    proper_names: ClassVar[tuple[str, ...]] = ()
    # The "manual" scenario's summary of the game's manual, at most 300 tokens,
    # written for this suite.
    manual: ClassVar[str] = ""
    # -- the planning expert (envs.textatari.expert) --------------------------------------
    # The actions the expert's lookahead tries (all of them when empty), how many steps
    # it holds each, and every how many steps it plans again (holding its choice in
    # between): its cost per step is candidates × horizon × 12 frames / replan.
    expert_candidates: ClassVar[tuple[str, ...]] = ()
    expert_horizon: ClassVar[int] = 2
    expert_replan: ClassVar[int] = 2
    # A rollout may hold the candidate for only `expert_hold` steps and play
    # `expert_continuation` for the rest of the horizon (e.g. pull Video Pinball's plunger,
    # then let go); empty: hold the candidate throughout.
    expert_continuation: ClassVar[str] = ""
    expert_hold: ClassVar[int] = 1

    def ram(self, values) -> Ram:
        """The console RAM read by this game's variable names."""
        return Ram(self.game, values, self.extra_ram)

    def actions(self) -> dict[str, str]:
        """The legal actions with their descriptions, in ALE's order."""
        return {name: self.action_meanings.get(name, GENERIC_ACTIONS[name]) for name in self.action_set}

    @abc.abstractmethod
    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        """The observation translator: topic → one sentence (or a few) about the
        state, in the game's vocabulary, most important first. Topics are stable names
        ("ball", "paddle", "score") so that the narration can say what changed."""

    def expert_value(self, snapshot: Snapshot) -> float:
        """What the expert's lookahead adds to the points a rollout earns, for games
        whose points are too rare to steer by (Pong's distance between ball and
        paddle, Freeway's progress across the road); 0 by default."""
        return 0.0

    # -- shared sentences ---------------------------------------------------------------
    @staticmethod
    def score_sentence(snapshot: Snapshot) -> str:
        return f"Your score is {snapshot.score:g}."

    @staticmethod
    def lives_sentence(snapshot: Snapshot, noun: str = "life", plural: str = "lives") -> str:
        """ "You have 3 lives left." (ALE's count, which includes the one in play)."""
        left = snapshot.lives
        return f"You have {left} {noun if left == 1 else plural} left."


# -- the observation and the transition narration ---------------------------------------
def state_text(sentences: dict[str, str], limit: int = MAX_OBSERVATION_TOKENS) -> str:
    """The translator's sentences as one paragraph, cut to `limit` estimated tokens by
    dropping the last (least important) topics."""
    return " ".join(_within(list(sentences.values()), limit))


def narrate(
    action: str,
    meaning: str,
    reward: float,
    before: dict[str, str],
    after: dict[str, str],
    *,
    answer_was_illegal: bool = False,
    limit: int = MAX_OBSERVATION_TOKENS,
) -> str:
    """The transition narration (TextAtari §2.2, the TransitionTranslator): the action
    in words, the reward, the previous state of every topic that changed, and the new
    state. Within `limit` estimated tokens: the new state comes first in the budget,
    then as much of the previous state as fits."""
    head = f"You chose {action}: {meaning}. Reward {reward:+g}."
    if answer_was_illegal:
        head = f"Your answer named no valid action, so {action} was played: {meaning}. Reward {reward:+g}."
    now = _within(list(after.values()), limit - estimate_tokens(head) - 4)
    changed = [sentence for topic, sentence in before.items() if after.get(topic) != sentence]
    spare = limit - estimate_tokens(head) - estimate_tokens(" ".join(now)) - 8
    was = _within(changed, spare)
    lines = [head]
    if was:
        lines.append("Before: " + " ".join(was))
    elif not changed:
        lines.append("Nothing else changed.")
    lines.append("Now: " + " ".join(now))
    return "\n".join(lines)


def _within(sentences: list[str], limit: int) -> list[str]:
    kept, used = [], 0
    for sentence in sentences:
        size = estimate_tokens(sentence) + 1
        if used + size > limit:
            break
        kept.append(sentence)
        used += size
    return kept
