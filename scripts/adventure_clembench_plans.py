"""Shortest solutions of clembench's AdventureGame instances under clembench's rules, for
the oracle baseline (envs/adventure/data/clembench/oracle_plans.json).

For each instance: after the pre-exploration (pre-exploration experiments), the
instance's own `optimal_commands` if they reach every goal in the arena's engine, else
a breadth-first search over the goal-relevant commands ("unsolvable" with no commands
when the search exhausts every reachable state); in the hard pre-exploration experiment,
the walk back to the start followed by the instance's solution.

    .venv/bin/python scripts/adventure_clembench_plans.py [EXPERIMENT ...]   # only these, kept in the file The oracle plays the stored plan
and replans with the same search if an episode leaves it.

    .venv/bin/python scripts/adventure_clembench_plans.py
"""

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.adventure.clem import data, play  # noqa: E402
from envs.adventure.clem.game import ClemGame  # noqa: E402

OUT = data.DATA_DIR / "oracle_plans.json"


def wins(experiment: str, index: int, pre: list[str], commands: list[str]) -> bool:
    trial = ClemGame(experiment, index)
    trial.preexplore(pre)
    return all(trial.execute(c).success for c in commands) and trial.world.goals_met() == trial.world.goals


def solution(experiment: str, index: int) -> tuple[list[str], str]:
    instance = data.instance(experiment, index)
    pre = instance["visiting_commands"] if experiment.startswith("preexplore") else []
    own = list(instance["optimal_commands"])
    if wins(experiment, index, pre, own):
        return own, "instance"
    game = ClemGame(experiment, index)
    game.preexplore(pre)
    if pre and experiment.endswith("hard"):
        # the walk only moved the player: walking back restores the start, from which the
        # instance's own solution applies (a sure win; a search from the walk's end over
        # the hard worlds outgrows the state limit)
        start = ClemGame(experiment, index).world.player_room()
        back = play.walk(game.world, start)
        if wins(experiment, index, pre, back + own):
            return back + own, "walk back, then the instance's"
    found = play.plan(game.world)
    if found is None:
        # no command sequence reaches every goal (e.g. basic-hard 10: the book lies on a
        # table that stands in another room, so clembench's rules let nobody take it)
        return [], "unsolvable"
    return found, "search"


def main() -> int:
    only = sys.argv[1:]
    plans = json.loads(OUT.read_text(encoding="utf-8"))["plans"] if only and OUT.exists() else {}
    for experiment in only or data.experiments():
        started = time.time()
        plans[experiment] = []
        for index in range(len(data.instances(experiment))):
            commands, origin = solution(experiment, index)
            plans[experiment].append({"commands": commands, "from": origin})
        print(f"{experiment}: {time.time() - started:.1f} s", flush=True)
    OUT.write_text(json.dumps({"plans": plans}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
