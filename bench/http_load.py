"""Many viewers on the public pages: the real web launcher (manage.py arena_web) under a
bounded closed-loop load of concurrent clients on loopback.

Builds a throw-away arena (SQLite) holding the baselines of several tasks and a few
model submissions, each run's episodes finished with scores, then for each setup below
starts the launcher on a free loopback port, warms it up, and keeps `--clients`
connections each sending its next request as soon as the last one answered, for
`--seconds`, alternating the front page and the leaderboard API:

    1 process, page cache off  — how the site was served before (one Daphne)
    1 process, page cache on, GC default
    1 process, page cache on
    N processes, page cache on, GC default
    N processes, page cache on — what `make serve` starts (N: --processes, default one per core)

"GC default": the web processes keep CPython's garbage collector thresholds and freeze
nothing (ARENA_WEB_GC_TUNED=0), as they did before arena.web.web_process tuned them; the
other rows run as `make serve` does.

Prints requests/s, p50/p95/p99 latency and errors of each beside the target (p95 under
200 ms with 200 clients) and the ratio to the first. The load generator (wrk when
installed, else Python) runs on the same cores as the server, so every figure is
pessimistic; so is anything else running on the machine (the load average is printed).
Last, it finishes an episode from another process and times how long the N processes
take to show it (the page cache's staleness).

    .venv/bin/python bench/http_load.py [--clients 200] [--seconds 15] [--processes N]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.http_load_clients import closed_loop  # noqa: E402

PATHS = ("/", "/api/leaderboard/?task=lmact/tictactoe")
TARGET_P95_MS = 200.0
BASELINE_TASKS = (
    "lmact/tictactoe", "lmact/gridworld", "lmact/chess", "lmact/crossword", "infogather/single-feature",
    "infogather/conjunction", "balrog/babyai-goto", "balrog/crafter", "adventure/basic-easy",
)

# Baseline runs of several tasks and a few model submissions, every episode finished with
# a score, as a worker would leave them (services, not fabricated rows).
SEED = """
import random
from django.core.management import call_command
from arena.services.episodes import episode_claim, episode_finish
from arena.services.runs import RunSpec
from arena.services.submissions import submission_create
from arena.models import Episode

TASKS = {tasks!r}
call_command("seed_baselines", "--episodes", "{episodes}", *[a for t in TASKS for a in ("--task", t)])
for number in range({submissions}):
    submission_create(
        owner=None,
        fields={{"name": f"model {{number}}", "base_url": "http://model.invalid/v1", "model": f"m{{number}}"}},
        api_key="",
        runs=[RunSpec(task=task, format="ascii" if task.startswith("lmact/") else "text",
                               num_episodes={episodes}) for task in TASKS[:4]],
    )
scores = random.Random(7)
for episode_id in Episode.objects.filter(status=Episode.QUEUED).values_list("id", flat=True):
    episode_claim(episode_id, "bench")
    episode_finish(episode_id, "bench", score=scores.uniform(-1, 1), end_reason="step limit")
