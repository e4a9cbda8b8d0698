"""What BALROG tells an agent about each TextWorld game: its instruction prompt per task
(BALROG App. C.5), with the same information and the same four parts — the kind of game
and its goal, the commands the game understands (run together in one paragraph), the
family's hints (likewise) and the step budget — worded for the arena. TextWorld takes
free text, so the commands are patterns rather than the only replies, and BALROG's
prompt lists no actions of its own.

The step budgets are what BALROG's prompts announce (40 for treasure hunter, 80 for the
cooking game, 25 for coin collector), although BALROG's episodes run 80 steps in every
family (`STEP_LIMIT`, its config's `max_episode_steps`): the prompt keeps BALROG's
information, the task description says how long an episode really lasts.
"""

from __future__ import annotations

from envs.balrog.specs import TEXTWORLD_STEP_LIMIT as STEP_LIMIT  # noqa: E402  (BALROG's textworld configuration)
ANNOUNCED_STEPS = {"treasure_hunter": 40, "the_cooking_game": 80, "coin_collector": 25}

# The commands of each family's prompt, with what BALROG says each does.
_LOOK = {"look": "describe the current room."}
_GOAL = {"goal": "print the goal of this game"}
_INVENTORY = {"inventory": "print the player's inventory"}
_GO = {
    "go <dir>": (
        "move the player north, east, south or west. You can only move in a direction shown by an exit or a door."
    )
}

TREASURE_HUNTER_COMMANDS: dict[str, str] = {
    **_LOOK,
    **_GOAL,
    **_INVENTORY,
    **_GO,
    "open ...": "open a door or a container. A closed door has to be opened before you go through it.",
    "drop ...": "drop an object on the floor",
    "take ...": "take an object that is visible. Make sure the object is visible before you take it.",
    "put ... on ...": "place an object on a supporter",
    "take ... from ...": "take an object from a container or a supporter",
    "insert ... into ...": "place an object into a container",
    "unlock ... with ...": (
        "unlock a door or a container with a key. A locked door has to be unlocked with a matching key from "
        "your inventory before you can open it."
    ),
}

COOKING_COMMANDS: dict[str, str] = {
    "look": "describe the current room",
    **_GOAL,
    **_INVENTORY,
    **_GO,
    "examine ...": "examine something more closely",
    "eat ...": "eat edible food",
    "open ...": "open a door or a container. A closed door has to be opened before you can go through it.",
    "drop ...": "drop an object onto the floor",
    "take ...": "take an object that is visible",
    "put ... on ...": "place an object on a supporter",
    "take ... from ...": "take an object from a container or a supporter",
    "insert ... into ...": "place an object into a container",
    "lock ... with ...": "lock a door or a container with a key",
    "unlock ... with ...": "unlock a door or a container with a key",
    "cook ... with ...": "cook cookable food with something that gives heat",
    "slice ... with ...": "slice cuttable food with something sharp",
    "chop ... with ...": "chop cuttable food with something sharp",
    "dice ... with ...": "dice cuttable food with something sharp",
    "prepare meal": "combine ingredients from your inventory into a meal. Meals can only be prepared in the Kitchen.",
}

COIN_COLLECTOR_COMMANDS: dict[str, str] = {
    **_GOAL,
    "go <dir>": (
        "move the player north, east, south or west. You can only move in a direction shown by something like "
        "an exit or a door."
    ),
    "take coin": "win the game with 'take coin' when you see the coin in the room",
}

TREASURE_HUNTER_RULES = (
    "You are an agent playing TextWorld, a text adventure game in which you are in a randomly generated maze "
    "and must find a particular object. You have to explore the rooms to find the target object."
)
TREASURE_HUNTER_HINTS = (
    "- The target object may be inside a closed or locked container. "
    "- The adjective tells whether a key matches a lock (for example, the non-euclidean keycard matches the "
    "non-euclidean safe). Make sure it matches before you unlock! "
    "- The key that unlocks a door may be in another room or locked inside a container. "
    "- Take the key whenever you can. "
    "- A door or container you unlock stays closed: you then have to open it."
)

COOKING_RULES = (
    "You are an agent playing TextWorld, a text adventure game in which you move through rooms, interact "
    "with objects and solve puzzles. Your goal is to find the recipe first, then find and prepare the food as "
    "the recipe says, and finally prepare the meal and eat it."
)
COOKING_HINTS = (
    "- When the cookbook is visible, you can examine it to read the recipe. "
    "- The BBQ grills, the stove fries and the oven roasts. Cooking an ingredient the wrong way loses the game. "
    "- Once you have the processed ingredients and the right cooking tool, cook them all as the recipe says. "
    "- To cook something correctly (grill/fry/roast) two conditions must hold: a) the ingredient is in your "
    "inventory and b) a suitable cooking tool is in the room; then use the 'cook ... with ...' command. "
    "- To chop/slice/dice an ingredient, have the knife and the ingredient in your inventory, then use "
    "'slice/chop/dice ... with knife'. "
    "- Process the food (chop/slice/dice) before you try to cook it. "
    "- Once you have every ingredient (processed or cooked as the menu says), you can 'prepare meal' in the "
    "kitchen and then 'eat meal' to win the game. "
    "- The ingredients must match the colour in the recipe EXACTLY, but if the recipe names no colour, any "
    "colour will do. When you 'take ... with ...', use the EXACT name you see. "
    "- A container or supporter (e.g. a toolbox) does not need examining when it says something like "
    "\"there isn't a thing on it\" or \"has nothing on it\"."
)

COIN_COLLECTOR_RULES = (
    "You are an agent playing TextWorld, a text adventure game in which you are in a randomly generated maze "
    "and must find the coin. You have to explore the rooms to find the target object."
)
COIN_COLLECTOR_HINTS = (
    "The only things you can do are 'go <dir>' to explore the maze and 'take coin' once you see the coin in "
    "the room."
)


def commands_paragraph(commands: dict[str, str]) -> str:
    """The commands run together in one paragraph, as BALROG's prompt gives them."""
    return "The available commands are: " + " ".join(f"{command}: {what}" for command, what in commands.items())


def budget_line(balrog_name: str) -> str:
    return f"You have {ANNOUNCED_STEPS[balrog_name]} steps to complete the task. Restarting is not allowed."
