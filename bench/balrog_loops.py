"""The two ways the BALROG benches play a task (bench/README.md): the raw environment
loop, as BALROG's own harness steps it, and a real Worker playing a queued run; shared
by balrog_throughput.py, balrog_fix_costs.py, balrog_per_core.py and episode_ends.py."""

import asyncio
import os
import time


def task_options(task_id: str, crafter_steps: int) -> dict:
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


def builds_starts(task_id: str) -> bool:
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
