"""The issue's whole list of tasks against one real model server running a real
instruction-tuned model (tests/support/real_servers.py), submitted through the REST API
as a user would, then the same tasks again with slot affinity off, in one run.

1. "after": one submission holding every task of tests/support/every_suite.py's whole
   list (one episode each, the fewest a run has), played by one worker with 8 episodes in
   flight and 1 request at a time to a 1-slot server, as the arena plays it: each episode
   leases the slot for its life (arena.clients.limits). Every run must finish with a
   leaderboard row.
2. "before": the same tasks as new runs of the same submission with slot affinity off
   (the arena before it), so the episodes interleave call by call on the one slot; each
   run is cancelled once it has `--before-steps` steps (its figures are over those).

Per run it prints: status, steps, legal-action rate, median model latency, and prompt
tokens the server read afresh per step (the steps after each episode's first, which
reads its whole prompt either way) before -> after. llama.cpp's server reports its cached
prompt tokens in `usage`; llama-cpp-python's reports none, so its verbose log is read
instead: one "prompt eval ... / N tokens" line per call, matched in call order.

    .venv/bin/python bench/real_server.py --server llama-server [--before-steps 6] [--max-tokens 24] [--cpu portable]

The llama.cpp build defaults to the AVX2 one where the CPU has AVX2 (the tests' portable
build reads prompts at a few tokens per second on a 2-core machine: hours per server).
"""

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROMPT_EVAL = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")


async def _play(runs, name: str, step_limit: int) -> None:
    """One worker, 8 episodes in flight; with a `step_limit`, each run is cancelled once it
    has that many steps (its episodes end as skipped)."""
    from asgiref.sync import sync_to_async

    from arena.models import Run, Step
    from arena.services.run_actions import run_cancel
    from arena.play.worker import Worker

    worker = Worker(concurrency=8, name=name)
    serving = asyncio.create_task(worker.serve(until_idle=True))

    def cancel_full_runs() -> None:
        for run in runs:
            run.refresh_from_db()
            if run.status not in Run.TERMINAL and \
                    Step.objects.filter(episode__run=run).count() >= step_limit:
                run_cancel(run)

    while not serving.done():
        if step_limit:
            await sync_to_async(cancel_full_runs)()
        await asyncio.sleep(1.0)
    await serving


