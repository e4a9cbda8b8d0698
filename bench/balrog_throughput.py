"""BALROG throughput: the arena's runner against the raw environment loop, same run.

For each task, the same seeds are played twice by the random baseline (an agent with no
latency): once by calling the task directly (the raw wrapper loop), once by a real
Worker (queue, claim, runner, step rows committed to SQLite, live publish, aggregates).
Printed: steps/s and CPU milliseconds per step of both, and their ratio; then the runner
again on the next seeds (bench/README.md), and the rows of the fixes.

    .venv/bin/python bench/balrog_throughput.py [--episodes 20] [--crafter-steps 500] [--split]
"""

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.babyai_step import babyai_before, babyai_step_costs  # noqa: E402
from bench.episode_ends import claim_finish_costs, print_runner_episode_ends, runner_episode_ends  # noqa: E402
from bench.runner_overhead import setup_django  # noqa: E402

TASKS = ("balrog/babyai-goto", "balrog/babyai-pick-up-seq-go-to", "balrog/crafter", "balrog/textworld-cooking")


def _options(task_id: str, crafter_steps: int) -> dict:
    from envs.registry import get_task_class

    settings = get_task_class(task_id).settings
    return {"max_steps": crafter_steps} if "max_steps" in settings else {}


def raw_loop(task_id: str, episodes: int, options: dict, first_seed: int = 0) -> tuple[int, float, float, float]:
    """Steps, wall seconds, CPU seconds and the kernel's share of them (system time)."""
    from envs.core import RandomLegalPolicy
    from envs.registry import make

    steps = 0
    wall, cpu, system = time.perf_counter(), time.process_time(), os.times().system
    for seed in range(first_seed, first_seed + episodes):
        task = make(task_id, None, **options)
        policy = RandomLegalPolicy(seed)
        task.reset(seed)
        while not task.done:
            task.step(policy.act(task))
            steps += 1
        task.close()
    return steps, time.perf_counter() - wall, time.process_time() - cpu, os.times().system - system


def picture_costs(task_id: str, episodes: int, options: dict) -> tuple[float, float, float, float] | None:
    """CPU milliseconds per step of the replay's world picture on the same random games:
    drawn and encoded afresh by PIL at zlib level 6 (encode_png, the replay's encoder
    before), drawn and encoded afresh by the replay's encoder (encode_viewer_png), drawn
    every step with the encoding of a picture seen before kept (the task's state key
    switched off), and as the task gives it (a state seen before is not even drawn, for
    games that name their state); None for tasks without pictures."""
    from envs.core import RandomLegalPolicy
    from envs.registry import make
    from envs.render import encode_png, encode_viewer_png

    before = fresh = digest_only = cached = 0.0
    steps = 0
    for seed in range(episodes):
        task, without_state = make(task_id, None, **options), make(task_id, None, **options)
        without_state.picture_state = lambda: None
        policy = RandomLegalPolicy(seed)
        task.reset(seed)
        without_state.reset(seed)
        if task.viewer_png() is None:
            return None
        without_state.viewer_png()
        while not task.done:
            action = policy.act(task)
            task.step(action)
            without_state.step(action)
            steps += 1
            started = time.process_time()
            encode_png(task.world_picture())
            before += time.process_time() - started
            started = time.process_time()
            encode_viewer_png(task.world_pixels())
            fresh += time.process_time() - started
            started = time.process_time()
            without_state.viewer_png()
            digest_only += time.process_time() - started
            started = time.process_time()
            task.viewer_png()
            cached += time.process_time() - started
        task.close()
        without_state.close()
    return tuple(1000 * cost / steps for cost in (before, fresh, digest_only, cached))


def single_drawing_costs(task_id: str, episodes: int, options: dict) -> tuple[float, float]:
    """CPU milliseconds per step of the raw loop on Crafter with crafter drawing a frame
    inside its step as well (as before) and without (SeededCrafterEnv._obs takes only
    the night's random numbers), on the same seeds."""
    import crafter

    from envs.balrog.crafter_env import SeededCrafterEnv

    single = SeededCrafterEnv._obs
    costs = []
    for drawn_in_step in (True, False):
        SeededCrafterEnv._obs = crafter.Env._obs if drawn_in_step else single
        try:
            steps, _, cpu, _ = raw_loop(task_id, episodes, options)
        finally:
            SeededCrafterEnv._obs = single
        costs.append(1000 * cpu / steps)
    return costs[0], costs[1]


