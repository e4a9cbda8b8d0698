"""LMAct crossword (LMAct §2.2 "Crossword", App. B.2, Fig. A4).

The puzzles and their text come from envs.lmact.crossword_puzzle; this module is the
task: the actions it reads, their rewards, and the baselines' moves.
"""

from __future__ import annotations

import hashlib
import random
import re

from envs.core import Observation, StepResult, Task
from envs.lmact.crossword_puzzle import MAX_WORDS, MIN_WORDS, Puzzle, generate, puzzle_text
from envs.lmact.crossword_words import words_by_length

LEGAL_CHOICES_PER_SLOT = 5

# "A1: word" / "d 12 : Word": a direction letter, a clue number, a colon, letters.
ACTION_RE = re.compile(r"\s*([AaDd])\s*(\d+)\s*:\s*([A-Za-z]+)\s*")


# -- the task ------------------------------------------------------------------
class Crossword(Task):
    score_range = (-1.0, float(MAX_WORDS))
    # Every word of the right length for an open slot is legal: thousands of actions,
    # so legal_actions() is empty and a prompt that shows legal actions shows this
    # description instead (as for cheetah). The clue list gives each answer's length.
    action_format = (
        "'A<n>: <word>' or 'D<n>: <word>', where <n> is the number of an Across (A) or "
        "Down (D) clue whose word is not yet in the grid and <word> is any word with as "
        "many letters as that clue's answer (the number in brackets after the clue)."
    )
    description = (
        "Fill a 7×7 crossword from its clues (protocol: LMAct §2.2, App. B.2, Fig. A4). "
        "Each episode is a different puzzle from our own seeded generator, which places "
        f"{MIN_WORDS}–{MAX_WORDS} crossing words freeform in the style of genxword (the "
        "generator the paper used), with standard numbering. Words and clues come from "
        "WordNet 3.0 (Princeton University; its licence travels with the clue list in "
        "fixtures/lmact/crossword_clues.json): about 3,400 common lemmas of 3–7 letters, "
        "each clued by a WordNet definition that does not contain the answer, instead of "
        "the paper's 55,189 'easiest' clues collected by Matthew Ginsberg, which are not "
        "freely available. The observation ('ascii', the only format) is the grid, with '#' "
        "for black cells, '_' for empty ones, the placed letters and the clue numbers, "
        "followed by the Across and Down clue lists with each answer's length. An action "
        "is a direction letter, a clue number, a colon and a word, e.g. 'A1: house' or "
        "'D4: tree' (case and spaces around the parts do not matter). Rewards follow the "
        "paper: +1 for a correct word not yet placed (it is written into the grid); 0 for a "
        "correct word already placed or a wrong word of the right length (the grid does not "
        "change); anything else (not of that form, a clue number the puzzle does not have, "
        "or a word of the wrong length) ends the episode with -1 and is counted as illegal — "
        "unlike the other LMAct tasks it is not replaced by a random action (LMAct "
        "App. C.3). The episode ends when every word is placed, or after 25 steps. The legal "
        "actions are every word of the right length for a slot not yet filled: too many to "
        "list, so a prompt that shows legal actions shows their form instead ('A<n>: <word>' "
        "or 'D<n>: <word>' with a word of that clue's length; the paper never lists them). "
        "The random baseline draws from a seeded sample of 5 dictionary words of the right "
        "length per open slot, chosen without looking at the answer. The expert writes the "
        "answers one by one in a random order."
    )

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._puzzle: Puzzle | None = None
        self._filled: set[str] = set()

    # -- protocol ----------------------------------------------------------------
    def _reset(self, seed: int) -> Observation:
        self.seed = seed
        self._puzzle = generate(seed)
        self._filled = set()
        self._expert_order = [entry.label for entry in self._puzzle.entries]
        random.Random(f"{self.id}/expert:{seed}").shuffle(self._expert_order)
        return self._observe()

    def _step(self, action_text: str) -> StepResult:
        action = action_text.strip()
        reward, legal, problem = 0.0, True, None
        match = ACTION_RE.fullmatch(action_text)
        if match is None:
            problem = "invalid action (not of the form 'A<number>: word' or 'D<number>: word')"
        else:
            label = match.group(1).upper() + str(int(match.group(2)))
            word = match.group(3).upper()
            action = f"{label}: {word}"
            entry = self._puzzle.entry(label)
            if entry is None:
                problem = f"invalid action (the puzzle has no clue {label})"
            elif len(word) != len(entry.answer):
                problem = f"invalid action ({label} has {len(entry.answer)} letters, not {len(word)})"
            elif word == entry.answer and label not in self._filled:
                self._filled.add(label)
                reward = 1.0
        if problem is not None:
            reward, legal = -1.0, False

        solved = len(self._filled) == len(self._puzzle.entries)
        terminated = problem is not None or solved
        return StepResult(
            observation=self._observe(),
            reward=reward,
            terminated=terminated,
            truncated=False,
            legal=legal,
            executed_action=action,
            end_reason=problem or ("solved" if solved else None),
        )

    def legal_actions(self) -> list[str]:
        """Empty: every word of the right length for an open slot is legal, too many to
        list (see `action_format`). A list of a few words per slot would almost never
        hold the answer and would steer a model that must pick from it away from it."""
        if self._puzzle is None:
            raise RuntimeError("call reset(seed) first")
        return []

    def random_action(self, rng: random.Random) -> str:
        """The random baseline's action: uniform over a seeded sample of
        `LEGAL_CHOICES_PER_SLOT` dictionary words of the right length per open slot,
        chosen without looking at the answers (the same draws, so the same figures, as
        when that sample was listed as the legal actions)."""
        return rng.choice(self.sampled_actions())

    def sampled_actions(self) -> list[str]:
        """The random baseline's candidates, in a stable order (see `random_action`)."""
        if self._puzzle is None:
            raise RuntimeError("call reset(seed) first")
        if self.done:
            return []
        words = words_by_length()
        actions = []
        for entry in self._puzzle.entries:
            if entry.label in self._filled:
                continue
            pool = words[len(entry.answer)]
            rng = random.Random(f"{self.id}/choices:{self.seed}:{entry.label}")
            for word in sorted(rng.sample(pool, min(LEGAL_CHOICES_PER_SLOT, len(pool)))):
                actions.append(f"{entry.label}: {word}")
        return actions

    def initial_state_key(self) -> str:
        if self._puzzle is None:
            raise RuntimeError("call reset(seed) first")
        return hashlib.sha256("\n".join(self._puzzle.solution).encode()).hexdigest()[:16]

    def expert_action(self) -> str:
        if self._puzzle is None:
            raise RuntimeError("call reset(seed) first")
        for label in self._expert_order:
            if label not in self._filled:
                return f"{label}: {self._puzzle.entry(label).answer}"
        raise ValueError("the crossword is already solved")

    def episode_metrics(self) -> dict:
        if self._puzzle is None:
            return {}
        return {"words": len(self._puzzle.entries), "words_placed": len(self._filled)}

    def progress(self, total_reward: float) -> float:
        """Share of the puzzle's words placed (the score range depends on the puzzle)."""
        if self._puzzle is None:
            return super().progress(total_reward)
        return max(0.0, min(100.0, 100.0 * total_reward / len(self._puzzle.entries)))

    # -- helpers -----------------------------------------------------------------
    @property
    def puzzle(self) -> Puzzle:
        return self._puzzle

    @property
    def filled(self) -> frozenset[str]:
        return frozenset(self._filled)

    def _observe(self) -> Observation:
        return Observation(text=puzzle_text(self._puzzle, self._filled))