def bench_arena(prefix: str, *, model_timeout_seconds: int):
    """A throw-away arena for a bench against a real server: its own folder and database,
    the in-memory queue, loopback endpoints allowed, migrated; returns the folder and an
    API client signed in as a fresh user."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.environ.update(
        ARENA_VAR_DIR=tmp, ARENA_QUEUE="memory", ARENA_ALLOW_LOOPBACK="1",
        DJANGO_SETTINGS_MODULE="config.settings", LOG_LEVEL="WARNING",
        ARENA_PROBE_TIMEOUT_SECONDS="60", ARENA_MODEL_TIMEOUT_SECONDS=str(model_timeout_seconds),
    )
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from rest_framework.test import APIClient

    call_command("migrate", verbosity=0)
    api = APIClient()
    api.force_authenticate(User.objects.create_user("bench", password="bench-password-123"))
    return tmp, api


def log_offset(server) -> int:
    return server.log_path.stat().st_size if server.log_path.exists() else 0


def evaluated_per_call(server, offset: int) -> list[int]:
    """Prompt tokens llama-cpp-python evaluated, per call since `offset` of its log."""
    with open(server.log_path, "rb") as log:
        log.seek(offset)
        return [int(n) for n in PROMPT_EVAL.findall(log.read().decode("utf-8", "replace"))]


def reread_by_step(runs, evaluated: list[int] | None) -> dict:
    """Prompt tokens read afresh, per step id: from the server's cached count, or from the
    per-call log figures in call order (one request at a time, so call order is step order)."""
    from arena.models import Step

    steps = list(Step.objects.filter(episode__run__in=runs).order_by("created_at", "pk"))
    if evaluated is None:
        return {s.pk: s.tokens_in - s.cached_tokens_in for s in steps
                if s.tokens_in is not None and s.cached_tokens_in is not None}
    calls = [(s.pk, call) for s in steps for call in (s.calls or []) if call.get("tokens_in") is not None]
    # A call still in flight when a run was cancelled is logged but never stored: the
    # log may go on past the stored calls, never fall short of them.
    if len(evaluated) < len(calls):
        print(f"  (the log has {len(evaluated)} calls, the steps {len(calls)}: no per-step re-read figure)")
        return {}
    reread: dict = {}
    for (step_id, _), count in zip(calls, evaluated):
        reread[step_id] = reread.get(step_id, 0) + count
    return reread


def _figures(run, reread: dict, same_steps: int) -> dict:
    steps = [s for episode in run.episodes.all() for s in episode.steps.order_by("index")]
    latencies = [s.latency_ms for s in steps if s.latency_ms is not None]
    later = [reread[s.pk] for s in steps if s.index > 0 and s.pk in reread]
    # The "before" runs stop after `same_steps`; over the same first steps the two phases
    # compare like with like (a sliding history re-reads more once its window is full).
    early = [reread[s.pk] for s in steps if 0 < s.index < same_steps and s.pk in reread]
    return {
        "status": run.status, "steps": len(steps),
        "legal": sum(s.legal for s in steps) / len(steps) if steps else None,
        "latency_s": statistics.median(latencies) / 1000 if latencies else None,
        "reread": statistics.mean(later) if later else None,
        "reread_early": statistics.mean(early) if early else None,
        "prompt": statistics.mean(s.tokens_in for s in steps if s.index > 0 and s.pk in reread) if later else None,
    }


def _fastest_cpu_level() -> str:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "portable"
    return "x86-64-v3" if re.search(r"\bavx2\b", flags) else "portable"


def _fmt(value, pattern: str) -> str:
    return "—" if value is None else format(value, pattern)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, choices=("llama-server", "llama-server-alternating", "llama-cpp-python"))
    parser.add_argument("--max-tokens", type=int, default=24)
    parser.add_argument("--before-steps", type=int, default=6, help="steps per run with slot affinity off (0: skip)")
    parser.add_argument("--quick", action="store_true", help="the short list `make test` plays (LMAct tic-tac-toe)")
    parser.add_argument("--cpu", choices=("portable", "x86-64-v3"), default=_fastest_cpu_level(),
                        help="the llama.cpp build to play against (scripts/llama_cpu_level.sh); the tests use "
                             "the portable one, which reads prompts ~20x slower")
    args = parser.parse_args()
    os.environ["ARENA_LLAMA_CPU"] = args.cpu
    print(f"llama.cpp build: {args.cpu}")

    # A small model on a shared core: the production timeouts, as the tests use.
    tmp, api = bench_arena("arena-real-server-", model_timeout_seconds=120)

    from arena.services.runs import RunSpec, run_create
    from arena.models import Run, Submission
    from leaderboard.selectors.runs import leaderboard_rows
    from tests.support.every_suite import FULL_ADDED, FULL_SUBMITTED, QUICK_ADDED, QUICK_SUBMITTED
    from tests.support.real_servers import real_server
    from tests.support.run_figures import run_label

    reads_log = args.server == "llama-cpp-python"
    results: dict = {}
    with real_server(args.server, Path(tmp), slots=1, verbose=reads_log) as server:
        body = {"name": f"SmolLM2 on {args.server}", "base_url": server.base_url, "model": server.model_id,
                "api_key": "", "tasks": QUICK_SUBMITTED if args.quick else FULL_SUBMITTED, "episodes_per_task": 1, "max_tokens": args.max_tokens,
                "max_concurrent_requests": 1}
        created = api.post("/api/submissions/", body, format="json")
        assert created.status_code == 201, created.content
        submission = Submission.objects.get(pk=created.json()["id"])
        probe = dict(submission.endpoint_probe)
        print(f"{args.server}: kind {probe.get('server_kind')}, {probe.get('server_slots')} slot(s), window "
              f"{probe['context_window']} ({probe['context_window_source']}), shape {probe.get('message_shape')}")
        for spec in QUICK_ADDED if args.quick else FULL_ADDED:
            run_create(submission, spec)
        after_runs = list(Run.objects.filter(submission=submission).order_by("pk"))
        specs = [RunSpec(r.task, r.format, 1, options=r.options or {},
                                  strategy={k: v for k, v in (r.variant or {}).items() if k == "num_demonstrations"})
                 for r in after_runs]

        phases = [("after", after_runs, 0)]
        if args.before_steps:
            phases.append(("before", None, args.before_steps))
        for label, runs, step_limit in phases:
            if runs is None:
                submission.endpoint_probe = {**probe, "server_kind": None}  # no slot to lease: interleaved
                submission.save(update_fields=["endpoint_probe"])
                runs = [run_create(submission, spec) for spec in specs]
            offset = log_offset(server) if reads_log else 0
            started = time.perf_counter()
            asyncio.run(_play(runs, f"bench-{label}", step_limit))
            wall = time.perf_counter() - started
            for run in runs:
                run.refresh_from_db()
            reread = reread_by_step(runs, evaluated_per_call(server, offset) if reads_log else None)
            results[label] = ({run_label(r): _figures(r, reread, args.before_steps) for r in runs}, wall, runs)
            print(f"{label}: played in {wall:.0f} s")

    after, after_wall, runs = results["after"]
    before = results["before"][0] if "before" in results else {}
    print(f"\n{args.server}: whole list in {after_wall / 60:.1f} min (slot affinity on); re-read tokens per step "
          f"over the steps after each episode's first, before (interleaved, {args.before_steps} steps per run) -> after")
    print(f"{'run':<58} {'status':<9} {'steps':>5} {'legal':>6} {'median s':>9} {'prompt/step':>11} "
          f"{'re-read before -> after, same steps':>36} {'after, all steps':>16}")
    for name, f in after.items():
        b = before.get(name, {})
        print(f"{name:<58} {f['status']:<9} {f['steps']:>5} {_fmt(f['legal'], '.0%'):>6} "
              f"{_fmt(f['latency_s'], '.1f'):>9} {_fmt(f['prompt'], ',.0f'):>11} "
              f"{_fmt(b.get('reread'), ',.0f'):>23} -> {_fmt(f['reread_early'], ',.0f'):<9} {_fmt(f['reread'], ',.0f'):>16}")
    finished = sum(f["status"] == Run.FINISHED for f in after.values())
    failed = [r for r in runs if r.status == Run.FAILED]
    rowless = [r.task for r in runs if not any(row.run.pk == r.pk for row in leaderboard_rows(r.task))]
    print(f"runs finished {finished} of {len(runs)}, failed {len(failed)}; leaderboard rows "
          f"{len(runs) - len(rowless)} of {len(runs)}" + (f" (missing: {rowless})" if rowless else ""))
    for run in failed:
        for episode in run.episodes.exclude(error=""):
            print(f"  {run.task}: {episode.error}")


if __name__ == "__main__":
    main()
