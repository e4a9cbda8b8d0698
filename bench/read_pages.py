"""Uncached read pages against a large arena (issue #32, the read side).

Builds a throw-away arena in a SQLite file holding `--episodes` finished episodes
(100,000 by default) spread over every task: two baseline submissions and
`--submissions` model submissions, each with one run of each task (or of `--tasks` of
them, the suites' in turn), every episode
finished with a score and the per-episode metrics its suite ranks by. The rows are
written with `bulk_create` and each run's aggregates are folded the way the write side
folds them when an episode ends (`arena.metrics.fold`), so the pages read what a worker
would have left.

Then, for one client and the page cache off (what a signed-in visitor, or the first
visitor after a change, gets), it asks each page `--requests` times through Django's
request handler (after two warm-up requests) and prints p50/p95 in milliseconds, for
every page kind (PAGES: the front page, the task, suite (all five), episode-list,
model, run, episode, comparison, cost, ratings and match pages, and the read API's
leaderboards and lists); `--page NAME` (repeatable) measures only the rows named.
"Page cache off" leaves the caches of computed figures on, as a served arena has them:
the task page's tie marks and the paired comparison's per-game intervals are kept by the
runs' aggregates (leaderboard.boards.neighbours, leaderboard.compare.summaries), so the
warm-up requests fill them and those rows time a visit after the first. The row
"compare submissions, after a change" times the first visit after a change instead:
before each of its requests one more episode of each of a's runs ends through the write
side's own path (arena.services.episodes.episode_finish, as a worker ends one), so every
game's figures changed; the tree's write side may have computed them again by then
(leaderboard.compare.refresh), else the visit resamples all 59 games. The CPU those
episode ends took is printed under the table ("write side"). Measured with `--page
"compare submissions" --page "compare submissions, after a change" --baseline <before>
--requests 10 --balrog none` (2 cores, load average 12): CPU p50/p95 of that first visit
539/755 ms before the write side computed the figures, 78/93 ms after; the 59 episode
ends took 250/316 ms of CPU before, 1,208/1,294 ms after (some 16 ms more per episode end
of a run compared, on the worker).

BALROG's leaderboard is imported with `manage.py import_balrog` before the pages are
asked (issue #40): by default the shipped copy of its 36 folders' figures
(fixtures/balrog/experiments) and the one shipped submission with trajectories (58 runs,
255 episodes, 24,027 steps); `--balrog PATH` imports a checkout of balrog-ai/experiments
instead (its 18 folders with trajectories: some 1,000 runs, 4,600 episodes, 400,000
steps), `--balrog none` nothing. BALROG's page with it has its own row and target (`TARGETS`).

The child that asks sets the garbage collector as a web process does before its first
request (arena.web.web_process: start-up's objects frozen, young collections every
20,000 new objects), since that is what serves the pages; `--gc default` keeps CPython's
defaults instead.

With `--baseline REV` the same database is read by the code of git revision REV too
(extracted with `git archive` into a temporary folder), in the same run, taking turns
with this tree (`--rounds`), and the ratio baseline / this tree is printed beside each
page. `--allocator-row` adds this tree once more per round with glibc's own mmap and
trim thresholds (ARENA_WEB_KEEP_FREED_MEMORY=0) instead of the web process's
(arena.runtime.memory): a large page's strings mapped and faulted in afresh at every request.

    nice .venv/bin/python bench/read_pages.py [--episodes 100000] [--tasks 0] [--baseline main]

A page's cost grows with the runs it lists, not with the episodes behind them (the
figures come from the runs' aggregates): `--tasks 0` gives about 1,000 runs of 100
episodes, `--tasks 4` about 70 runs of 1,500.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_P95_MS = 300.0  # issue #42: every page kind under 300 ms uncached at 10^5 episodes
TASK_PAGE = ("lmact", "tictactoe")
BALROG_PAGE = "BALROG page, imported"
# Every page kind of leaderboard/web/urls.py and the read API, one row each (name, path).
# "{run}", "{episode}", "{submission}", "{other_episode}" are filled in by the measuring
# child with the first model run's ids (the rows BUILD writes have no steps or matches:
# an episode page and a match list read what a finished arena would have).
PAGES = (
    ("front page", "/"),
    ("task page", f"/tasks/{TASK_PAGE[0]}/{TASK_PAGE[1]}/"),
    ("task's episodes", f"/tasks/{TASK_PAGE[0]}/{TASK_PAGE[1]}/episodes/?end_reason=step+limit"),
    ("tasks", "/tasks/"),
    ("suite: lmact", "/suites/lmact/"),
    ("suite: balrog", "/suites/balrog/"),
    ("suite: textatari", "/suites/textatari/"),
    ("suite: infogather", "/suites/infogather/"),
    ("suite: adventure", "/suites/adventure/"),
    ("suite episodes", "/suites/lmact/episodes/?runs={run}"),
    ("fidelity", "/suites/balrog/fidelity/"),
    ("submission", "/submissions/{submission}/"),
    ("run", "/runs/{run}/"),
    ("run, filtered", "/runs/{run}/?illegal=1&score_min=0"),
    ("episode", "/episodes/{episode}/"),
    ("episode compare", "/episodes/{episode}/compare/{other_episode}/"),
    ("compare submissions", "/compare/?a={submission}&b={other_submission}"),
    ("compare submissions, after a change", "/compare/?a={submission}&b={other_submission}&after=change"),
    ("cost", "/cost/"),
    ("ratings", "/ratings/"),
    ("ratings method", "/ratings/method/"),
    ("matches", "/matches/"),
    ("/api/leaderboard/", f"/api/leaderboard/?task={TASK_PAGE[0]}/{TASK_PAGE[1]}"),
    ("/api/leaderboard/overall/", "/api/leaderboard/overall/"),
    (BALROG_PAGE, "/suites/balrog/"),
    ("/api/episodes/", f"/api/episodes/?task={TASK_PAGE[0]}/{TASK_PAGE[1]}&illegal=1"),
    ("/api/runs/", "/api/runs/"),
)
AFTER_CHANGE = "compare submissions, after a change"
# Pages whose target is not TARGET_P95_MS: BALROG's page with the whole leaderboard
# imported, under a second (issue #40).
TARGETS = {BALROG_PAGE: 1000.0}
SHIPPED_BALROG = (ROOT / "fixtures" / "balrog" / "experiments", ROOT / "fixtures" / "balrog" / "balrog_submission_llama-3.2-1b.tgz")

# Pages whose bytes the trees must agree on (with --baseline): the timed ones and the
# front page under its queries, the suite pages and the downloads of the same rows.
COMPARED = [path for _, path in PAGES if "{" not in path] + [
    f"/?tab={tab}&columns={columns}&mode={mode}"
    for tab in ("llm", "vlm", "unknown") for columns in ("", "tasks") for mode in ("", "llm", "vlm")
] + [
    "/?strategy=naive", "/?strategy=cot", "/?strategy=reflection",
    f"/api/leaderboard/?task={TASK_PAGE[0]}/{TASK_PAGE[1]}&format=csv", "/api/leaderboard/overall/?format=csv",
    "/tasks/balrog/babyai-goto/", "/suites/balrog/", "/suites/balrog/?mode=vlm", "/suites/balrog/?imported=1",
    "/suites/textatari/", "/suites/lmact/", "/suites/adventure/", "/suites/infogather/",
]

sys.path.insert(0, str(ROOT))
from bench.read_pages_children import BUILD, MEASURE  # noqa: E402  (the children's code)


def child(tree: Path, env: dict, code: str, *arguments: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code, *arguments], cwd=tree, env={**env, "PYTHONPATH": str(tree)},
        capture_output=True, text=True,
    )
    if done.returncode:
        raise SystemExit(f"child in {tree} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def extract(revision: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--submissions", type=int, default=15, help="model submissions (two baselines besides)")
    parser.add_argument("--tasks", type=int, default=0,
                        help="tasks every submission plays (0: all of them, one run each: the most rows a page can get)")
    parser.add_argument("--requests", type=int, default=40, help="requests per page, after two warm-up requests")
    parser.add_argument("--balrog", default="shipped",
                        help="BALROG's leaderboard to import: 'shipped' (fixtures/balrog), a checkout of "
                             "balrog-ai/experiments, or 'none'")
    parser.add_argument("--runs", type=int, default=1, help="measure the same arena this many times, each reported")
    parser.add_argument("--page", action="append", default=[], help="measure only this row of PAGES (repeatable)")
    parser.add_argument("--baseline", help="a git revision whose code reads the same database, for the ratio")
    parser.add_argument("--rounds", type=int, default=2, help="turns the trees take, each a share of the requests")
    parser.add_argument("--allocator-row", action="store_true",
                        help="this tree once more per round with glibc's own mmap and trim thresholds "
                             "(ARENA_WEB_KEEP_FREED_MEMORY=0), against the web process's (arena.runtime.memory)")
    parser.add_argument("--gc", choices=("serving", "default"), default="serving",
                        help="the garbage collector as a web process sets it before serving (arena.web.web_process, "
                             "ARENA_WEB_GC_TUNED), or CPython's defaults")
    args = parser.parse_args()
    pages = [(name, path) for name, path in PAGES if not args.page or name in args.page]
    if not pages:
        parser.error(f"no page named {args.page}; the rows: {', '.join(name for name, _ in PAGES)}")

    scratch = Path(tempfile.mkdtemp(prefix="arena-read-pages-"))
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL", "ARENA_QUEUE")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", ARENA_VAR_DIR=str(scratch / "var"), LOG_LEVEL="ERROR",
               ARENA_PAGE_CACHE="0")
    # One hash seed for every child, so that the trees' pages can be compared byte for
    # byte even where a page's order depended on it: under 16, code from before BALROG's
    # paper rows kept the reported set's order (tied rows in a set's order) orders them
    # as they are ordered now.
    env.setdefault("PYTHONHASHSEED", "16")
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        built = child(ROOT, env, BUILD, str(args.episodes), str(args.submissions), str(args.tasks))
        print(f"built {built['episodes']:,} finished episodes in {built['runs']:,} runs of {built['submissions']} "
              f"submissions in {built['seconds']:.0f} s", flush=True)
        import_balrog(args.balrog, env)
        # (label, tree, settings of its child): the baseline first, this tree last.
        trees = [("this tree", ROOT, {})]
        if args.allocator_row:
            trees.insert(0, ("glibc's thresholds", ROOT, {"ARENA_WEB_KEEP_FREED_MEMORY": "0"}))
        if args.baseline:
            trees.insert(0, (f"baseline {args.baseline}", extract(args.baseline, Path(tempfile.mkdtemp(dir=scratch))), {}))
        # The trees take turns, a share of the requests each round, so a change in the
        # machine's load falls on both alike.
        # With --runs, the same arena is measured that many times over, each reported.
        measured_runs = []
        for run_number in range(args.runs):
            times: dict[str, dict[str, list[float]]] = {label: {name: [] for name, _ in pages} for label, _, _ in trees}
            digests: dict[str, dict[str, str]] = {}
            for round_number in range(args.rounds):
                for label, tree, settings in trees:
                    started = time.perf_counter()
                    measured = child(tree, {**env, **settings}, MEASURE, json.dumps(pages), str(-(-args.requests // args.rounds)),
                                     args.gc, json.dumps(COMPARED))
                    for name, samples in measured["times"].items():
                        times[label].setdefault(name, []).extend(samples)
                    digests.setdefault(label, measured["digests"])
                    print(f"  run {run_number + 1}, round {round_number + 1}: {label} in {time.perf_counter() - started:.0f} s",
                          flush=True)
            measured_runs.append({label: {name: percentiles(samples) for name, samples in by_page.items()}
                                  for label, by_page in times.items()})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for run_number, results in enumerate(measured_runs, 1):
        if args.runs > 1:
            print(f"\nrun {run_number} of {args.runs}")
        report(args, built, results, pages)
    if args.baseline and any(name == AFTER_CHANGE for name, _ in pages):
        # Each tree's child adds episodes before that row's requests: the trees read different arenas.
        print(f"\npages byte for byte: not compared (the {AFTER_CHANGE!r} row changes the arena; leave it out for that)")
    elif args.baseline:
        first, second = digests[trees[0][0]], digests[trees[-1][0]]
        differing = [path for path in COMPARED if first[path] != second[path]]
        print(f"\npages byte for byte: {len(COMPARED) - len(differing)} of {len(COMPARED)} the same in both trees"
              + "".join(f"\n  differs: {path}" for path in differing))


def import_balrog(which: str, env: dict) -> None:
    """BALROG's leaderboard imported into the bench's arena (manage.py import_balrog)."""
    if which == "none":
        return
    started = time.perf_counter()
    for source in SHIPPED_BALROG if which == "shipped" else (Path(which),):
        done = subprocess.run([sys.executable, "manage.py", "import_balrog", str(source)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True)
        print(f"  import_balrog {source.name}: {done.stdout.strip().splitlines()[-1]}", flush=True)
    print(f"imported BALROG's leaderboard in {time.perf_counter() - started:.0f} s", flush=True)


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"p50": statistics.median(ordered), "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
            "n": len(ordered)}


def report(args, built: dict, results: dict, pages: list) -> None:
    print()
    requests = next(iter(next(iter(results.values())).values()))["n"]
    print(f"one client, page cache off, garbage collector: {args.gc}, {requests} requests per page in {args.rounds} rounds, "
          f"{built['episodes']:,} finished episodes in {built['runs']:,} runs; target p95 < {TARGET_P95_MS:.0f} ms")
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print("wall p50/p95 ms, and the CPU time of the request (p50/p95 ms): wall-clock grows with the machine's load, CPU does\n"
          "not; the CPU p95 holds the garbage collector's pauses")
    labels = list(results)
    header = f"{'page':28}" + "".join(f"{label + ' p50/p95 · CPU p50/p95':>48}" for label in labels)
    if len(labels) >= 2:
        header += f"{'p95 ratio':>11}{'CPU ratio':>11}"
    print(header)
    for name, _ in pages:
        line = f"{name:28}" + "".join(
            f"{results[label][name]['p50']:>20.1f} /{results[label][name]['p95']:>8.1f} ·{results[label][name + ' cpu']['p50']:>7.1f}"
            f" /{results[label][name + ' cpu']['p95']:>6.1f}"
            for label in labels
        )
        if len(labels) >= 2:
            line += f"{results[labels[0]][name]['p95'] / results[labels[-1]][name]['p95']:>10.2f}×"
            line += f"{results[labels[0]][name + ' cpu']['p50'] / results[labels[-1]][name + ' cpu']['p50']:>10.2f}×"
        mine = results[labels[-1]][name]["p95"]
        target = TARGETS.get(name, TARGET_P95_MS)
        line += ("  meets" if mine < target else "  misses") + ("" if target == TARGET_P95_MS else f" ({target:.0f} ms)")
        print(line)
    if any(AFTER_CHANGE + " write cpu" in results[label] for label in labels):
        print(f"write side: CPU of the {AFTER_CHANGE!r} row's episode ends before each request (p50/p95 ms, one "
              "episode of each of a's runs): " + "; ".join(
                  f"{label} {results[label][AFTER_CHANGE + ' write cpu']['p50']:.0f} / "
                  f"{results[label][AFTER_CHANGE + ' write cpu']['p95']:.0f}"
                  for label in labels if AFTER_CHANGE + " write cpu" in results[label]))


if __name__ == "__main__":
    main()
