"""Workers killed at random moments leave nothing behind (issue 16).

A throw-away arena gets ~500 quick baseline episodes (lmact/gridworld, random and
expert). Embedded mode (SQLite database and queue): one worker process at a time plays
them; it is SIGKILLed at a random moment once it is playing, and a fresh worker takes
over, `--kills` times. Scaled mode (`--scaled`: PostgreSQL and Redis servers started as
the tests start them): two worker processes play at once; `--kills` times one of them,
picked at random, is SIGKILLed at a random moment once it is playing and a fresh worker
replaces it; after the last kill the survivor is stopped as an operator would (SIGTERM:
it finishes its episodes). In both modes a last worker then plays until nothing is left
(`--until-idle`). Prints, after each kill, what is left so far for a later worker to
recover (episodes running with no live worker, queued ones whose message is gone) and
how many have ended, then:

- episodes not finished (queued or running: must be 0) and failed ones;
- episodes whose step indices have a duplicate or a gap (must be 0);
- episodes whose actions differ from an uninterrupted playthrough of the same seed,
  the task and the policy played directly without the arena (must be 0);
- how soon after the last worker started the interrupted episodes were resumed, and
  how many episodes waiting to start it had claimed by then (resumed first: 0).

In scaled mode also the deadlocks the PostgreSQL server detected (must be 0).

    nice .venv/bin/python bench/kill_resume.py [--episodes 500] [--kills 3] [--seed 0] [--scaled]
"""

import argparse
import contextlib
import os
import random
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.postgres import PostgresServer  # noqa: E402
from tests.support.redis_server import RedisServer  # noqa: E402
from tests.support.worker_process import Arena  # noqa: E402

TASK = "lmact/gridworld"
POLICIES = ("random", "expert")
STALE_SECONDS = 5
CONCURRENCY = 32


def _progress() -> tuple[int, int]:
    """(steps stored, episodes ended) so far."""
    from arena.models import Episode, Step

    return Step.objects.count(), Episode.objects.filter(status__in=Episode.TERMINAL).count()


