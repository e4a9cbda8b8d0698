"""BALROG throughput: the arena's runner against the raw environment loop, same run.

For each task, the same seeds are played twice by the random baseline (an agent with no
latency): once by calling the task directly (the raw wrapper loop), once by a real
Worker (queue, claim, runner, step rows committed to SQLite, live publish, aggregates).
Printed: steps/s and CPU milliseconds per step of both, and their ratio; then the runner
again on the next seeds (bench/README.md), and the rows of the fixes.

    .venv/bin/python bench/balrog_throughput.py [--episodes 20] [--crafter-steps 500] [--split]
"""

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.babyai_step import babyai_before, babyai_step_costs  # noqa: E402
from bench.balrog_fix_costs import (  # noqa: E402
    babyai_draw_costs, image_row_costs, picture_costs, policy_hop_costs, single_drawing_costs, step_write_costs,
)
from bench.episode_ends import claim_finish_costs, print_runner_episode_ends, runner_episode_ends  # noqa: E402
from bench.balrog_loops import builds_starts, full_runner, raw_loop, task_options  # noqa: E402
from bench.runner_overhead import setup_django  # noqa: E402

TASKS = ("balrog/babyai-goto", "balrog/babyai-pick-up-seq-go-to", "balrog/crafter", "balrog/textworld-cooking")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--crafter-steps", type=int, default=500, help="Crafter's step limit setting for the bench")
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--task", action="append", help="only these tasks (repeatable)")
    parser.add_argument("--split", action="store_true",
                        help="play the runner's games once more, timing each thread and part (bench/runner_split.py)")
    parser.add_argument("--switch-interval", type=float,
                        help="sys.setswitchinterval for the whole bench (Python's default is 0.005 s): how long the "
                             "database thread may wait for the GIL the event loop holds, at each SQLite call")
    args = parser.parse_args()
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    tasks = args.task or TASKS
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        setup_django(tmp)
        # Every raw loop before the first Worker: a worker sets the process's allocator
        # thresholds (arena.runtime.memory), and the raw loop is measured as BALROG's
        # evaluator runs, with glibc's own.
        raws = {task_id: raw_loop(task_id, args.episodes, task_options(task_id, args.crafter_steps)) for task_id in tasks}
        raws_again = {task_id: raw_loop(task_id, args.episodes, task_options(task_id, args.crafter_steps),
                                        first_seed=args.episodes) for task_id in tasks}
        for task_id in tasks:
            options = task_options(task_id, args.crafter_steps)
            raw = raws[task_id]
            run = _print_runner_against_raw(task_id, args, options, raw, raws_again[task_id])
            _print_write_rows(task_id, args, options, run)
            _print_engine_rows(task_id, args, options, raw, run)
    orm, prepared = image_row_costs()
    print(f"picture rows of a step batch (8 a batch): {orm:6.3f} ms CPU per row through the ORM (bulk_create each), "
          f"{prepared:6.3f} ms through the step writer's prepared statement: ratio {orm / prepared:.2f}")
    print("target: the runner keeps up with the environment (ratio near 1 for slow environments)")


