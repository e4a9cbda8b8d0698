"""A worker's place goes to the next episode as soon as an episode's model work is over,
not once its database finish is done (an ending episode's finish queued behind other
episodes' step writes on the worker's one database thread for ~50 ms, its place idle
meanwhile). Its concurrency and each endpoint's hold still count the episodes whose agent
may call; stop and the end of `serve` still wait for the episodes in their finish.

The agents here make no HTTP call (tests/support/calling_agent.py); each test holds the
episodes' finish on the event loop before it reaches the database thread, so the next
episode can claim, load and call meanwhile."""

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync

from arena.models import Episode
from arena.play import runner as runner_module
from arena.play import worker as worker_module
from arena.play.runner import EpisodeRunner
from arena.play.worker import Worker
from tests.conftest import new_run
from tests.support.calling_agent import Calls, calling_agents

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_SECONDS = 5.0


@pytest.fixture
def held_finish(monkeypatch):
    """`held_finish(calls, hold)`: every episode's finish first awaits `hold(episode_id)`
    on the event loop (counted in `calls.finishing`), then goes to the database thread."""

    def install(calls: Calls, hold):
        finish, real_db = runner_module.episode_finish, runner_module.db

        async def db(func, *args, **kwargs):
            if func is finish:
                calls.finishing += 1
                try:
                    await hold(args[0])
                finally:
                    calls.finishing -= 1
            return await real_db(func, *args, **kwargs)

        monkeypatch.setattr(runner_module, "db", db)

    return install


def _worker(calls: Calls, concurrency: int, name: str = "places") -> Worker:
    return Worker(concurrency=concurrency, name=name, runner=EpisodeRunner(name, agent_factory=calling_agents(calls)))


def _served_until_idle(held_finish, concurrency: int, finish_seconds: float) -> Calls:
    """What the agents' calls saw while a worker with `concurrency` places played the
    queue to its end, every episode's finish taking `finish_seconds` first."""
    calls = Calls()

    async def slow_finish(episode_id):
        await asyncio.sleep(finish_seconds)

    held_finish(calls, slow_finish)
    async_to_sync(_worker(calls, concurrency=concurrency).serve)(until_idle=True)
    return calls


def test_a_queued_episode_starts_calling_while_the_last_ones_finish_waits(make_model_submission, held_finish):
    run = new_run(make_model_submission(), episodes=2)
    calls = Calls()
    seen = {}

    async def scenario():
        called_by: set[int] = set()
        another_called = asyncio.Event()

        def on_call(episode_id):
            called_by.add(episode_id)
            if len(called_by) > 1:
                another_called.set()

        async def hold(episode_id):
            if "during the first finish" not in seen:
                try:
                    await asyncio.wait_for(another_called.wait(), WAIT_SECONDS)
                    seen["during the first finish"] = True
                except TimeoutError:
                    seen["during the first finish"] = False

        calls.on_call = on_call
        held_finish(calls, hold)
        await _worker(calls, concurrency=1).serve(until_idle=True)

    async_to_sync(scenario)()

    # One place: the second episode's first model call came while the first's finish waited.
    assert seen == {"during the first finish": True}
    assert calls.most_calling == 1
    assert set(run.episodes.values_list("status", flat=True)) == {Episode.FINISHED}


def test_model_calling_episodes_never_exceed_the_concurrency_while_others_finish(make_model_submission, held_finish):
    run = new_run(make_model_submission(), episodes=6)
    calls = _served_until_idle(held_finish, concurrency=2, finish_seconds=0.3)

    assert set(run.episodes.values_list("status", flat=True)) == {Episode.FINISHED}
    # Both places called while an episode was in its finish, and never more than two.
    assert calls.most_calling_while_finishing == 2
    assert calls.most_calling == 2 and calls.most_alive == 2
    assert calls.alive == 0  # every agent was closed, once


def test_an_endpoints_hold_counts_only_its_episodes_that_may_call(make_model_submission, held_finish):
    # One call at a time there: two episodes held (one calling, one ready for the turn),
    # however many places the worker has.
    run = new_run(make_model_submission(max_concurrent_requests=1), episodes=6)
    calls = _served_until_idle(held_finish, concurrency=4, finish_seconds=0.3)

    assert set(run.episodes.values_list("status", flat=True)) == {Episode.FINISHED}
    assert calls.most_alive == 2
    # While an episode finished, two others held the endpoint.
    assert calls.most_alive_while_finishing == 2


def test_a_stopping_worker_waits_for_the_episode_in_its_finish(make_model_submission, held_finish):
    run = new_run(make_model_submission(), episodes=2)
    calls = Calls()
    seen = {}

    async def scenario():
        released, next_calls = asyncio.Event(), asyncio.Event()

        async def hold(episode_id):
            seen.setdefault("finishing", episode_id)
            await released.wait()

        def on_call(episode_id):
            if seen.get("finishing") not in (None, episode_id):
                next_calls.set()

        calls.on_call = on_call
        held_finish(calls, hold)
        worker = _worker(calls, concurrency=1)
        serving = asyncio.create_task(worker.serve())
        await asyncio.wait_for(next_calls.wait(), WAIT_SECONDS)
        worker.stop()
        await asyncio.sleep(0.3)
        seen["returned before the finish"] = serving.done()
        released.set()
        await asyncio.wait_for(serving, WAIT_SECONDS)

    async_to_sync(scenario)()

    assert seen["returned before the finish"] is False
    finished = Episode.objects.get(pk=seen["finishing"])
    assert finished.status == Episode.FINISHED, finished.error
    # The other one started during that finish, and was given back at its next step.
    other = run.episodes.exclude(pk=finished.pk).get()
    assert other.status == Episode.QUEUED and other.attempts == 0
    assert "was stopped" in other.error


def test_serving_until_idle_returns_after_the_last_finish(make_model_submission, held_finish):
    run = new_run(make_model_submission(), episodes=3)
    calls = _served_until_idle(held_finish, concurrency=1, finish_seconds=0.2)

    assert set(run.episodes.values_list("status", flat=True)) == {Episode.FINISHED}
    assert calls.finishing == 0


def test_a_submissions_episodes_just_taken_are_not_taken_for_a_newcomers(make_model_submission, monkeypatch):
    # The places beyond the concurrency are a newcomer's (arena.play.worker). At start-up
    # the worker takes a submission's first episodes before their claims are written:
    # looking meanwhile, it took the same submission for a newcomer and played up to
    # four more of its episodes at once than it has places.
    monkeypatch.setattr(worker_module, "NEWCOMER_CHECK_SECONDS", 0.0)
    claim_and_load = runner_module.claim_and_load

    def slow_claim(*args):
        time.sleep(0.3)  # a busy database: the claim lands well after the start
        return claim_and_load(*args)

    monkeypatch.setattr(runner_module, "claim_and_load", slow_claim)
    run = new_run(make_model_submission(max_concurrent_requests=8), episodes=6)
    calls = Calls()
    async_to_sync(_worker(calls, concurrency=2).serve)(until_idle=True)

    assert set(run.episodes.values_list("status", flat=True)) == {Episode.FINISHED}
    assert calls.most_alive == 2
