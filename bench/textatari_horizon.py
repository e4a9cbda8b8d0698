"""TextAtari at its longest horizon: one 100,000-step episode through the real runner.

The agent has zero latency: a scripted baseline that moves Breakout's paddle at random
and never serves the ball, so the game never ends and the episode runs to its step
limit (a random player loses Breakout in about 70 steps and Pong in about 300). It goes
through the real EpisodeRunner and step writer into a fresh SQLite database, with the
screen stored for the viewer and the state snapshotted for resuming. Figures:

- steps/s of the runner against a raw `ale.act` loop of the same length (12 frames per
  step, the same actions' kind), measured in the same run, as a ratio;
- bytes stored per step: the database's growth after VACUUM (step rows, their index,
  image rows) and the screens' PNG files, the text part alone beside them (target
  ≤ 2 KB);
- the screens: time and bytes per step when every step's screen is stored against every
  Nth (N = ARENA_VIEWER_FRAME_EVERY_STEPS);
- peak RSS;
- resuming at step 73 % of the episode (73,000 of 100,000) after a worker died: time to
  the first live step from the latest snapshot, and by replaying every stored step;
- the time to GET a deep step through the steps API.

    .venv/bin/python bench/textatari_horizon.py [--steps 100000] [--frame-every 1]
"""

import argparse
import asyncio
import logging
import os
import random
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAME = "breakout"
TASK = f"textatari/{GAME}"
SEED = 11
TEXT_TARGET_BYTES = 2048


def setup_django(tmp: str, frame_every: int) -> None:
    os.environ["ARENA_VAR_DIR"] = tmp
    os.environ["SQLITE_PATH"] = os.path.join(tmp, "bench.sqlite3")
    os.environ["ARENA_QUEUE"] = "memory"
    os.environ["ARENA_VIEWER_FRAME_EVERY_STEPS"] = str(frame_every)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def never_serving_actions(names) -> list[str]:
    return [name for name in names if "FIRE" not in name]


def make_policy_class():
    from envs.core import RandomLegalPolicy

    class NeverServing(RandomLegalPolicy):
        """Random moves of the paddle, never FIRE: the ball is never served."""

        name = "never-serving"

        def act(self, task) -> str:
            return self._rng.choice(never_serving_actions(task.legal_actions()))

    return NeverServing


def raw_ale_loop(steps: int) -> float:
    """Seconds for `steps` steps of 12 frames straight on ALE, random non-FIRE moves."""
    from envs.textatari.emulator import FRAMES_PER_STEP, ROM_IDS, _ale

    ale_py = _ale()
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", 1)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(ale_py.roms.get_rom_path(ROM_IDS.get(GAME, GAME)))
    actions = [a for a in ale.getMinimalActionSet() if "FIRE" not in a.name]
    rng = random.Random(1)
    start = time.perf_counter()
    for _ in range(steps):
        action = rng.choice(actions)
        for _ in range(FRAMES_PER_STEP):
            ale.act(action)
    return time.perf_counter() - start


def frame_costs(steps: int, every: int) -> tuple[float, float, int]:
    """Per step of a task loop: the seconds spent storing the screen at every
    `every`-th step, and PNG bytes written; with the number of distinct screens."""
    from arena.storage.images import png_size, write_png_bytes
    from envs.registry import make

    def loop() -> tuple[float, int, set]:
        task = make(TASK, "text", max_steps=100000)
        task.reset(SEED)
        policy = make_policy_class()(SEED)
        written, seen, spent = 0, set(), 0.0
        for index in range(steps):
            if index % every == 0:
                start = time.perf_counter()
                data = task.viewer_png()
                ref = write_png_bytes(data, *png_size(data))
                spent += time.perf_counter() - start
                if ref.sha256 not in seen:
                    seen.add(ref.sha256)
                    written += ref.size_bytes
            task.step(policy.act(task))
        return spent, written, seen

    spent, written, seen = loop()
    return spent / steps, written / steps, len(seen)


def random_player():
    """The agent factory of the bench's never-serving random player, the baseline
    submission it plays for, and the spec of its one `steps`-step episode."""
    from arena.services.episodes import episode_claim, reap_stale_episodes
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission
    from arena.play.agents.baseline import BaselineAgent

    policy_class = make_policy_class()

    def agent_factory(submission, run, episode, reflections=()):
        agent = BaselineAgent(submission, run, episode)
        agent.policy = policy_class(episode.seed)
        return agent

    submission = baseline_submission("random", "Random legal actions")
    return agent_factory, submission


def episode_spec(steps: int):
    from arena.services.episodes import episode_claim, reap_stale_episodes
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission

    return RunSpec(task=TASK, format="text", num_episodes=1, first_seed=SEED, options={"max_steps": steps})


