"""A step the database refuses fails its own episode only.

Steps of many episodes are committed together (arena.play.stepwriter's group commit); these
tests put one step that no database can hold in such a batch — a lone surrogate, a
count beyond SQLite's integers — as if a field had escaped the clients' normalisation,
and check that the other episodes' steps are stored and play on.
"""

import asyncio

import pytest
from asgiref.sync import async_to_sync

from arena.services.episodes import episode_claim, episode_finish, episode_set_prefix
from arena.services.steps import LeaseLost
from arena.play.agents import make_agent
from arena.play.agents.baseline import BaselineAgent
from arena.models import Episode, Run, Step
from arena.play.runner import EpisodeRunner
from arena.services.steps import StepNotStored, StepRecord, step_record, steps_record
from arena.play.stepwriter import StepWriter
from arena.play.worker import Worker
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True)

LONE_SURROGATE = "Action: up \ud800"
TOO_BIG_FOR_SQLITE = 10**20


def record(index=0, completion="Action: up", tokens_in=None) -> StepRecord:
    return StepRecord(
        index=index, observation_text="obs", observation_image=None, prompt_added=[], completion=completion,
        reasoning="", parsed_action="up", executed_action="up", legal=True, reward=0.0, done=False,
        end_reason="", tokens_in=tokens_in, tokens_out=None, latency_ms=None, error="",
    )


def claimed_episodes(baseline, count):
    run = new_run(baseline("random"), episodes=count)
    episodes = list(run.episodes.order_by("index"))
    for episode in episodes:
        assert episode_claim(episode.id, "w")
    return episodes


@pytest.mark.parametrize(
    "bad", [record(completion=LONE_SURROGATE), record(tokens_in=TOO_BIG_FOR_SQLITE)], ids=["surrogate", "overflow"]
)
def test_one_unstorable_step_leaves_the_rest_of_its_batch_stored(baseline, bad):
    first, second, third = claimed_episodes(baseline, 3)
    results = steps_record([(first.id, "w", record(tokens_in=10)), (second.id, "w", bad), (third.id, "w", record())])

    assert results[0] is True and results[2] is True
    assert isinstance(results[1], StepNotStored)
    assert str(results[1]).startswith("step 0 could not be stored: ")
    assert sorted(Step.objects.values_list("episode_id", flat=True)) == [first.id, third.id]
    # What the stored steps spent is still counted, once.
    assert Run.objects.get(pk=first.run_id).tokens_spent_in == 10


def test_a_lost_lease_and_a_refused_step_are_told_apart(baseline):
    held, lost = claimed_episodes(baseline, 2)
    refused, taken_away = steps_record(
        [(held.id, "w", record(completion=LONE_SURROGATE)), (lost.id, "other", record())]
    )
    assert isinstance(refused, StepNotStored) and taken_away is False
    with pytest.raises(StepNotStored, match="step 0 could not be stored"):
        step_record(held.id, "w", record(completion=LONE_SURROGATE))
    with pytest.raises(LeaseLost):
        step_record(lost.id, "other", record())
    assert not Step.objects.exists()


def test_the_step_writer_fails_only_the_waiter_whose_step_was_refused(baseline):
    first, second, third = claimed_episodes(baseline, 3)

    async def write_together():
        writer = StepWriter()
        return await asyncio.gather(
            writer.write(first.id, "w", record()),
            writer.write(second.id, "w", record(completion=LONE_SURROGATE)),
            writer.write(third.id, "w", record()),
            return_exceptions=True,
        )

    results = async_to_sync(write_together)()
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], StepNotStored)
    assert Step.objects.count() == 2


class UnstorableAgent(BaselineAgent):
    """A random player whose steps carry what no database holds (as if a field had
    escaped the clients' normalisation)."""

    async def decide(self, task, index, prompt_added):
        decision = await super().decide(task, index, prompt_added)
        decision.completion = LONE_SURROGATE
        decision.tokens_in = TOO_BIG_FOR_SQLITE
        return decision


def test_in_one_worker_only_the_episode_whose_step_was_refused_fails(baseline):
    honest = new_run(baseline("random"), task="lmact/tictactoe", episodes=6)
    spoiled = new_run(baseline("expert"), task="lmact/tictactoe", episodes=2)

    def agent_factory(submission, run, episode, reflections=()):
        if run.pk == spoiled.pk:
            return UnstorableAgent(submission, run, episode)
        return make_agent(submission, run, episode, reflections=reflections)

    worker = Worker(concurrency=8, name="shared", runner=EpisodeRunner("shared", agent_factory=agent_factory))
    async_to_sync(worker.serve)(until_idle=True)

    assert set(honest.episodes.values_list("status", flat=True)) == {Episode.FINISHED}
    assert all(episode.num_steps == episode.steps.count() > 0 for episode in honest.episodes.all())
    for episode in spoiled.episodes.all():
        assert episode.status == Episode.FAILED
        assert episode.error.startswith("step 0 could not be stored: "), episode.error
        assert "internal error" not in episode.error


def test_a_worker_that_lost_its_episode_cannot_finish_it_or_set_its_prompt(baseline):
    # Another worker took the episode over (its lease expired): the first worker's
    # late writes are refused as a lost lease, and leave the episode as it was.
    (episode,) = claimed_episodes(baseline, 1)
    with pytest.raises(LeaseLost):
        episode_finish(episode.id, "other", score=1.0, end_reason="goal")
    with pytest.raises(LeaseLost):
        episode_set_prefix(episode.id, "other", [], [])
    episode.refresh_from_db()
    assert episode.status == Episode.RUNNING and episode.score is None