def _print_runner_against_raw(task_id: str, args, options: dict, raw: tuple, raw_again: tuple) -> tuple:
    """The runner's rows beside the raw loop's on the same seeds, then on the next seeds;
    the runner's steps, wall, CPU and system seconds."""
    raw_steps, raw_wall, raw_cpu, raw_sys = raw
    # One episode first, not counted: what a worker pays once (every suite
    # imported when it starts, the first connections), not at every step.
    full_runner(task_id, 1, options, args.in_flight)
    run_steps, run_wall, run_cpu, run_sys = full_runner(task_id, args.episodes, options, args.in_flight)
    raw_rate, run_rate = raw_steps / raw_wall, run_steps / run_wall
    label = f"{task_id} {options or ''}".strip()
    print(f"{label}: {args.episodes} episodes, random agent (zero model latency)")
    print(
        f"  raw env loop : {raw_steps:7d} steps in {raw_wall:7.2f} s = {raw_rate:8.0f} steps/s, "
        f"CPU {1000 * raw_cpu / raw_steps:6.3f} ms/step (system {1000 * raw_sys / raw_steps:.3f})"
    )
    print(
        f"  arena runner : {run_steps:7d} steps in {run_wall:7.2f} s = {run_rate:8.0f} steps/s, "
        f"CPU {1000 * run_cpu / run_steps:6.3f} ms/step (system {1000 * run_sys / run_steps:.3f})  "
        f"(ratio to raw {run_rate / raw_rate:.3f}, {args.in_flight} episodes in flight; by CPU per step "
        f"{(raw_cpu / raw_steps) / (run_cpu / run_steps):.3f})"
    )
    # As many games again, on the next seeds (new pictures, new files): what a
    # worker that has been playing for a while pays beside the raw loop on the
    # same seeds.
    again_steps, again_wall, again_cpu, _ = full_runner(
        task_id, args.episodes, options, args.in_flight, first_seed=args.episodes)
    raw_again_steps, raw_again_wall, raw_again_cpu, _ = raw_again
    print(
        f"  runner again : {again_steps:7d} steps in {again_wall:7.2f} s = {again_steps / again_wall:8.0f} steps/s, "
        f"CPU {1000 * again_cpu / again_steps:6.3f} ms/step  (the next seeds; against the raw loop on them, "
        f"{1000 * raw_again_cpu / raw_again_steps:.3f} ms/step: ratio "
        f"{(again_steps / again_wall) / (raw_again_steps / raw_again_wall):.3f}, by CPU per step "
        f"{(raw_again_cpu / raw_again_steps) / (again_cpu / again_steps):.3f})"
    )
    if args.split:
        from bench.runner_split import cpu_split

        _, split = cpu_split(task_id, args.episodes, options, args.in_flight, full_runner,
                             first_seed=2 * args.episodes)
        print("  CPU ms/step  : " + ", ".join(f"{label} {ms:.3f}" for label, ms in split.items()))
    return run_steps, run_wall, run_cpu, run_sys


def _print_write_rows(task_id: str, args, options: dict, run: tuple) -> None:
    """The rows of the step writer's, BabyAI's and the episode ends' fixes, each measured both ways."""
    from envs.registry import get_task_class

    run_steps, run_wall, run_cpu, _ = run
    run_rate = run_steps / run_wall
    through_fields, plain = step_write_costs(task_id)
    print(f"  step rows    : {through_fields:6.3f} ms CPU/step every value through its field, {plain:6.3f} ms "
          f"with plain values passed as they are: ratio {through_fields / plain:.2f}")
    draws = babyai_draw_costs(task_id, min(args.episodes, 10))
    if draws:
        print(f"  level drawn  : {draws[0]:6.3f} ms CPU a picture by minigrid's get_full_render, {draws[1]:6.3f} ms "
              f"by full_render (same pixels): ratio {draws[0] / draws[1]:.2f}")
    task_class = get_task_class(task_id)
    step_costs = babyai_step_costs(task_id, min(args.episodes, 10))
    if step_costs:
        shipped = step_costs["as shipped"]
        print("  babyai step  : raw env loop CPU ms/step " + ", ".join(
            f"{label} {ms:.3f} (x{ms / shipped:.2f})" for label, ms in step_costs.items()))
        with babyai_before(task_class, "bot", "view"):
            before_steps, before_wall, before_cpu, _ = full_runner(task_id, args.episodes, options,
                                                                   args.in_flight)
        print(f"  babyai fixes : arena runner {1000 * before_cpu / before_steps:6.3f} ms CPU/step "
              f"({before_steps / before_wall:6.0f} steps/s) with the bot from every reset and the view "
              f"worked out again, {1000 * run_cpu / run_steps:6.3f} ({run_rate:6.0f} steps/s) as shipped: "
              f"ratio by CPU {(before_cpu / before_steps) / (run_cpu / run_steps):.2f}")
    orm_ends, prepared_ends = claim_finish_costs()
    print(f"  episode ends : claim + finish {orm_ends:6.3f} ms CPU/episode with each statement built by the ORM, "
          f"{prepared_ends:6.3f} prepared (arena.services.prepared): ratio {orm_ends / prepared_ends:.2f}; "
          f"in a worker (same seeds each way):")
    print_runner_episode_ends(runner_episode_ends(task_id, args.episodes, options, args.in_flight, full_runner,
                                                  first_seed=3 * args.episodes), indent="    ")


