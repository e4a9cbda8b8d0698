"""Two accounts submitting the same endpoint URL are two tenants (issue 41): a stranger's
limit of 1 leaves the first account at its own 4 calls in flight, the stranger's 429s
and Retry-After pause only the stranger, and the run page tells a stranger nothing about
the other account's episodes at that URL. (Before: one gate per URL, with the first
submission's limit; a stranger's limit-1 submission cut alice from 4 calls in flight to 1.)"""

import asyncio
import threading
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.auth.models import User

from arena.models import Episode, Run, Submission
from arena.play.worker import Worker
from arena.play.loading import episode_endpoint
from arena.services.episodes import episode_claim, worker_heartbeat
from tests.conftest import new_run
from tests.support.episodes import record_step
from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.django_db(transaction=True)

ALICE_KEY, STRANGER_KEY = "sk-alice-0123456789", "sk-stranger-0123456789"


class TenantsServer(FakeOpenAIServer):
    """Takes `call_seconds` per completion and counts each API key's calls in flight;
    answers the keys in `refused` with (status, headers) at once instead."""

    def __init__(self, call_seconds: float):
        super().__init__()
        self.call_seconds = call_seconds
        self.in_flight: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self.calls: dict[str, int] = {}
        self.refused: dict[str, tuple[int, dict]] = {}
        self._counting = threading.Lock()

    def authorize(self, request):
        if request.method != "POST":
            return None
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        with self._counting:
            self.calls[key] = self.calls.get(key, 0) + 1
            if key in self.refused:
                status, headers = self.refused[key]
                return status, {"error": {"message": "slow down", "code": status}}, headers
            self.in_flight[key] = self.in_flight.get(key, 0) + 1
            self.peak[key] = max(self.peak.get(key, 0), self.in_flight[key])
        self._sleep(self.call_seconds)
        with self._counting:
            self.in_flight[key] -= 1
        return None


@pytest.fixture
def tenants(db):
    return User.objects.create_user("alice", password="a-long-password-9"), User.objects.create_user(
        "stranger", password="a-long-password-9"
    )


def _owned(make_model_submission, owner, **fields):
    submission = make_model_submission(**fields)
    Submission.objects.filter(pk=submission.pk).update(owner=owner)
    return Submission.objects.get(pk=submission.pk)


def _play_for(worker: Worker, seconds: float, before=None) -> None:
    async def scenario():
        serving = asyncio.create_task(worker.serve())
        if before is not None:
            await before()
        await asyncio.sleep(seconds)
        worker.stop()
        await serving

    async_to_sync(scenario)()


def _wait_until(condition, seconds: float = 20.0):
    async def wait():
        deadline = time.monotonic() + seconds
        while not await sync_to_async(condition)():
            assert time.monotonic() < deadline, "the condition never held"
            await asyncio.sleep(0.05)

    return wait


def test_a_strangers_limit_of_one_on_the_same_url_leaves_the_first_tenant_at_its_own_four(
    make_model_submission, tenants
):
    alice, stranger = tenants
    with TenantsServer(call_seconds=0.3) as server:
        # The stranger's submission comes first: under one gate per URL its limit was the gate's.
        theirs = _owned(make_model_submission, stranger, name="guess", base_url=server.base_url,
                        max_concurrent_requests=1, api_key=STRANGER_KEY)
        mine = _owned(make_model_submission, alice, name="alice", base_url=server.base_url,
                      max_concurrent_requests=4, api_key=ALICE_KEY)
        new_run(theirs, episodes=2)
        worker = Worker(concurrency=8, name="tenants")

        async def then_alice():
            await _wait_until(lambda: server.calls.get(STRANGER_KEY, 0) >= 1)()
            await sync_to_async(new_run)(mine, episodes=6)

        _play_for(worker, 4.0, before=then_alice)

    assert server.peak[ALICE_KEY] == 4, server.peak
    assert server.peak[STRANGER_KEY] == 1, server.peak
    # About 4 calls per 0.3 s for most of the 4 s; one at a time would be about 13.
    assert server.calls[ALICE_KEY] >= 30, server.calls


def test_another_tenants_429_and_retry_after_do_not_pause_the_first(make_model_submission, tenants, settings):
    alice, stranger = tenants
    settings.ARENA_MODEL_MAX_RETRIES = 0  # the stranger's episode ends at its 429; the pause it asked for stays
    with TenantsServer(call_seconds=0.02) as server:
        server.refused[STRANGER_KEY] = (429, {"Retry-After": "30"})
        theirs = _owned(make_model_submission, stranger, name="guess", base_url=server.base_url,
                        max_concurrent_requests=4, api_key=STRANGER_KEY)
        mine = _owned(make_model_submission, alice, name="alice", base_url=server.base_url,
                      max_concurrent_requests=4, api_key=ALICE_KEY)
        new_run(theirs, episodes=1)
        worker = Worker(concurrency=8, name="tenants")
        seen = {}

        async def then_alice():
            await _wait_until(lambda: server.calls.get(STRANGER_KEY, 0) >= 1)()
            run = await sync_to_async(new_run)(mine, episodes=2)
            queued = time.monotonic()
            await _wait_until(lambda: Run.objects.get(pk=run.pk).status == Run.FINISHED, seconds=25)()
            seen["alice finished after"] = time.monotonic() - queued

        _play_for(worker, 0.1, before=then_alice)

    # The stranger's server asked for 30 s: only the stranger waits them.
    assert seen["alice finished after"] < 10, seen
    assert set(mine.runs.get().episodes.values_list("status", flat=True)) == {Episode.FINISHED}
    assert server.calls[ALICE_KEY] >= 6, server.calls


