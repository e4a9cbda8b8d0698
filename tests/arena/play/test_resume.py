"""A resumed episode plays the game an uninterrupted one plays (same seed ⇒ same episode,
across crashes): for every baseline of every task, an episode whose worker died after
some step is reaped, resumed by another worker, and ends with exactly the actions of an
episode of the same seed that was never interrupted.

TextAtari's games play a test-only 20-step limit, except one game, which plays the
suite's shortest (100 steps) for each baseline: the replay of a planning expert asks
it again at every stored step, so each test plays its game twice, and 100 steps of the
27 games' experts took 137 of the file's 316 s on a loaded machine."""

import random
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from arena.services.episodes import episode_claim, reap_stale_episodes
from arena.services.runs import RunSpec, run_create
from arena.models import Episode, Step
from arena.play.runner import EpisodeRunner
from envs.core import baselines_of
from envs.registry import all_tasks

pytestmark = pytest.mark.django_db(transaction=True)

SEED = 7
SHORT_STEPS = 20
WHOLE_TEXTATARI_GAME = "textatari/breakout"
BASELINES = [(task_id, policy) for task_id, cls in sorted(all_tasks().items()) for policy in baselines_of(cls)]


def _actions(episode: Episode) -> list[tuple[str | None, str]]:
    return list(episode.steps.order_by("index").values_list("parsed_action", "executed_action"))


def _crashed_after(episode: Episode, played: Episode, steps: int) -> None:
    """`episode` as a worker that died after storing `steps` steps leaves it: running,
    silent, with the steps that worker stored (those an uninterrupted episode of the
    same seed stores, since the game is the same up to there)."""
    assert episode_claim(episode.id, "crashed-worker")
    stored = played.steps.order_by("index")[:steps]
    copied = [f.attname for f in Step._meta.concrete_fields if f.attname not in ("id", "episode_id")]
    Step.objects.bulk_create(
        Step(episode_id=episode.id, **{name: getattr(step, name) for name in copied}) for step in stored
    )
    Episode.objects.filter(pk=episode.id).update(num_steps=steps, heartbeat_at=timezone.now() - timedelta(hours=1))


def _short_run(submission, task_id: str, fmt: str, seed: int):
    """A one-episode run with the task's shortest step-limit setting, if it has one
    (TextAtari's 1,000 steps of a planning expert would take minutes)."""
    limits = all_tasks()[task_id].settings.get("max_steps")
    options = {"max_steps": min(limits)} if limits else {}
    spec = RunSpec(task=task_id, format=fmt, num_episodes=1, first_seed=seed, options=options)
    return run_create(submission, spec)


@pytest.fixture
def short_textatari(monkeypatch):
    """TextAtari games other than WHOLE_TEXTATARI_GAME offer SHORT_STEPS as their
    shortest step limit during the test (replayed and resumed like any other limit)."""
    for task_id, cls in all_tasks().items():
        if task_id.startswith("textatari/") and task_id != WHOLE_TEXTATARI_GAME:
            limits = cls.settings["max_steps"]
            assert SHORT_STEPS < min(limits)
            monkeypatch.setattr(cls, "settings", {**cls.settings, "max_steps": (*limits, SHORT_STEPS)})


def _play_uninterrupted(submission, task_id: str, fmt: str) -> Episode:
    """A finished episode of at least two steps (so there is a step to resume after):
    the first such seed from SEED on."""
    for seed in range(SEED, SEED + 20):
        episode = _short_run(submission, task_id, fmt, seed).episodes.get()
        async_to_sync(EpisodeRunner("steady-worker").run)(episode.id)
        episode.refresh_from_db()
        assert episode.status == Episode.FINISHED, episode.error
        if episode.num_steps >= 2:
            return episode
    raise AssertionError(f"no seed from {SEED} on plays {task_id} for more than one step")


@pytest.mark.parametrize("task_id,policy", BASELINES, ids=[f"{t}-{p}" for t, p in BASELINES])
def test_a_resumed_baseline_episode_plays_the_uninterrupted_game(task_id, policy, baseline, short_textatari):
    submission = baseline(policy)
    fmt = all_tasks()[task_id].formats[0]
    uninterrupted = _play_uninterrupted(submission, task_id, fmt)

    interrupted = _short_run(submission, task_id, fmt, uninterrupted.seed).episodes.get()
    crash_after = random.Random(f"{task_id}/{policy}").randrange(1, uninterrupted.num_steps)
    _crashed_after(interrupted, uninterrupted, crash_after)
    assert reap_stale_episodes() == {"requeued": 1, "failed": 0}
    async_to_sync(EpisodeRunner("rescuing-worker").run)(interrupted.id)

    interrupted.refresh_from_db()
    assert interrupted.status == Episode.FINISHED, interrupted.error
    assert interrupted.attempts == 2
    assert _actions(interrupted) == _actions(uninterrupted), f"diverged after step {crash_after}"
    assert interrupted.score == uninterrupted.score