# One more submission whose only episode is being played: finished while the site runs.
late = submission_create(
    owner=None, fields={{"name": "Late Finisher", "base_url": "http://model.invalid/v1", "model": "late"}},
    api_key="", runs=[RunSpec(task="lmact/tictactoe", format="ascii", num_episodes=1)],
)
late_episode = late.runs.get().episodes.get().id
episode_claim(late_episode, "bench")
print(Episode.objects.filter(status=Episode.FINISHED).count(), late_episode)
"""

FINISH = """
import time
from arena.services.episodes import episode_claim, episode_finish
from arena.services.runs import RunSpec
from arena.services.submissions import submission_create
episode_finish({episode}, "bench", score=1.0, end_reason="step limit")
print(time.time())
"""


def seed(env: dict, episodes: int, submissions: int) -> tuple[int, int]:
    """Episodes finished, and the id of the one left running."""
    def manage(*arguments: str) -> str:
        done = subprocess.run([sys.executable, "manage.py", *arguments], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True)
        return done.stdout

    manage("migrate", "-v0")
    code = SEED.format(tasks=BASELINE_TASKS, episodes=episodes, submissions=submissions)
    finished, late_episode = manage("shell", "-c", code).split()[-2:]
    return int(finished), int(late_episode)


def staleness(env: dict, base_url: str, episode_id: int) -> float:
    """Seconds from the commit of an episode's end (in another process) until every web
    process answers the leaderboard with it: fresh connections, so the kernel spreads
    them over the processes, until 20 in a row show it."""
    path = PATHS[1]
    shown = lambda: "Late Finisher" in httpx.get(base_url + path, timeout=30, trust_env=False).text  # noqa: E731
    assert not shown()
    finisher = subprocess.Popen([sys.executable, "manage.py", "shell", "-c", FINISH.format(episode=episode_id)],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    streak, first_of_streak = 0, 0.0
    while streak < 20:
        if shown():
            streak, first_of_streak = streak + 1, first_of_streak if streak else time.time()
        else:
            streak = 0
        time.sleep(0.01)
    committed = float(finisher.communicate(timeout=120)[0].split()[-1])
    return max(0.0, first_of_streak - committed)


class Site:
    """The launcher on a free loopback port, stopped with SIGTERM. Its output (the web
    processes' access log) goes to a file: an unread pipe would fill up and stall them."""

    def __init__(self, env: dict, processes: int, cache: bool, gc_tuned: bool, log: Path):
        env = {**env, "ARENA_PAGE_CACHE": "1" if cache else "0", "ARENA_WEB_GC_TUNED": "1" if gc_tuned else "0"}
        with log.open("w") as output:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "arena_web", "--port", "0", "--processes", str(processes)],
                cwd=ROOT, env=env, stdout=output,
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.process.poll() is None:
            first = log.read_text().split("\n", 1)[0]
            if first.startswith("listening on ") and "\n" in log.read_text():
                self.base_url = first.split()[2].rstrip("/")
                return
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"the launcher did not start; it wrote: {log.read_text()[:2000]!r}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def server_cpu_seconds(launcher_pid: int) -> float:
    """CPU time (user + system) used so far by the launcher and its web processes, from
    /proc: what the server spent, whatever else the machine ran meanwhile."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        # After the command: state, ppid, …; utime and stime are fields 14 and 15 of stat.
        if int(entry) == launcher_pid or int(fields[1]) == launcher_pid:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def warm_up(base_url: str, processes: int) -> None:
    """Until every process has started and rendered each page once: a short load of a
    few clients, repeated until its requests answer without errors."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        result = closed_loop(base_url, PATHS, clients=4 * processes, seconds=3, quiet=True)
        if result.requests and not result.errors:
            return
        time.sleep(1)
    raise SystemExit("the site did not answer within three minutes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--processes", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--episodes-per-run", type=int, default=5)
    parser.add_argument("--submissions", type=int, default=8)
    args = parser.parse_args()

    var = tempfile.mkdtemp(prefix="arena-http-load-")
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL", "ARENA_QUEUE")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", ARENA_VAR_DIR=var, LOG_LEVEL="ERROR")
    try:
        finished, late_episode = seed(env, args.episodes_per_run, args.submissions)
        print(f"seeded: {finished} finished episodes", flush=True)
        setups = [(1, False, True), (1, True, False), (1, True, True),
                  (args.processes, True, False), (args.processes, True, True)]
        results = []
        for processes, cache, gc_tuned in setups:
            site = Site(env, processes, cache, gc_tuned, Path(var) / f"web-{len(results)}.log")
            try:
                warm_up(site.base_url, processes)
                cpu_before = server_cpu_seconds(site.process.pid)
                result = closed_loop(site.base_url, PATHS, clients=args.clients, seconds=args.seconds)
                result.server_cpu_ms = 1000 * (server_cpu_seconds(site.process.pid) - cpu_before) / max(1, result.requests)
                if (processes, cache, gc_tuned) == setups[-1]:
                    stale = staleness(env, site.base_url, late_episode)
            finally:
                site.stop()
            results.append((processes, cache, gc_tuned, result))
            print(f"  measured {_setup(processes, cache, gc_tuned)}", flush=True)
    finally:
        shutil.rmtree(var, ignore_errors=True)
    report(args, results)
    print(f"staleness with {args.processes} processes: an episode finished in another process showed on every "
          f"process's leaderboard {stale * 1000:.0f} ms after its commit (bound: ARENA_PAGE_CACHE_CHECK_SECONDS, "
          f"0.5 s by default, plus a rendering)")


def _setup(processes: int, cache: bool, gc_tuned: bool) -> str:
    return (f"{processes} process{'es' if processes > 1 else ''}, page cache {'on' if cache else 'off'}"
            + ("" if gc_tuned else ", GC default"))


def report(args, results) -> None:
    print()
    print(f"{args.clients} concurrent clients for {args.seconds:g} s each, closed loop on loopback, "
          f"paths {', '.join(PATHS)} alternately; load generator: {results[0][3].generator}")
    print("The load generator competes for the same cores as the server: figures are pessimistic.")
    print(f"load average before the report: {', '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores")
    print(f"target: p95 < {TARGET_P95_MS:.0f} ms")
    print("server CPU/req: the web processes' CPU time over the load divided by the requests answered (load-independent)")
    print("GC default: CPython's collector thresholds, nothing frozen (ARENA_WEB_GC_TUNED=0); "
          "the other rows as `make serve` runs")
    print(f"{'setup':46} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7} {'CPU/req ms':>10}  {'p95 target':>10}  ratio")
    baseline = results[0][3].rate
    for processes, cache, gc_tuned, result in results:
        setup = _setup(processes, cache, gc_tuned)
        met = "met" if result.requests and result.p95_ms < TARGET_P95_MS and not result.errors else "missed"
        print(f"{setup:46} {result.rate:8.1f} {result.p50_ms:8.1f} {result.p95_ms:8.1f} {result.p99_ms:8.1f} "
              f"{result.errors:7d} {result.server_cpu_ms:10.3f}  {met:>10}  " + (f"×{result.rate / baseline:.1f} req/s" if baseline else "—"))


if __name__ == "__main__":
    main()
