"""How TextAtari's pages group its games (TextAtari §2.1, App. C Tables 6–7).

§2.1 sorts the 23 games into four categories: action games, puzzle and strategy games,
sports games and arcade classics. Tables 6–7 place every one of them; the categories
below are theirs (H.E.R.O. and Pitfall! are action games in Table 6).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Category:
    name: str
    title: str
    games: tuple[str, ...]  # the suite's game names, the part of a task id after "textatari/"


CATEGORIES = (
    Category("action", "Action", ("asteroids", "battlezone", "berzerk", "demonattack", "hero", "pitfall")),
    Category("puzzle", "Puzzle and strategy", ("breakout", "frostbite", "montezumarevenge", "privateeye", "qbert")),
    Category("sports", "Sports", ("bowling", "boxing", "pong", "skiing", "tennis")),
    Category(
        "arcade", "Arcade classics",
        ("freeway", "mspacman", "riverraid", "seaquest", "spaceinvaders", "venture", "videopinball"),
    ),
)


def category_of(game: str) -> Category | None:
    return next((category for category in CATEGORIES if game in category.games), None)


# The scenarios as the paper names them (§2.2; App. E's figures call the reference
# scenario "RL Trajectory").
SCENARIO_TITLES = {
    "basic": "Basic",
    "obscured": "Obscured",
    "manual": "Game manual",
    "reference": "Reference (expert trajectory)",
}

# What the paper did that the arena does differently, for the suite page.
DEVIATIONS = (
    "The reference scenario's trajectory and the expert baseline come from a lookahead planner on the "
    "emulator's cloned state, not from a PPO agent trained to human level on each game (§2.2): training 23 "
    "such agents is out of reach here. Its score per game is in the anchor table; it is far below human on "
    "most games.",
    "An action holds for 12 frames (the ≈ 5 Hz of §2.2) with sticky actions (probability 0.25, gymnasium's "
    "v5 convention); the paper names neither frame skip nor stickiness, and the authors' earlier code held "
    "actions for 6 frames without stickiness.",
    "The normalised score is the arena's own: the paper defines no formula and no anchors. 0 % is the arena's "
    "random policy measured under the arena's own protocol (12 frames per action, sticky actions) at the step "
    "limit; 100 % is the DQN literature's human tester, who played whole games under another protocol, so 100 % "
    "is not a human playing this one. Where a limit was not measured the anchor table says what stands in; a "
    "game whose anchor gap is within random play's spread is marked †.",
    "The paper's models (Qwen2.5-7B, Gemma-7B, Llama3.1-8B) are whatever the submitters bring; the CoT agent's "
    "fixed exemplar dialogues are not published, so the arena's CoT request stands in for them.",
    "Reflexion_last keeps the three most recent reflections (§3.2: up to three); Reflexion_max keeps the "
    "reflection of the best episode so far.",
    "When a prompt outgrows the model's context window the oldest turns are dropped, as the paper's sliding "
    "window drops the oldest messages (§3.1).",
)