def test_a_worker_counts_each_tenants_episodes_apart(make_model_submission, tenants):
    alice, stranger = tenants
    url = "http://127.0.0.1:9/v1"
    theirs = _owned(make_model_submission, stranger, base_url=url, max_concurrent_requests=1)
    mine = _owned(make_model_submission, alice, base_url=url, max_concurrent_requests=1)
    also_mine = _owned(make_model_submission, alice, name="alice 2", base_url=url + "/", max_concurrent_requests=1)
    keys = {
        name: episode_endpoint(new_run(submission).episodes.get().pk).key
        for name, submission in (("theirs", theirs), ("mine", mine), ("also mine", also_mine))
    }
    # One owner's submissions to one server share its slots (and prompt cache); a stranger's do not.
    assert keys["mine"] == keys["also mine"] != keys["theirs"]
    worker = Worker(concurrency=8, name="tenants")
    worker.endpoint_of = {1: keys["theirs"], 2: keys["theirs"]}  # the stranger's two places taken

    episode_id = Run.objects.filter(submission=mine).get().episodes.get().pk
    assert worker._place_at(episode_endpoint(episode_id)) == keys["mine"]


def test_a_stranger_reads_nothing_about_another_tenants_episodes_at_the_same_url(client, make_model_submission, tenants):
    alice, stranger = tenants
    url = "http://127.0.0.1:9/v1"
    mine = _owned(make_model_submission, alice, base_url=url, max_concurrent_requests=2)
    busy = new_run(mine, episodes=3)
    for episode in busy.episodes.all():
        assert episode_claim(episode.id, "w1")
        record_step(episode.id, 0, "up", worker="w1")
    worker_heartbeat("w1", "host", 1, 3)
    theirs = _owned(make_model_submission, stranger, base_url=url, max_concurrent_requests=1)
    guessed = new_run(theirs, episodes=1)
    client.force_login(stranger)
    page = client.get(guessed.get_absolute_url()).content.decode()
    assert "busy" not in page and "3 episodes" not in page and "Queue position" in page
    # Alice's own queued run at the URL is told why it waits.
    later = new_run(mine, episodes=1)
    assert "The endpoint is busy: 3 episodes of this account&#x27;s submissions" in client.get(
        later.get_absolute_url()
    ).content.decode()
    assert Episode.objects.filter(status=Episode.RUNNING).count() == 3


class SlotServer(FakeOpenAIServer):
    """A llama.cpp server as the arena sees it: records which slot (`id_slot`) each API
    key's calls name, each call taking `call_seconds`."""

    def __init__(self, call_seconds: float):
        super().__init__()
        self.call_seconds = call_seconds
        self.slots: dict[str, set] = {}
        self._counting = threading.Lock()

    def authorize(self, request):
        if request.method != "POST":
            return None
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        with self._counting:
            self.slots.setdefault(key, set()).add((request.json or {}).get("id_slot"))
        self._sleep(self.call_seconds)
        return None


def test_two_accounts_on_one_llama_cpp_server_are_never_pinned_to_the_same_slot(make_model_submission, tenants):
    alice, stranger = tenants
    probe = {"server_kind": "llama.cpp", "server_slots": 2}
    with SlotServer(call_seconds=0.05) as server:
        mine = _owned(make_model_submission, alice, name="alice", base_url=server.base_url,
                      max_concurrent_requests=1, api_key=ALICE_KEY)
        # The same server under another spelling of its address is the same server.
        theirs = _owned(make_model_submission, stranger, name="guess", base_url=server.base_url + "/",
                        max_concurrent_requests=1, api_key=STRANGER_KEY)
        Submission.objects.filter(pk__in=[mine.pk, theirs.pk]).update(endpoint_probe=probe)
        runs = [new_run(Submission.objects.get(pk=s.pk), episodes=1) for s in (mine, theirs)]
        worker = Worker(concurrency=8, name="tenants")
        finished = _wait_until(lambda: all(Run.objects.get(pk=r.pk).status == Run.FINISHED for r in runs), 25)
        _play_for(worker, 0.1, before=finished)

    # Each account's one episode held one slot for its whole life; under one numbering
    # per tenant's gate both were sent to slot 0 and evicted each other's prompt cache.
    assert server.slots[ALICE_KEY] | server.slots[STRANGER_KEY] == {0, 1}, server.slots
    assert len(server.slots[ALICE_KEY]) == len(server.slots[STRANGER_KEY]) == 1, server.slots
