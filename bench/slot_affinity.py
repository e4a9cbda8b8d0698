"""Prompt tokens read afresh per step on a 1-slot local server, with 8 episodes queued:
episodes interleaved call by call (the arena before slot affinity) against each episode
leasing the slot for its whole life (arena.clients.limits), in one run.

Starts a 1-slot server with a real instruction-tuned model (tests/support/real_servers.py):
llama.cpp's llama-server, or llama-cpp-python's server (one model context: one cached
prompt). Submits it through the REST API, then plays the same episodes twice with one
worker (8 episodes in flight, 1 request at a time to the server): first with slot
affinity switched off, then on. Per step it reads what the server read afresh:
llama-server reports the prompt tokens served from its cache; llama-cpp-python reports
none, so its verbose log is read (one "prompt eval ... / N tokens" line per call).

llama-server keeps earlier prompts in host memory (--cache-ram, 8 GiB by default) and
restores the best match into the slot, which hides the cost of interleaving there;
`--cache-ram 0` measures the server without that cache.

    .venv/bin/python bench/slot_affinity.py [--server llama-cpp-python] [--task lmact/gridworld:ascii]
        [--episodes 8] [--demonstrations 0] [--steps-per-mode 0] [--cache-ram N]
"""

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


async def _play(run, name: str, step_limit: int) -> None:
    """One worker, 8 episodes in flight, until the run is done or `step_limit` steps are stored."""
    from asgiref.sync import sync_to_async

    from arena.models import Step
    from arena.services.run_actions import run_cancel
    from arena.play.worker import Worker

    worker = Worker(concurrency=8, name=name)
    serving = asyncio.create_task(worker.serve(until_idle=True))
    count = sync_to_async(lambda: Step.objects.filter(episode__run=run).count())
    while not serving.done():
        if step_limit and await count() >= step_limit:
            # Its episodes end as skipped: none is given back to the queue for the next mode.
            await sync_to_async(run_cancel)(run)
            break
        await asyncio.sleep(1.0)
    await serving


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="llama-server", choices=("llama-server", "llama-cpp-python"))
    parser.add_argument("--cache-ram", type=int, default=None, help="llama-server's host-memory prompt cache, MiB")
    parser.add_argument("--task", default="lmact/gridworld:ascii")
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--demonstrations", type=int, default=0, help="LMAct demonstrations in each prompt")
    parser.add_argument("--steps-per-mode", type=int, default=0,
                        help="stop each mode after this many steps (0: play every episode to its end)")
    args = parser.parse_args()

    from bench.real_server import bench_arena, evaluated_per_call, log_offset, reread_by_step

    # Interleaved calls re-read whole prompts: on a loaded machine they outlast the
    # usual timeout, and a retried call would count its prompt twice.
    tmp, api = bench_arena("arena-slot-affinity-", model_timeout_seconds=1800)
    from arena.models import Step, Submission
    from arena.services.runs import RunSpec, run_create
    from tests.support.real_servers import real_server

    task, fmt = args.task.split(":")
    reads_log = args.server == "llama-cpp-python"
    extra = ("--cache-ram", str(args.cache_ram)) if args.cache_ram is not None and not reads_log else ()
    with real_server(args.server, Path(tmp), slots=1, verbose=reads_log, extra_args=extra) as server:
        body = {"name": f"SmolLM2, one slot of {args.server}", "base_url": server.base_url, "model": server.model_id, "api_key": "",
                "tasks": [args.task], "episodes_per_task": args.episodes, "max_tokens": args.max_tokens,
                "max_concurrent_requests": 1, "num_demonstrations": args.demonstrations}
        created = api.post("/api/submissions/", body, format="json")
        assert created.status_code == 201, created.content
        submission = Submission.objects.get(pk=created.json()["id"])
        probe = dict(submission.endpoint_probe)
        print(f"server: {probe.get('server_kind')}, {probe.get('server_slots')} slot(s), window "
              f"{probe['context_window']}; {args.episodes} episodes of {args.task}, 8 in flight, 1 request at a time")
        submission.runs.all().delete()  # the API's run is replaced by one per mode below
        results = {}
        for label, kind in (("interleaved (before)", None), ("one episode per slot (after)", probe["server_kind"])):
            submission.endpoint_probe = {**probe, "server_kind": kind}
            submission.save(update_fields=["endpoint_probe"])
            run = run_create(submission, RunSpec(task, fmt, args.episodes))
            offset = log_offset(server) if reads_log else 0
            started = time.perf_counter()
            asyncio.run(_play(run, f"bench-{kind}", args.steps_per_mode))
            elapsed = time.perf_counter() - started
            fresh = reread_by_step([run], evaluated_per_call(server, offset) if reads_log else None)
            steps = list(Step.objects.filter(episode__run=run).exclude(tokens_in=None))
            # A first step reads its whole prompt either way.
            later = [s for s in steps if s.index > 0 and s.pk in fresh]
            reread = [fresh[s.pk] for s in later]
            prompt = [s.tokens_in for s in later]
            results[label] = (len(steps), statistics.mean(reread), statistics.mean(prompt),
                              statistics.median(s.latency_ms for s in steps), elapsed,
                              run.episodes.filter(status="finished").count())
    print("(prompt and re-read tokens per step over the steps after each episode's first)")
    print(f"{args.server}" + (f" --cache-ram {args.cache_ram}" if extra else "") + f", {args.task}, "
          f"{args.demonstrations} demonstrations, {args.episodes} episodes")
    print(f"{'':<30} {'steps':>6} {'prompt/step':>12} {'re-read/step':>13} {'share':>6} {'median call':>12} "
          f"{'wall':>8} {'finished':>9}")
    for label, (count, reread, prompt, latency, elapsed, finished) in results.items():
        print(f"{label:<30} {count:>6} {prompt:>12,.0f} {reread:>13,.0f} {reread / prompt:>6.0%} "
              f"{latency:>9,.0f} ms {elapsed:>7.0f}s {finished:>5}/{args.episodes}")


if __name__ == "__main__":
    main()
