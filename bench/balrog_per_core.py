"""BALROG games per core: steps per CPU second of one worker process, for the arena's
two agents that cost nothing to think (the random baseline, and a model agent whose
endpoint answers at once with a fixed valid action over HTTP), on BabyAI and Crafter.

The figure to set beside it is BALROG's own evaluator (one process per episode,
synchronous client) with an instant client returning the same action, run from its
own checkout and virtual environment: the arena's CPU per step against BALROG's is
what a public arena's capacity per core is, compared with running BALROG itself.
The fake endpoint runs in a separate process and its CPU is not counted.

    .venv/bin/python bench/balrog_per_core.py [--episodes 10] [--crafter-steps 500] [--in-flight 8]
"""

import argparse
import asyncio
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.concurrency import _serve_fake_model  # noqa: E402
from bench.runner_overhead import setup_django  # noqa: E402

# The action every instant answer names (the same on BALROG's side).
TASKS = {"balrog/babyai-goto": "go forward", "balrog/crafter": "Noop"}


def _play(submission, task_id: str, episodes: int, options: dict, in_flight: int) -> tuple[int, float, float]:
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission, submission_create
    from arena.models import Step
    from arena.play.worker import Worker

    run = run_create(submission, RunSpec(task=task_id, format="text", num_episodes=episodes,
                                                            options=options))
    from arena.play import starts

    worker = Worker(concurrency=in_flight, name=f"bench-{task_id}")
    # The start processes' CPU (crafter's worlds, arena.play.starts) counts with the
    # worker's: `time.process_time` sees one process.
    wall, cpu, built = time.perf_counter(), time.process_time(), starts.cpu_seconds()
    asyncio.run(worker.serve(until_idle=True))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu + starts.cpu_seconds() - built
    steps = Step.objects.filter(episode__run=run).count()
    if not steps:
        failures = set(run.episodes.values_list("error", flat=True))
        raise SystemExit(f"{task_id}: no step was played ({'; '.join(sorted(failures))})")
    return steps, wall, cpu


def prompt_costs(task_id: str, action: str, steps: int = 600, rounds: int = 3) -> tuple[float, float]:
    """CPU milliseconds per prompt of BALROG's history prompt (arena.strategies.history)
    for `steps` steps of the task playing `action`: the token estimates of the latest
    prompt's texts kept (as shipped), against every text estimated again at each step."""
    import types

    from arena.strategies.history import ObservationHistoryStrategy
    from envs.registry import get_task_class, make

    spent = {True: 0.0, False: 0.0}
    for _ in range(rounds):
        for kept in (True, False):
            run = types.SimpleNamespace(variant={}, task=task_id)
            strategy = ObservationHistoryStrategy(run, types.SimpleNamespace(seed=0))
            task, seed = make(task_id, get_task_class(task_id).formats[0]), 0
            observation = task.reset(seed)
            strategy.begin(task, observation, None)
            for index in range(steps):
                added = strategy.prepare(index, observation, None, task.legal_actions())
                if not kept:
                    strategy._token_counts = {}
                started = time.process_time()
                strategy.messages(added)
                spent[kept] += time.process_time() - started
                strategy.record(action, strategy.parse(action)[0])
                observation = task.step(action).observation
                if task.done:
                    seed += 1
                    observation = task.reset(seed)
    return 1000 * spent[False] / (rounds * steps), 1000 * spent[True] / (rounds * steps)