def play_episode(steps: int, frame_every: int, keep_snapshot_at: int) -> tuple[int, float, dict]:
    """The episode through the real runner; its id, seconds, and the snapshot stored at
    `keep_snapshot_at` (the runner keeps only the latest, so it is copied aside)."""
    from arena.services.episodes import episode_claim, reap_stale_episodes
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission
    from arena.services import snapshots
    from arena.play.runner import EpisodeRunner

    kept = {}
    store = snapshots.snapshot_store

    def keeping_store(episode_id, worker, index, task_state, agent_state):
        if index == keep_snapshot_at:
            kept.update(index=index, task_state=task_state, agent_state=agent_state)
        store(episode_id, worker, index, task_state, agent_state)

    snapshots.snapshot_store = keeping_store

    agent_factory, submission = random_player()
    episode = run_create(submission, episode_spec(steps)).episodes.get()
    runner = EpisodeRunner("bench-horizon", agent_factory=agent_factory)
    start = time.perf_counter()
    asyncio.run(runner.run(episode.id))
    elapsed = time.perf_counter() - start
    snapshots.snapshot_store = store
    return episode.id, elapsed, kept


class _FirstLiveStep(Exception):
    pass


def time_resume(played_id: int, crash_at: int, kept: dict | None, agent_factory, submission, spec) -> float:
    """Seconds from a worker taking up an episode that died after `crash_at` stored
    steps to its first live decision; from `kept` (a snapshot) or by the full replay."""
    from datetime import timedelta

    from django.db import connection
    from django.utils import timezone

    from arena.services.episodes import episode_claim, reap_stale_episodes
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import baseline_submission
    from arena.models import Episode, EpisodeSnapshot, Step
    from arena.play.runner import EpisodeRunner

    episode = run_create(submission, spec).episodes.get()
    assert episode_claim(episode.id, "dead-worker")
    columns = [f.column for f in Step._meta.concrete_fields if f.column not in ("id", "episode_id")]
    listed = ", ".join(f'"{c}"' for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO "{Step._meta.db_table}" (episode_id, {listed}) '
            f'SELECT %s, {listed} FROM "{Step._meta.db_table}" WHERE episode_id = %s AND "index" < %s',
            [episode.id, played_id, crash_at],
        )
    stale = timezone.now() - timedelta(hours=1)
    Episode.objects.filter(pk=episode.id).update(num_steps=crash_at, heartbeat_at=stale)
    if kept:
        EpisodeSnapshot.objects.create(episode_id=episode.id, **kept)
    reap_stale_episodes()

    started = {}

    def stopping_factory(*args, **kwargs):
        agent = agent_factory(*args, **kwargs)

        async def decide(task, index, prompt_added):
            started["at"] = time.perf_counter()
            started["index"] = index
            raise _FirstLiveStep()

        agent.decide = decide
        return agent

    begin = time.perf_counter()
    # The bench stops the episode at its first live step; the runner logs it as a crash.
    logging.getLogger("arena.play.runner").disabled = True
    asyncio.run(EpisodeRunner("bench-rescuer", agent_factory=stopping_factory).run(episode.id))
    logging.getLogger("arena.play.runner").disabled = False
    assert started.get("index") == crash_at, started
    return started["at"] - begin


def rebuild_snapshot(episode_id: int, steps: int, crash_at: int) -> dict:
    """The snapshot the runner stored after `crash_at` steps of a played episode, made
    again by playing them offline with the same seed and policy (each action checked
    against the stored one): for timing resumes on a database an earlier run left."""
    from arena.models import Step
    from envs.registry import make

    task = make(TASK, "text", max_steps=steps)
    task.reset(SEED)
    policy = make_policy_class()(SEED)
    stored = Step.objects.filter(episode_id=episode_id, index__lt=crash_at).order_by("index")
    for expected in stored.values_list("executed_action", flat=True).iterator(chunk_size=5000):
        action = policy.act(task)
        assert action == expected, "the offline game differs from the stored one"
        task.step(action)
    return {"index": crash_at, "task_state": task.snapshot(), "agent_state": policy.snapshot()}


def resume_figures(episode_id: int, steps: int, crash_at: int, kept: dict) -> None:
    agent_factory, submission = random_player()
    spec = episode_spec(steps)
    with_snapshot = time_resume(episode_id, crash_at, kept, agent_factory, submission, spec)
    print(f"resume at step {crash_at} from the snapshot: {with_snapshot:.2f} s to the first live step")
    replayed = time_resume(episode_id, crash_at, None, agent_factory, submission, spec)
    print(f"resume at step {crash_at} replaying every stored step: {replayed:.1f} s "
          f"(ratio {replayed / with_snapshot:.0f}×); load {os.getloadavg()[0]:.2f}")


def database_bytes(path: str) -> int:
    connection = sqlite3.connect(path)
    connection.execute("VACUUM")
    connection.close()
    return os.path.getsize(path)


