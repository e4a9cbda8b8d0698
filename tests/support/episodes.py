"""Episodes in a chosen state without playing a game: scripted actions, or skipped
because the run's budget ran out. Used by the page, live-channel and browser tests
(the browser tests run these inside the site's own process environment)."""

from __future__ import annotations

from django.db import transaction

from arena.services.episodes import episode_claim, episode_finish, run_budget_exhausted
from arena.services.runs import RunSpec, run_create
from arena.services.steps import step_record
from arena.models import Episode, Submission
from arena.services.steps import StepRecord

WORKER = "scripted-test-worker"


def record_step(episode_id: int, index: int, action: str, *, done: bool = False, worker: str = WORKER) -> None:
    step_record(
        episode_id,
        worker,
        StepRecord(
            index=index, observation_text=f"obs {index}", observation_image=None, prompt_added=[],
            completion=f"Action: {action}", reasoning="", parsed_action=action, executed_action=action, legal=True,
            reward=0.0, done=done, end_reason="step limit" if done else "",
            tokens_in=None, tokens_out=None, latency_ms=None, error="",
        ),
    )


def claimed_episode(submission: Submission, spec: RunSpec, worker: str = WORKER) -> Episode:
    """The first episode of a new run of `spec`, already claimed by `worker`.

    Created and claimed in one transaction: the site's own worker would otherwise take
    the queued episode between the two (it claims within milliseconds)."""
    with transaction.atomic():
        episode = run_create(submission, spec).episodes.order_by("index").first()
        assert episode_claim(episode.id, worker)
    episode.refresh_from_db()
    return episode


def scripted_episode(submission: Submission, actions: list[str], *, seed: int = 4) -> Episode:
    """A finished lmact/gridworld episode whose executed actions are `actions`.

    All in one transaction: the episode is queued on commit, when it is already
    finished, so a running worker finds nothing to play."""
    with transaction.atomic():
        return _scripted_episode(submission, actions, seed)


def _scripted_episode(submission: Submission, actions: list[str], seed: int) -> Episode:
    run = run_create(submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1, first_seed=seed))
    episode = run.episodes.get()
    assert episode_claim(episode.id, WORKER)
    for index, action in enumerate(actions):
        record_step(episode.id, index, action, done=index == len(actions) - 1)
    episode_finish(episode.id, WORKER, score=0.0, end_reason="step limit")
    episode.refresh_from_db()
    return episode


def skipped_episode(submission: Submission) -> Episode:
    """The second episode of a two-episode run whose budget ran out during the first
    (in one transaction, as `scripted_episode`)."""
    with transaction.atomic():
        return _skipped_episode(submission)


def _skipped_episode(submission: Submission) -> Episode:
    run = run_create(submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=2))
    playing, never_played = run.episodes.order_by("index")
    assert episode_claim(playing.id, WORKER)
    run_budget_exhausted(run.id, playing.id, WORKER)
    never_played.refresh_from_db()
    return never_played


def scripted_run(submission: Submission, scores: list, *, task: str = "lmact/gridworld", fmt: str = "ascii",
                 first_seed: int = 0, metrics: list[dict] | None = None, steps: int = 2, preset: bool = True):
    """A finished run of `task` with one episode per score (seeds first_seed, …), each
    `steps` scripted steps long, with the given per-episode metrics (in one transaction,
    as `scripted_episode`). A model submission's run is planned under its suite's paper
    preset (a comparable row, arena.protocol: the preset's settings, and its episode
    count of which these are the ones played) unless `preset` is False."""
    with transaction.atomic():
        run = run_create(
            submission, RunSpec(task=task, format=fmt, num_episodes=len(scores), first_seed=first_seed)
        )
        for episode, score, extra in zip(run.episodes.order_by("index"), scores, metrics or [None] * len(scores)):
            assert episode_claim(episode.id, WORKER)
            for index in range(steps):
                record_step(episode.id, index, "up", done=index == steps - 1)
            episode_finish(episode.id, WORKER, score=score, end_reason="step limit", metrics=extra)
        run.refresh_from_db()
        if preset and not submission.is_baseline:
            from tests.conftest import as_preset

            run = as_preset(run)
        return run
