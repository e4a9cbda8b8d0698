"""Prompt templates (AdventureGame App. D), in this project's own words.

The initial prompt has the paper's layout: how the game is played and the reply
format, one example reply, then — depending on the experiment — the inventory limit
or the new words, then the goal and how to end the game. The description of the
starting room follows it (it is the first observation, see `tasks.py`).

Placeholders: $GOAL$ (the goal sentence), $NEW_WORDS$ (the synthetic-word line).
"""

from __future__ import annotations

from envs.adventure.feedback import join_words

INTRO = (
    "We are playing a text adventure. I describe what your character perceives in the game "
    "world, and you answer with the one action your character should take next, written on "
    "a line that begins with >. Answer with that action and nothing else."
)
EXAMPLE_BASIC = "Here is what an answer looks like:\n\n> open cupboard"
# Synthetic-word worlds may have renamed "open" and "cupboard"; their example uses
# words every world keeps.
EXAMPLE_SYNTHETIC = "Here is what an answer looks like:\n\n> examine floor"
LIMIT = "You can carry no more than two objects in your inventory at any one time."
GOAL = "What you have to achieve in this game: $GOAL$"
ENDING = "As soon as you have achieved it, answer\n> done\nto finish the game."

TEMPLATES = {
    "basic": "\n\n".join([INTRO, EXAMPLE_BASIC, GOAL, ENDING]),
    "limit": "\n\n".join([INTRO, EXAMPLE_BASIC, LIMIT, GOAL, ENDING]),
    "synthetic": "\n\n".join([INTRO, EXAMPLE_SYNTHETIC, "$NEW_WORDS$", GOAL, ENDING]),
}
# Pre-exploration instances use the basic prompt; the walk is added as earlier turns.
TEMPLATE_OF_EXPERIMENT = {
    "basic-easy": "basic",
    "basic-hard": "basic",
    "preexplore-easy": "basic",
    "preexplore-hard": "basic",
    "limit-easy": "limit",
    "limit-hard": "limit",
    "synthetic-easy": "synthetic",
    "synthetic-medium": "synthetic",
    "synthetic-hard": "synthetic",
}

# What each replaceable verb means, for the easy synthetic-word level ({w} is the new word).
VERB_MEANINGS = {
    "take": "To {w} something is to pick it up so that you carry it with you.",
    "put": "To {w} something is to set down a thing you carry in or on something else.",
    "open": "To {w} something is to make a closed thing open, so that its inside can be reached.",
    "close": "To {w} something is to shut a thing that is open.",
}


def new_words_text(words: list[str], explain_action: str | None = None) -> str:
    """The line introducing new verbs: with one verb's meaning (easy) or a bare list."""
    if explain_action is not None:
        word = words[0]
        return f"Besides the usual actions, you can also {word}. " + VERB_MEANINGS[explain_action].format(w=word)
    return f"Besides the usual actions, you can also {join_words(words)}."


def instructions(experiment: str, goal: str, new_words: str = "") -> str:
    template = TEMPLATES[TEMPLATE_OF_EXPERIMENT[experiment]]
    return template.replace("$GOAL$", goal).replace("$NEW_WORDS$", new_words)


def template_text(experiment: str) -> str:
    """The template with its placeholders, as shown on the task page."""
    return TEMPLATES[TEMPLATE_OF_EXPERIMENT[experiment]]


def delivery_goal(parts: list[tuple[str, str, str]]) -> str:
    """[(object words, preposition, target words)] → "Put the X on the Y, the Z in the W and …"."""
    phrases = [f"the {obj} {prep} the {target}" for obj, prep, target in parts]
    return f"Put {join_words(phrases)}."


def state_goal(parts: list[tuple[str, str]]) -> str:
    """[(object words, adjective)] → "Make the X adj, the Y adj and the Z adj"."""
    phrases = [f"the {obj} {adjective}" for obj, adjective in parts]
    return f"Make {join_words(phrases)}."