def deep_step_get(episode_id: int, index: int, repeats: int = 5) -> float:
    from django.test import Client
    from django.urls import reverse

    client = Client()
    url = reverse("api:episode-step", args=[episode_id, index])
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        response = client.get(url)
        timings.append(time.perf_counter() - start)
        assert response.status_code == 200, response.status_code
        assert response.json()["viewer_frame"], "the step names no screen"
    return sorted(timings)[len(timings) // 2]


def resume_only(directory: str, steps: int) -> None:
    setup_django(directory, 1)
    from django.conf import settings

    from arena.models import Episode

    played = Episode.objects.filter(status=Episode.FINISHED, num_steps=steps).order_by("pk").first()
    every = settings.ARENA_SNAPSHOT_EVERY_STEPS
    crash_at = (steps * 73 // 100) // every * every
    print(f"{TASK}: resuming at step {crash_at} of episode {played.pk} ({steps} steps); "
          f"load {os.getloadavg()[0]:.2f}")
    start = time.perf_counter()
    kept = rebuild_snapshot(played.pk, steps, crash_at)
    print(f"snapshot rebuilt offline in {time.perf_counter() - start:.0f} s")
    resume_figures(played.pk, steps, crash_at, kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=100000, choices=(100, 1000, 10000, 100000))
    parser.add_argument("--frame-every", type=int, default=None, help="store the screen every N steps")
    parser.add_argument("--frame-sample", type=int, default=2000, help="steps of the screen-cost comparison")
    parser.add_argument("--snapshot-every", type=int, default=None, help="snapshot every N steps")
    parser.add_argument("--resume-from", metavar="DIR", help="only time the resumes, on the database an earlier "
                        "run of this bench left in DIR (its episode of --steps steps)")
    args = parser.parse_args()
    if args.snapshot_every:
        os.environ["ARENA_SNAPSHOT_EVERY_STEPS"] = str(args.snapshot_every)
    if args.resume_from:
        resume_only(args.resume_from, args.steps)
        return
    tmp = tempfile.mkdtemp(prefix="bench-textatari-horizon-")
    frame_every = args.frame_every or int(os.environ.get("ARENA_VIEWER_FRAME_EVERY_STEPS", "1"))
    setup_django(tmp, frame_every)
    from django.conf import settings

    from arena.models import Episode, Step

    db_path = os.environ["SQLITE_PATH"]
    crash_at = (args.steps * 73 // 100) // settings.ARENA_SNAPSHOT_EVERY_STEPS * settings.ARENA_SNAPSHOT_EVERY_STEPS
    print(f"{TASK}, {args.steps} steps, screen every {frame_every} step(s), "
          f"snapshot every {settings.ARENA_SNAPSHOT_EVERY_STEPS}; load {os.getloadavg()[0]:.2f}")

    sample = min(args.frame_sample, args.steps)
    every_cost, every_bytes, every_distinct = frame_costs(sample, 1)
    nth_cost, nth_bytes, nth_distinct = frame_costs(sample, max(frame_every, 10))
    print(f"screens over {sample} steps: every step {every_cost * 1e3:.3f} ms and {every_bytes:.0f} B per step "
          f"({every_distinct} distinct); every {max(frame_every, 10)}th {nth_cost * 1e3:.3f} ms and "
          f"{nth_bytes:.0f} B per step ({nth_distinct} distinct)")

    raw_seconds = raw_ale_loop(args.steps)
    before = database_bytes(db_path)
    episode_id, runner_seconds, kept = play_episode(args.steps, frame_every, crash_at)
    episode = Episode.objects.get(pk=episode_id)
    assert episode.status == Episode.FINISHED, episode.error
    steps = Step.objects.filter(episode_id=episode_id).count()
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    after = database_bytes(db_path)
    media = sum(f.stat().st_size for f in (Path(settings.MEDIA_ROOT) / "images").rglob("*.png"))
    frames = len(list((Path(settings.MEDIA_ROOT) / "images").rglob("*.png")))
    with sqlite3.connect(db_path) as connection:
        (text_bytes,) = connection.execute(
            "SELECT SUM(LENGTH(CAST(observation_text AS BLOB)) + LENGTH(CAST(info AS BLOB)) "
            "+ LENGTH(executed_action) + LENGTH(COALESCE(parsed_action, ''))) FROM arena_step WHERE episode_id = ?",
            [episode_id],
        ).fetchone()
    # The machine's load changes over a long run: the raw loop is timed again after the
    # episode and the ratio taken against the mean of both.
    raw_after = raw_ale_loop(args.steps)
    raw_mean = (raw_seconds + raw_after) / 2
    print(f"raw ale.act loop: {args.steps / raw_seconds:.0f} steps/s before the episode, "
          f"{args.steps / raw_after:.0f} after; runner: {steps / runner_seconds:.0f} steps/s "
          f"({steps} steps in {runner_seconds:.0f} s); ratio runner/raw {raw_mean / runner_seconds:.3f}")
    print(f"stored per step: database {(after - before) / steps:.0f} B (text and JSON alone {text_bytes / steps:.0f} B; "
          f"target ≤ {TEXT_TARGET_BYTES} B), screens {media / steps:.1f} B ({frames} distinct PNGs, "
          f"{media / max(frames, 1):.0f} B each)")
    print(f"peak RSS {peak_rss_mb:.0f} MB; snapshot {len(kept.get('task_state', b''))} B task state")

    deep = min(steps - 1, args.steps * 99 // 100)
    print(f"GET step {deep} through the steps API: {deep_step_get(episode_id, deep) * 1e3:.1f} ms (median of 5)")
    resume_figures(episode_id, args.steps, crash_at, kept)


if __name__ == "__main__":
    main()