def _print_engine_rows(task_id: str, args, options: dict, raw: tuple, run: tuple) -> None:
    """The rows of the start processes, the simulator threads, the allocator, Crafter's
    drawing, the baseline's hop and the world picture, each measured both ways."""
    from envs.registry import get_task_class

    raw_steps, raw_wall, raw_cpu, raw_sys = raw
    run_steps, run_wall, run_cpu, run_sys = run
    raw_rate, run_rate = raw_steps / raw_wall, run_steps / run_wall
    task_class = get_task_class(task_id)
    if builds_starts(task_id):
        _print_world_starts_row(task_id, args, options, raw_rate)
    if task_class.cpu_bound:
        task_class.cpu_bound = False
        try:
            default_steps, default_wall, default_cpu, default_sys = full_runner(
                task_id, args.episodes, options, args.in_flight
            )
        finally:
            task_class.cpu_bound = True
        print(
            f"  executor     : arena runner {default_steps / default_wall:6.0f} steps/s, CPU "
            f"{1000 * default_cpu / default_steps:6.3f} ms/step (system {1000 * default_sys / default_steps:.3f}) "
            f"stepping in asyncio's default executor, {run_rate:6.0f} steps/s, "
            f"{1000 * run_cpu / run_steps:6.3f} (system {1000 * run_sys / run_steps:.3f}) on one thread a core "
            f"(arena.play.simulators): ratio by CPU {(default_cpu / default_steps) / (run_cpu / run_steps):.2f}"
        )
    again_steps, _, again_cpu, again_sys = raw_loop(task_id, args.episodes, options)
    print(
        f"  allocator    : raw env loop {1000 * raw_cpu / raw_steps:6.3f} ms/step CPU (system "
        f"{1000 * raw_sys / raw_steps:.3f}) with glibc's thresholds, {1000 * again_cpu / again_steps:6.3f} "
        f"(system {1000 * again_sys / again_steps:.3f}) with the worker's (arena.runtime.memory): ratio "
        f"{(raw_cpu / raw_steps) / (again_cpu / again_steps):.2f}"
    )
    if task_id.startswith("balrog/crafter"):
        drawn_twice, drawn_once = single_drawing_costs(task_id, min(args.episodes, 3), options)
        print(f"  crafter step : raw env loop {drawn_twice:6.3f} ms CPU/step with crafter drawing a frame in "
              f"its step too, {drawn_once:6.3f} without (the night's random numbers taken): ratio "
              f"{drawn_twice / drawn_once:.2f}")
    if get_task_class(task_id).blocking:
        threaded, on_loop = policy_hop_costs(task_id, options)
        print(f"  baseline hop : {threaded:6.3f} ms CPU per random choice handed to a thread and back, "
              f"{on_loop:6.3f} ms made on the event loop: ratio {threaded / on_loop:.1f}")
    pictures = picture_costs(task_id, min(args.episodes, 3), options)
    if pictures:
        print(f"  world picture: {pictures[0]:6.3f} ms/step drawn and encoded by PIL at level 6 (before), "
              f"{pictures[1]:6.3f} ms/step drawn and encoded by the replay's encoder: ratio "
              f"{pictures[0] / pictures[1]:.2f}; {pictures[2]:6.3f} ms/step drawn each step (a picture seen "
              f"again keeps its encoding), {pictures[3]:6.3f} ms/step as the task gives it (a state seen "
              f"again is not drawn): ratio {pictures[2] / pictures[3]:.2f}")

def _print_world_starts_row(task_id: str, args, options: dict, raw_rate: float) -> None:
    """The runner with each start built in the worker's interpreter, and in start processes."""
    from arena.play import starts

    starts.enabled = False
    try:
        own_steps, own_wall, own_cpu, _ = full_runner(task_id, args.episodes, options, args.in_flight)
    finally:
        starts.enabled = True
    built_before = starts.cpu_seconds()
    on_steps, on_wall, on_cpu, _ = full_runner(task_id, args.episodes, options, args.in_flight)
    built_cpu = starts.cpu_seconds() - built_before
    print(
        f"  world starts : arena runner {own_steps / own_wall:6.0f} steps/s, CPU "
        f"{1000 * own_cpu / own_steps:6.3f} ms/step with each start built in the worker's interpreter, "
        f"{on_steps / on_wall:6.0f} steps/s, CPU {1000 * on_cpu / on_steps:6.3f} ms/step (the worker "
        f"{1000 * (on_cpu - built_cpu) / on_steps:.3f}, the start processes {1000 * built_cpu / on_steps:.3f}) "
        f"built in start processes (arena.play.starts): ratio by wall "
        f"{(on_steps / on_wall) / (own_steps / own_wall):.2f}; against the raw loop "
        f"{(own_steps / own_wall) / raw_rate:.3f} and {(on_steps / on_wall) / raw_rate:.3f}"
    )


if __name__ == "__main__":
    main()