def _row(label: str, steps: int, wall: float, cpu: float) -> None:
    print(f"  {label:34s}: {steps:6d} steps, wall {wall:7.2f} s, CPU {cpu:7.2f} s = "
          f"{steps / cpu:6.0f} steps per CPU second ({1000 * cpu / steps:6.2f} ms/step), {steps / wall:6.0f} steps/s wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--crafter-steps", type=int, default=500)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--task", action="append", help="only these tasks (repeatable)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        import os

        os.environ["ARENA_ALLOW_LOOPBACK"] = "1"
        setup_django(tmp)
        from arena.services.runs import RunSpec, run_create
        from arena.services.submissions import baseline_submission, submission_create
        from bench.babyai_step import babyai_before
        from bench.balrog_loops import raw_loop, task_options
        from bench.episode_ends import orm_each_call
        from envs.balrog.babyai import BabyAITask
        from envs.registry import get_task_class

        context = multiprocessing.get_context("spawn")
        tasks = args.task or TASKS
        # Every raw loop before the first Worker: a worker sets the process's allocator
        # thresholds (arena.runtime.memory); the raw loop runs with glibc's own, as
        # BALROG's evaluator does.
        raws = {task_id: raw_loop(task_id, args.episodes, task_options(task_id, args.crafter_steps))[:3]
                for task_id in tasks}
        # BabyAI's steps as they were before the bot followed only the expert's episodes
        # and the view was read from minigrid's encoding (bench/babyai_step.py).
        raws_before = {}
        for task_id in tasks:
            task_class = get_task_class(task_id)
            if issubclass(task_class, BabyAITask):
                with babyai_before(task_class, "bot", "view"):
                    raws_before[task_id] = raw_loop(task_id, args.episodes, task_options(task_id, args.crafter_steps))[:3]
        for task_id in tasks:
            options = task_options(task_id, args.crafter_steps)
            ports, stop = context.Queue(), context.Event()
            server = context.Process(target=_serve_fake_model, args=(0.0, ports, stop, TASKS[task_id]), daemon=True)
            server.start()
            _, base_url = ports.get(timeout=30)
            try:
                model = submission_create(
                    owner=None,
                    fields={"name": f"instant {task_id}", "base_url": base_url, "model": "fake", "max_tokens": 16,
                            "max_concurrent_requests": args.in_flight},
                    api_key="", runs=[],
                )
                random_agent = baseline_submission("random", "Random legal actions")
                print(f"{task_id} {options or ''}: {args.episodes} episodes, {args.in_flight} in flight, one worker process")
                afresh, kept = prompt_costs(task_id, TASKS[task_id])
                print(f"  BALROG's history prompt: {afresh:.3f} ms CPU a prompt with every text's tokens estimated "
                      f"again, {kept:.3f} with the latest prompt's estimates kept: ratio {afresh / kept:.2f}")
                _row("raw env loop (random actions)", *raws[task_id])
                # One episode of each agent first, not counted: the first worker row paid
                # what a process pays once (its first connections, the model client's
                # first request) and came out up to a fifth dearer than the same row later.
                _play(random_agent, task_id, 1, options, args.in_flight)
                _play(model, task_id, 1, options, args.in_flight)
                _row("arena, random baseline agent", *_play(random_agent, task_id, args.episodes, options, args.in_flight))
                instant = _play(model, task_id, args.episodes, options, args.in_flight)
                _row(f"arena, instant model ({TASKS[task_id]!r})", *instant)
                # Episode ends (bench/episode_ends.py): the claim's and the finish's
                # statements built by the ORM at each call, as before they were prepared.
                with orm_each_call():
                    ends_orm = _play(model, task_id, args.episodes, options, args.in_flight)
                _row("arena, instant model, ORM each call", *ends_orm)
                print(f"  instant model, CPU per step with the ORM at each call / as shipped: "
                      f"{(ends_orm[2] / ends_orm[0]) / (instant[2] / instant[0]):.2f}")
                if task_id in raws_before:
                    task_class = get_task_class(task_id)
                    _row("raw env loop, BabyAI before", *raws_before[task_id])
                    with babyai_before(task_class, "bot", "view"):
                        _row("arena, random baseline, before", *_play(random_agent, task_id, args.episodes, options,
                                                                      args.in_flight))
                        before = _play(model, task_id, args.episodes, options, args.in_flight)
                    _row("arena, instant model, before", *before)
                    print(f"  instant model, CPU per step before / as shipped: "
                          f"{(before[2] / before[0]) / (instant[2] / instant[0]):.2f}")
            finally:
                stop.set()
                ports.get(timeout=30)
                server.join(timeout=10)
    print("BALROG's evaluator: run it from its checkout with an instant client (see bench/README.md)")


if __name__ == "__main__":
    main()