def policy_hop_costs(task_id: str, options: dict, calls: int = 2000) -> tuple[float, float]:
    """CPU milliseconds per choice of the random baseline on a blocking task, 8 choices
    at once as 8 episodes in flight ask: handed to asyncio's default executor and back
    (as BaselineAgent.decide did for every blocking task) and made on the event loop (a
    policy that acts instantly)."""
    from envs.core import RandomLegalPolicy
    from envs.registry import make

    task = make(task_id, None, **options)
    task.reset(0)
    policy = RandomLegalPolicy(0)

    async def choose(off_loop: bool) -> None:
        for _ in range(calls // 8):
            if off_loop:
                await asyncio.gather(*(asyncio.to_thread(policy.act, task) for _ in range(8)))
            else:
                await asyncio.gather(*(asyncio.sleep(0, policy.act(task)) for _ in range(8)))

    costs = []
    for off_loop in (True, False):
        started = time.process_time()
        asyncio.run(choose(off_loop))
        costs.append(1000 * (time.process_time() - started) / calls)
    task.close()
    return costs[0], costs[1]


def image_row_costs(rows: int = 2000, batch: int = 8) -> tuple[float, float]:
    """CPU milliseconds per picture row of a step batch (a BALROG text run stores one
    world picture per step), in batches of `batch`: through the ORM (images.ensure_row,
    a bulk_create per picture, as the step writer did) and through the step writer's
    prepared statement (one executemany per batch); rolled back after each."""
    import hashlib

    from django.db import connections, transaction
    from django.utils import timezone

    from arena.storage import images
    from arena.models import Episode
    from arena.services.steps import _StepSQL

    refs = [images.ImageRef(hashlib.sha256(str(n).encode()).hexdigest(), 256, 256, 5000) for n in range(rows)]
    connection = connections[Episode.objects.db]
    sql = _StepSQL.for_connection(connection)
    costs = []
    for prepared in (False, True):
        started = time.process_time()
        for first in range(0, rows, batch):
            with transaction.atomic():
                chunk = sorted(refs[first:first + batch], key=lambda ref: ref.sha256)
                if prepared:
                    now = timezone.now()
                    with connection.cursor() as cursor:
                        cursor.executemany(sql.image_insert, [sql.image_params(ref, now) for ref in chunk])
                else:
                    for ref in chunk:
                        images.ensure_row(ref)
                transaction.set_rollback(True)
        costs.append(1000 * (time.process_time() - started) / rows)
    return costs[0], costs[1]


def babyai_draw_costs(task_id: str, episodes: int) -> tuple[float, float] | None:
    """CPU milliseconds per picture of BabyAI's world picture on random games: minigrid's
    get_full_render against envs.balrog.babyai.full_render (the same pixels, minigrid's
    tiles placed without numpy per cell); None for other tasks."""
    if "babyai" not in task_id:
        return None
    from envs.balrog.babyai import WORLD_TILE_PIXELS, full_render
    from envs.core import RandomLegalPolicy
    from envs.registry import make

    minigrid = ours = 0.0
    pictures = 0
    for seed in range(episodes):
        task, policy = make(task_id, None), RandomLegalPolicy(seed)
        task.reset(seed)
        while not task.done:
            task.step(policy.act(task))
            level = task._level
            started = time.process_time()
            level.get_full_render(highlight=True, tile_size=WORLD_TILE_PIXELS)
            minigrid += time.process_time() - started
            started = time.process_time()
            full_render(level, WORLD_TILE_PIXELS)
            ours += time.process_time() - started
            pictures += 1
        task.close()
    return 1000 * minigrid / pictures, 1000 * ours / pictures


def step_write_costs(task_id: str, steps: int = 1500, batch: int = 4) -> tuple[float, float]:
    """CPU milliseconds per step of the step writer's transactions (arena.services.steps.
    steps_record: heartbeat, step row, commit, live announcement) for the steps of
    random games of `task_id`, `batch` episodes' steps a batch (about what a worker
    with 8 episodes in flight commits at once), each variant into episodes of its own:
    every value through its field's get_db_prep_save, against values of the field's
    own plain types passed as they are (the step writer now)."""
    from arena.models import Episode
    from arena.play.agents.base import Decision
    from arena.play.step_records import step_record_of
    from arena.services.episodes import episode_claim
    from arena.services.runs import RunSpec, run_create
    from arena.services.steps import _StepSQL, steps_record
    from arena.services.submissions import baseline_submission
    from envs.core import RandomLegalPolicy
    from envs.registry import get_task_class, make

    fmt = get_task_class(task_id).formats[0]
    records, seed = [], 0
    while len(records) < steps:
        task, policy = make(task_id, fmt), RandomLegalPolicy(seed)
        observation = task.reset(seed)
        while not task.done and len(records) < steps:
            action = policy.act(task)
            result = task.step(action)
            decision = Decision(parsed_action=action)
            records.append(step_record_of(len(records), observation, None, [], decision, result, result.legal))
            observation = result.observation
        seed += 1
        task.close()
    costs = []
    fast = _StepSQL.insert_params
    for through_fields in (True, False):
        run = run_create(baseline_submission("random", "Random legal actions"),
                         RunSpec(task=task_id, format=fmt, num_episodes=batch, first_seed=10_000))
        episodes = list(Episode.objects.filter(run=run).order_by("index").values_list("pk", flat=True))
        for episode_id in episodes:
            episode_claim(episode_id, "bench")
        _StepSQL.insert_params = _StepSQL.insert_params_through_fields if through_fields else fast
        try:
            started = time.process_time()
            for first in range(0, steps, batch):
                steps_record([(episodes[n % batch], "bench", record)
                              for n, record in enumerate(records[first:first + batch], start=first)])
            costs.append(1000 * (time.process_time() - started) / steps)
        finally:
            _StepSQL.insert_params = fast
            # Claimed and never finished: once their heartbeat went stale, a later row's
            # worker re-queued these episodes and played them into its own figures.
            run.delete()
    return costs[0], costs[1]


def _builds_starts(task_id: str) -> bool:
    from envs.registry import make

    task = make(task_id, None)
    try:
        return task.start_builder(0) is not None
    finally:
        task.close()


def full_runner(task_id: str, episodes: int, options: dict, in_flight: int,
                first_seed: int = 0) -> tuple[int, float, float, float]:
    """Steps, wall seconds, CPU seconds and system seconds of a Worker playing the run;
    the CPU seconds count the start processes' (arena.play.starts) with the worker's."""
    from arena.play import starts
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission
    from arena.models import Step
    from arena.play.worker import Worker
    from envs.registry import get_task_class

    fmt = get_task_class(task_id).formats[0]
    submission = baseline_submission("random", "Random legal actions")
    spec = RunSpec(task=task_id, format=fmt, num_episodes=episodes, options=options, first_seed=first_seed)
    run = run_create(submission, spec)
    worker = Worker(concurrency=in_flight, name=f"bench-{task_id}")
    wall, cpu, system = time.perf_counter(), time.process_time(), os.times().system
    built_cpu = starts.cpu_seconds()
    asyncio.run(worker.serve(until_idle=True))
    elapsed, cpu_used, system_used = time.perf_counter() - wall, time.process_time() - cpu, os.times().system - system
    cpu_used += starts.cpu_seconds() - built_cpu
    return Step.objects.filter(episode__run=run).count(), elapsed, cpu_used, system_used


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
        from envs.registry import get_task_class

        # Every raw loop before the first Worker: a worker sets the process's allocator
        # thresholds (arena.runtime.memory), and the raw loop is measured as BALROG's
        # evaluator runs, with glibc's own.
        raws = {task_id: raw_loop(task_id, args.episodes, _options(task_id, args.crafter_steps)) for task_id in tasks}
        raws_again = {task_id: raw_loop(task_id, args.episodes, _options(task_id, args.crafter_steps),
                                        first_seed=args.episodes) for task_id in tasks}
        for task_id in tasks:
            options = _options(task_id, args.crafter_steps)
            raw_steps, raw_wall, raw_cpu, raw_sys = raws[task_id]
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
            raw_again_steps, raw_again_wall, raw_again_cpu, _ = raws_again[task_id]
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
            if _builds_starts(task_id):
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
    orm, prepared = image_row_costs()
    print(f"picture rows of a step batch (8 a batch): {orm:6.3f} ms CPU per row through the ORM (bulk_create each), "
          f"{prepared:6.3f} ms through the step writer's prepared statement: ratio {orm / prepared:.2f}")
    print("target: the runner keeps up with the environment (ratio near 1 for slow environments)")


if __name__ == "__main__":
    main()