def _create_runs(episodes: int) -> None:
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission

    for policy in POLICIES:
        submission = baseline_submission(policy, policy.title())
        spec = RunSpec(task=TASK, format="ascii", num_episodes=episodes // len(POLICIES))
        run_create(submission, spec)


def _start_worker(arena: Arena, *options: str):
    return arena.start_worker("--concurrency", str(CONCURRENCY), *options)


def _kill_at_random(worker, rng: random.Random, alive: tuple = ()) -> dict:
    """Let the worker play a random while once it has stored a step, SIGKILL it; what
    the dead workers left so far (not counting the running episodes of the workers
    still `alive`)."""
    from arena import queue
    from arena.models import Episode, Step

    deadline = time.monotonic() + 60
    while not Step.objects.filter(episode__worker__contains=f"-{worker.pid}-").exists():  # still starting up
        if time.monotonic() > deadline or worker.poll() is not None:
            raise SystemExit("the worker never started playing:\n" + worker.log.read_text()[-3000:])
        time.sleep(0.05)
    time.sleep(rng.uniform(0.0, 2.0))
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    pending = queue.pending_episode_ids()
    queued = set(Episode.objects.filter(status=Episode.QUEUED, enqueued_at__isnull=False).values_list("pk", flat=True))
    running = Episode.objects.filter(status=Episode.RUNNING)
    for other in alive:
        running = running.exclude(worker__contains=f"-{other.pid}-")
    return {
        "running_mid_play": running.filter(num_steps__gt=0).count(),
        "running_no_step_yet": running.filter(num_steps=0).count(),
        "queued_message_lost": len(queued - pending),
        "ended": _progress()[1],
    }


def _kill_one_at_a_time(arena: Arena, rng: random.Random, kills: int) -> None:
    for kill in range(1, kills + 1):
        print(f"kill {kill}:", _kill_at_random(_start_worker(arena), rng), flush=True)


def _kill_among_two(arena: Arena, rng: random.Random, kills: int) -> None:
    """Two workers play at once; a random one of them is killed and replaced, `kills`
    times; the survivor is then stopped gracefully."""
    workers = [_start_worker(arena), _start_worker(arena)]
    for kill in range(1, kills + 1):
        victim = rng.choice(workers)
        workers.remove(victim)
        left = _kill_at_random(victim, rng, alive=tuple(workers))
        print(f"kill {kill} (worker {victim.pid}, {len(workers)} still playing):", left, flush=True)
        if kill < kills:
            workers.append(_start_worker(arena))
    for survivor in workers:
        survivor.send_signal(signal.SIGTERM)
        if survivor.wait(timeout=300) != 0:
            raise SystemExit("the surviving worker failed:\n" + survivor.log.read_text()[-3000:])
    print(f"survivor stopped (SIGTERM) after finishing its episodes; ended: {_progress()[1]}", flush=True)


def _uninterrupted_actions(seed: int, policy: str) -> list[str]:
    from envs.core import make_policy
    from envs.registry import get_task_class, make

    task = make(TASK, "ascii")
    task.reset(seed)
    player = make_policy(get_task_class(TASK), policy, seed)
    actions = []
    while not task.done:
        actions.append(task.step(player.act(task)).executed_action)
    return actions


def _figures(last_worker_pid: int, last_started) -> dict:
    from arena.models import Episode, Step

    episodes = list(Episode.objects.select_related("run__submission"))
    actions: dict[int, list[tuple[int, str]]] = {e.pk: [] for e in episodes}
    for episode_id, index, action in Step.objects.order_by("episode_id", "index").values_list(
        "episode_id", "index", "executed_action"
    ):
        actions[episode_id].append((index, action))
    gaps = sum(1 for e in episodes if [i for i, _ in actions[e.pk]] != list(range(e.num_steps)))
    diverged = [
        e.pk for e in episodes
        if e.status == Episode.FINISHED
        and [a for _, a in actions[e.pk]] != _uninterrupted_actions(e.seed, e.run.submission.policy)
    ]
    by_last = [e for e in episodes if f"-{last_worker_pid}-" in e.worker]
    resumed = [e for e in by_last if e.attempts > 1]
    delays = [(e.started_at - last_started).total_seconds() for e in resumed]
    last_resumed = max((e.started_at for e in resumed), default=None)
    fresh_before = sum(1 for e in by_last if e.attempts == 1 and last_resumed and e.started_at < last_resumed)
    return {
        "episodes": len(episodes),
        "not_finished": sum(1 for e in episodes if e.status in (Episode.QUEUED, Episode.RUNNING)),
        "failed": sum(1 for e in episodes if e.status == Episode.FAILED),
        "resumed_in_all": sum(1 for e in episodes if e.attempts > 1),
        "index_gaps_or_duplicates": gaps,
        "diverged": len(diverged),
        "resumed_by_last_worker": len(resumed),
        "resume_delay_s": (round(statistics.median(delays), 2), round(max(delays), 2)) if delays else None,
        "fresh_started_before_last_resumed": fresh_before,
    }


@contextlib.contextmanager
def _servers(scaled: bool):
    """The URLs of fresh PostgreSQL and Redis servers in scaled mode, else nothing."""
    if not scaled:
        yield {}
        return
    with PostgresServer.start() as postgres, RedisServer.start() as redis:
        yield {"database_url": postgres.url, "redis_url": redis.url, "postgres": postgres}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0, help="of the kill moments")
    parser.add_argument("--scaled", action="store_true", help="PostgreSQL + Redis, two workers at once")
    args = parser.parse_args()
    with _servers(args.scaled) as servers:
        postgres = servers.pop("postgres", None)
        _play(args, servers)
        if postgres is not None:
            print(f"  deadlocks_detected: {postgres.deadlocks_detected()}")


def _play(args, servers: dict) -> None:
    rng = random.Random(args.seed)
    # Enough attempts that no episode is given up on here: this measures resuming.
    arena = Arena(
        **servers, ARENA_HEARTBEAT_STALE_SECONDS=str(STALE_SECONDS), ARENA_MAX_EPISODE_ATTEMPTS=str(args.kills + 2)
    )
    for name in ("REDIS_URL", "DATABASE_URL", "ARENA_QUEUE"):
        os.environ.pop(name, None)
    os.environ.update(arena.env)
    import django
    from django.core.management import call_command
    from django.db import connections
    from django.utils import timezone

    django.setup()
    try:
        call_command("migrate", verbosity=0)
        _create_runs(args.episodes)
        (_kill_among_two if args.scaled else _kill_one_at_a_time)(arena, rng, args.kills)
        # The killed workers' episodes must look abandoned before anyone takes them.
        time.sleep(STALE_SECONDS + 0.5)
        last_started = timezone.now()
        began = time.monotonic()
        last = _start_worker(arena, "--until-idle")
        if last.wait(timeout=600) != 0:
            raise SystemExit("the last worker failed:\n" + last.log.read_text()[-3000:])
        print(f"last worker played the rest in {time.monotonic() - began:.1f} s")
        for name, value in _figures(last.pid, last_started).items():
            print(f"  {name}: {value}")
    finally:
        connections.close_all()  # before the database server stops
        arena.close()


if __name__ == "__main__":
    main()
