"""The costs behind the rows of the fixes bench/balrog_throughput.py prints under each task:
each measures one part of a step two ways (before a fix and after it, or two ways of doing
the same thing) on the same games, in CPU milliseconds."""

import asyncio
import time


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
    from bench.balrog_loops import raw_loop

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
