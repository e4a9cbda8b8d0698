"""A long TextAtari episode whose worker dies is resumed from its latest state snapshot:
only the steps stored after the snapshot go through the emulator again, and the episode
ends with exactly the actions, score and prompts of one that was never interrupted. The
console screen is stored beside the steps for the replay, deduplicated, and never sent
to the model."""

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from arena.services.episodes import reap_stale_episodes
from arena.services.runs import RunSpec, run_create
from arena.models import Episode, EpisodeSnapshot, StoredImage
from arena.play.runner import EpisodeRunner
from arena.play.agents import make_agent
from envs.core import Task

pytestmark = pytest.mark.django_db(transaction=True)

STEPS = 100
SNAPSHOT_EVERY = 30
DIES_AT = 83  # the last snapshot before it: step 60


@pytest.fixture(autouse=True)
def snapshots_every(settings):
    settings.ARENA_SNAPSHOT_EVERY_STEPS = SNAPSHOT_EVERY


def _run(submission, task="textatari/pong", seed=5):
    spec = RunSpec(task=task, format="text", num_episodes=1, first_seed=seed, options={"max_steps": STEPS})
    return run_create(submission, spec).episodes.get()


def _dying_at(index: int):
    """An agent factory whose agent's worker dies when step `index` is to be decided:
    nothing more is written, the episode stays running with what was stored."""

    def factory(*args, **kwargs):
        agent = make_agent(*args, **kwargs)
        decide = agent.decide

        async def dying_decide(task, step, prompt_added):
            if step == index:
                raise asyncio.CancelledError()
            return await decide(task, step, prompt_added)

        agent.decide = dying_decide
        return agent

    return factory


def _kill_and_reap(episode: Episode) -> None:
    with pytest.raises(asyncio.CancelledError):
        async_to_sync(EpisodeRunner("dying-worker", agent_factory=_dying_at(DIES_AT)).run)(episode.id)
    Episode.objects.filter(pk=episode.id).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert reap_stale_episodes() == {"requeued": 1, "failed": 0}


def _actions(episode: Episode):
    return list(episode.steps.order_by("index").values_list("parsed_action", "executed_action", "reward"))


def _resume_counting_emulator_steps(episode: Episode, monkeypatch) -> int:
    stepped = []
    original = Task.step

    def counting(self, action_text):
        stepped.append(self.steps_taken)
        return original(self, action_text)

    monkeypatch.setattr(Task, "step", counting)
    async_to_sync(EpisodeRunner("rescuing-worker").run)(episode.id)
    monkeypatch.setattr(Task, "step", original)
    return len(stepped)


def test_a_resumed_random_episode_replays_only_the_steps_after_its_snapshot(baseline, monkeypatch):
    submission = baseline("random")
    uninterrupted = _run(submission)
    async_to_sync(EpisodeRunner("steady-worker").run)(uninterrupted.id)
    uninterrupted.refresh_from_db()
    assert uninterrupted.num_steps == STEPS, "the game must outlast the step limit"

    interrupted = _run(submission)
    _kill_and_reap(interrupted)
    assert EpisodeSnapshot.objects.get(episode=interrupted).index == 60
    emulator_steps = _resume_counting_emulator_steps(interrupted, monkeypatch)

    interrupted.refresh_from_db()
    assert interrupted.status == Episode.FINISHED, interrupted.error
    assert emulator_steps == STEPS - 60
    assert _actions(interrupted) == _actions(uninterrupted)
    assert interrupted.score == uninterrupted.score
    assert interrupted.metrics == uninterrupted.metrics
    assert not EpisodeSnapshot.objects.filter(episode=interrupted).exists()


def _prompts(fake_model) -> list:
    return [request.json["messages"] for request in fake_model.requests if request.json]


def test_a_model_episode_resumed_from_a_snapshot_sends_what_the_full_replay_sends(make_model_submission, fake_model):
    """The model agent is brought up to date from the stored texts, without the task:
    its prompts after the resume are those of the same episode resumed by replaying
    every step through the emulator, and it plays the same game. (Neither is compared
    with the uninterrupted episode's prompts: those may keep a turn more or less, as
    the context window's size is learned from the server's counts, which a resume
    starts learning again.)"""
    submission = make_model_submission()
    from_snapshot, replayed = _run(submission), _run(submission)
    for episode in (from_snapshot, replayed):
        _kill_and_reap(episode)
        # The death may or may not cut short the write of the step before it; both
        # resume from the same stored steps, so that their prompts can be compared.
        episode.steps.filter(index__gte=DIES_AT - 1).delete()
        Episode.objects.filter(pk=episode.pk).update(num_steps=DIES_AT - 1)
    EpisodeSnapshot.objects.filter(episode=replayed).delete()
    prompts = []
    for episode in (from_snapshot, replayed):
        sent_before = len(_prompts(fake_model))
        async_to_sync(EpisodeRunner("rescuing-worker").run)(episode.id)
        prompts.append(_prompts(fake_model)[sent_before:])
        episode.refresh_from_db()
        assert episode.status == Episode.FINISHED, episode.error

    assert len(prompts[0]) == len(prompts[1]) == STEPS - (DIES_AT - 1)
    assert prompts[0] == prompts[1]
    assert _actions(from_snapshot) == _actions(replayed)


def test_the_screen_is_stored_once_per_picture_and_never_sent_to_the_model(make_model_submission, fake_model):
    episode = _run(make_model_submission(), task="textatari/breakout")
    async_to_sync(EpisodeRunner("worker").run)(episode.id)

    frames = [info.get("viewer_frame") for info in episode.steps.order_by("index").values_list("info", flat=True)]
    assert all(frames), "every step names the screen to show beside it"
    distinct = set(frames)
    assert len(distinct) < len(frames) / 2  # the fake model's paddle mostly stays put
    assert StoredImage.objects.filter(sha256__in=distinct).count() == len(distinct)
    sent = str([request.json for request in fake_model.requests if request.json])
    assert not any(sha in sent for sha in distinct)
    assert '"image_url"' not in sent and "'image_url'" not in sent


def test_taking_up_a_long_episode_reads_its_stored_steps_in_a_few_queries(baseline, django_assert_max_num_queries):
    """Resuming at step 70,000 must not cost a query per stored step."""
    from arena.models import Step
    from arena.play.loading import claim_and_load as _claim_and_load

    episode = _run(baseline("random"))
    Step.objects.bulk_create(
        Step(episode=episode, index=i, executed_action="NOOP", legal=True, observation_text="t") for i in range(300)
    )
    with django_assert_max_num_queries(12):
        loaded = _claim_and_load(episode.id, "rescuing-worker")
        assert len(loaded[3]) == 300
        assert sum(step.reward for step in loaded[3]) == 0
