"""The worker's CPU at each episode's claim and finish, outside its steps.

`orm_each_call()` switches off arena.services.prepared for the block: every prepared
statement (the claim's three, the run's aggregates at finish, finish_run_if_complete's
two, step_totals) is built by the ORM at every call again, as before the fix. The
benches play the same games with and without it, in the same run.

    .venv/bin/python bench/episode_ends.py [--episodes 30] [--task balrog/babyai-goto]
"""

import argparse
import collections
import contextlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@contextlib.contextmanager
def orm_each_call():
    """Within the block, each prepared statement runs through the ORM as it is written,
    its result given back in the form `Prepared.execute` gives it."""
    from arena.services.prepared import Prepared

    prepared = Prepared.execute
    Prepared.execute = Prepared.execute_through_orm
    try:
        yield
    finally:
        Prepared.execute = prepared


def claim_finish_costs(episodes: int = 200) -> tuple[float, float]:
    """CPU milliseconds per episode of episode_claim then episode_finish on episodes with
    no steps (the statements alone), through the ORM at each call and prepared."""
    from arena.services.episodes import episode_claim, episode_finish
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission

    costs = []
    for switched_off in (True, False):
        run = run_create(baseline_submission("random", "Random legal actions"),
                         RunSpec(task="balrog/babyai-goto", format="text", num_episodes=episodes + 1))
        ids = list(run.episodes.order_by("index").values_list("pk", flat=True))
        context = orm_each_call() if switched_off else contextlib.nullcontext()
        with context:
            episode_claim(ids[0], "bench")  # compiled once per connection: not what an episode pays
            episode_finish(ids[0], "bench", score=0.0, end_reason="bench")
            started = time.process_time()
            for episode_id in ids[1:]:
                episode_claim(episode_id, "bench")
                episode_finish(episode_id, "bench", score=1.0, end_reason="bench")
            costs.append(1000 * (time.process_time() - started) / episodes)
    return costs[0], costs[1]


def runner_episode_ends(task_id: str, episodes: int, options: dict, in_flight: int, full_runner,
                        first_seed: int = 0) -> dict:
    """A Worker's CPU with the ORM at each call and prepared, by bench/runner_split.py:
    per episode, its claim and load and its finish (on the database thread); per step,
    the database thread and the process. Each way plays the same two sets of seeds, in
    the order ORM, prepared, prepared, ORM (the machine's load drifts)."""
    from bench.runner_split import cpu_split

    sums = {way: collections.Counter() for way in ("ORM each call", "prepared")}
    for n, way in enumerate(("ORM each call", "prepared", "prepared", "ORM each call")):
        context = orm_each_call() if way.startswith("ORM") else contextlib.nullcontext()
        with context:
            played, split = cpu_split(task_id, episodes, options, in_flight, full_runner,
                                      first_seed=first_seed + (n // 2) * episodes)
        for label, ms_per_step in split.items():
            sums[way][label] += ms_per_step * played  # back to milliseconds
        sums[way]["steps"] += played
        sums[way]["episodes"] += episodes
    figures = {}
    for way, total in sums.items():
        figures[way] = {
            "claim and load, ms/episode": total["claim and load (per episode)"] / total["episodes"],
            "finish, ms/episode": total["finish and aggregates (per episode)"] / total["episodes"],
            "database thread, ms/step": total["database thread"] / total["steps"],
            "process, ms/step": total["process"] / total["steps"],
        }
    return figures


def print_runner_episode_ends(figures: dict, indent: str = "") -> None:
    for way, values in figures.items():
        print(f"{indent}{way:14s}: " + ", ".join(f"{label} {value:6.3f}" for label, value in values.items()))
    orm, prepared = figures["ORM each call"], figures["prepared"]
    print(f"{indent}ratios (ORM each call / prepared): " + ", ".join(
        f"{label} {orm[label] / prepared[label]:.2f}" for label in orm))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--task", default="balrog/babyai-goto")
    parser.add_argument("--in-flight", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        from bench.balrog_loops import full_runner, task_options
        from bench.runner_overhead import setup_django

        setup_django(tmp)
        options = task_options(args.task, 500)
        full_runner(args.task, 1, options, args.in_flight)  # start-up, not counted
        orm, prepared = claim_finish_costs()
        print(f"claim + finish, no steps: {orm:6.3f} ms CPU per episode built by the ORM at each call, "
              f"{prepared:6.3f} prepared: ratio {orm / prepared:.2f}")
        print(f"{args.task}, {args.episodes} episodes a way, {args.in_flight} in flight, random agent:")
        print_runner_episode_ends(runner_episode_ends(args.task, args.episodes, options, args.in_flight, full_runner),
                                  indent="  ")

if __name__ == "__main__":
    main()
