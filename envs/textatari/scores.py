"""The arena's normalised TextAtari score: the arena's own metric, not the paper's.

TextAtari speaks of performance relative to human play (§3.3: "below 10 % of human
capability") but defines no formula and no anchors, and prints no per-game figure (its
Figs. 6–39 are relative bars). The arena ranks by

    (score − random) / (human − random)

where
- random is the mean game score of the arena's own random policy under the arena's own
  protocol (12 frames per step, sticky actions, v5-style driving) at the episode's step
  limit, measured over at least 100 episodes on seeds kept apart from the ones runs play
  (data/random_anchor.json, made by bench/textatari_random_anchor.py). The DQN
  literature's random figures come from another protocol (an action every few frames,
  no sticky actions, whole games) and a random episode here does not score them (with
  them the arena's own random baseline read −47.5 % on Boxing);
- human is the human tester's figure of the DQN literature (data/atari_random_human_scores.json),
  for whole games under that literature's protocol: the only human figure there is.

Where a step limit was not measured, the anchor of the largest measured limit below it
stands in when none of its random episodes was cut by that limit (a longer limit then
plays exactly the same episodes: the policy and the console depend only on the seed);
otherwise the DQN random figure stands in, and `Anchors.source` says so.

A game is flagged when its anchor gap human − random is within two standard deviations
of random play's episode scores (where most random episodes fall), or negative: there, the normalised score mostly
measures the luck of the episodes (Video Pinball is the known case), or runs backwards
(a whole-game human figure below random play cut short, as Skiing's and Tennis's at
100 steps).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
SCORES_PATH = DATA / "atari_random_human_scores.json"
ANCHOR_PATH = DATA / "random_anchor.json"

# How many of random play's standard deviations make its spread, for the flag.
SPREAD_IN_SD = 2.0

MEASURED = "measured"  # random anchor measured at this step limit
CARRIED = "carried"  # measured at a smaller limit that cut none of its episodes
LITERATURE = "literature"  # not measured: the DQN literature's random figure


@functools.cache
def reference_scores() -> dict[str, dict[str, float]]:
    """Game name → {"random": the DQN literature's random mean, "human": its human tester's}."""
    return json.loads(SCORES_PATH.read_text(encoding="utf-8"))


@functools.cache
def measured_anchors() -> dict[str, dict[str, dict]]:
    """Game name → step limit (as a string) → the random policy's figures there."""
    if not ANCHOR_PATH.exists():
        return {}
    return json.loads(ANCHOR_PATH.read_text(encoding="utf-8"))["games"]


@dataclasses.dataclass(frozen=True)
class Anchors:
    """The two ends of a game's normalised score at one step limit."""

    game: str
    max_steps: int
    random: float
    human: float
    source: str  # MEASURED, CARRIED or LITERATURE
    measured_at: int | None  # the step limit the random figure was measured at
    random_sd: float | None  # standard deviation of random play's episode scores (None: unknown)
    random_se: float | None
    episodes: int  # random episodes behind the figure (0 for the literature's)

    @property
    def gap(self) -> float:
        return self.human - self.random

    @property
    def within_random_spread(self) -> bool:
        """The anchor gap human − random is no larger than two standard deviations of
        random play's episode scores — or negative (the whole-game human figure below random play cut at
        this limit, as in Skiing and Tennis at 100 steps): the normalised score of
        this game mostly measures luck, or runs backwards."""
        return self.random_sd is not None and self.gap <= SPREAD_IN_SD * self.random_sd

    @property
    def source_text(self) -> str:
        if self.source == MEASURED:
            return f"random measured here over {self.episodes} episodes at {self.max_steps:,} steps"
        if self.source == CARRIED:
            return (
                f"random measured here over {self.episodes} episodes at {self.measured_at:,} steps, none of them "
                f"cut by that limit, so {self.max_steps:,} steps plays the same episodes"
            )
        return f"random not measured at {self.max_steps:,} steps: the DQN literature's figure stands in"


def anchors(game: str, max_steps: int) -> Anchors:
    literature = reference_scores()[game]
    human = float(literature["human"])
    measured = {int(limit): figures for limit, figures in measured_anchors().get(game, {}).items()}
    limit, source = None, LITERATURE
    if max_steps in measured:
        limit, source = max_steps, MEASURED
    else:
        below = [known for known in measured if known < max_steps]
        if below and measured[max(below)]["cut_by_limit"] == 0:
            limit, source = max(below), CARRIED
    if limit is None:
        return Anchors(game, max_steps, float(literature["random"]), human, LITERATURE, None, None, None, 0)
    figures = measured[limit]
    return Anchors(
        game, max_steps, float(figures["mean"]), human, source, limit, float(figures["sd"]), float(figures["se"]),
        int(figures["episodes"]),
    )


def random_and_human(game: str, max_steps: int) -> tuple[float, float]:
    figures = anchors(game, max_steps)
    return figures.random, figures.human


def normalised_score(game: str, score: float, max_steps: int) -> float:
    """0 at the arena's random mean at this step limit, 1 at the literature's human tester."""
    figures = anchors(game, max_steps)
    return (score - figures.random) / figures.gap
