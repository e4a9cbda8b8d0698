"""The instance generator (AdventureGame §4.1): 9 experiments × 16 instances.

Every random choice comes from a `random.Random` seeded with a fixed string, so the
fixture can be rebuilt byte for byte (`python -m envs.adventure.generate --check`).

Home worlds (basic, inventory limit, pre-exploration, synthetic easy and medium):
all six rooms, joined by a random spanning tree of the allowed passages plus some
extra passages; every piece of furniture in one of its allowed rooms; every movable
object in one of its allowed rooms, on a piece of furniture, in a container or on the
floor; containers closed; the player in a random room.

- easy: one target (a piece of furniture that things stand on) and three objects
  that are in plain sight (not in a container) in the target's room or a room next
  to it, all three to be put on that target;
- hard: three objects, each moved into a closed container of its room, each to be
  put on a different target in another room; together the three deliveries must
  span at least `HARD_MIN_TOTAL_DISTANCE` passages (and one at least two).

The inventory-limit and pre-exploration experiments reuse the basic worlds of the
same index and level (the same objects and rooms, App. C / §4.1.2–4.1.3), with a
limit of two objects, or with a walk of 6–8 `go` commands played before the game.
Synthetic-word easy and medium instances draw their own home worlds (easy and hard
layouts) and rename nouns and verbs; the synthetic-word hard level is a separate
world of four rooms in a line with objects whose states change by new verbs.

The worlds are drawn in envs.adventure.home_worlds and envs.adventure.synthetic_worlds;
this module assembles the experiments' instances from them.
"""

from __future__ import annotations

import random

from envs.adventure import prompts
from envs.adventure.engine import Game
from envs.adventure.facts import World
from envs.adventure.home_worlds import home_instance_world, preexploration_walk
from envs.adventure.planner import plan
from envs.adventure.synthetic_worlds import synthetic_easy_world, synthetic_hard_world, synthetic_medium_world

SEED_ROOT = "adventure-v1"
INSTANCES_PER_EXPERIMENT = 16
EXPERIMENTS = (
    "basic-easy",
    "basic-hard",
    "limit-easy",
    "limit-hard",
    "preexplore-easy",
    "preexplore-hard",
    "synthetic-easy",
    "synthetic-medium",
    "synthetic-hard",
)
INVENTORY_LIMIT = 2


def seed_for(*parts: object) -> str:
    return "/".join([SEED_ROOT, *map(str, parts)])


# -- goal sentences --------------------------------------------------------------------
def goal_text(world: World) -> str:
    if all(goal[0] == "state" for goal in world.goals):
        return prompts.state_goal([(world.name(g[1]), world.adjectives[g[2]]) for g in world.goals])
    return prompts.delivery_goal([(world.name(g[1]), g[0], world.name(g[2])) for g in world.goals])


# -- instances -------------------------------------------------------------------------
def _instance(
    experiment: str, index: int, seed: str, world: World, preexploration: list[str], new_words: dict | None
) -> dict:
    game = Game(world)
    game.preexplore(preexploration)
    solution = plan(world, game.state)
    words_text = ""
    if new_words is not None:
        words_text = prompts.new_words_text(new_words["verbs"], new_words["explain"])
    return {
        "id": f"{experiment}/{index}",
        "experiment": experiment,
        "index": index,
        "seed": seed,
        "goal": goal_text(world),
        "new_words": words_text,
        "renamed": new_words["renamed"] if new_words else {},
        "preexploration": preexploration,
        "optimal_turns": len(solution),
        "optimal_commands": solution,
        "world": world.to_json(home=family_is_home(experiment)),
    }


def family_is_home(experiment: str) -> bool:
    return experiment != "synthetic-hard"


def with_limit(world: World, limit: int) -> World:
    data = world.to_json()
    data["inventory_limit"] = limit
    return World.from_json(data)


def generate_experiment(experiment: str) -> list[dict]:
    family, level = experiment.split("-")
    instances = []
    for index in range(INSTANCES_PER_EXPERIMENT):
        if family in ("basic", "limit", "preexplore"):
            seed = seed_for("home", level, index)  # shared by the three families
            world = home_instance_world(level, seed)
            walk: list[str] = []
            if family == "limit":
                world = with_limit(world, INVENTORY_LIMIT)
            elif family == "preexplore":
                walk = preexploration_walk(random.Random(seed_for(experiment, index)), world)
            instances.append(_instance(experiment, index, seed, world, walk, None))
        else:
            seed = seed_for(experiment, index)
            builders = {"easy": synthetic_easy_world, "medium": synthetic_medium_world, "hard": synthetic_hard_world}
            world, new_words = builders[level](seed)
            instances.append(_instance(experiment, index, seed, world, [], new_words))
    return instances


def generate_all() -> dict:
    return {
        "about": (
            "AdventureGame instances (AdventureGame §4.1), generated by "
            "`python -m envs.adventure.generate` from fixed seeds; do not edit by hand."
        ),
        "version": 1,
        "turn_limit": 50,
        "experiments": {experiment: generate_experiment(experiment) for experiment in EXPERIMENTS},
    }
