"""Pace by the server (arena.clients.limits, arena.play.pace): the in-flight limit grows
while calls succeed and halves on 429s, overload and timeouts, never past the
submission's cap; Retry-After and used-up rate-limit headers pause new calls; the
submission page shows the pace a worker keeps."""

import asyncio
import time
from datetime import datetime, timedelta, timezone

import pytest

from arena.clients import limits
from arena.clients.limits import EndpointGate, reset_seconds
from tests.conftest import new_run
from tests.support.fake_openai import Fault


@pytest.mark.parametrize(
    "value, seconds",
    [("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("12", 12.0), ("", None), ("soon", None)],
)
def test_reset_times_read_in_each_servers_words(value, seconds):
    assert reset_seconds(value) == (pytest.approx(seconds) if seconds is not None else None)


def test_an_anthropic_reset_time_is_read_as_seconds_from_now():
    when = (datetime.now(timezone.utc) + timedelta(seconds=30)).isoformat().replace("+00:00", "Z")
    assert 28 <= reset_seconds(when) <= 30


def test_the_limit_halves_on_back_off_and_grows_back_one_by_one_to_the_cap(monkeypatch):
    monkeypatch.setattr(limits, "DECREASE_INTERVAL_SECONDS", 0.0)
    published = []
    gate = EndpointGate(8, on_change=published.append)
    gate.observe(429, {})
    assert gate.limit == 4
    gate.observe(None, None, timed_out=True)
    gate.observe(529, {})
    assert gate.limit == 1
    gate.observe(200, {})
    assert gate.limit == 2  # one success in a row at limit 1
    for _ in range(2 + 3 + 4 + 5 + 6 + 7 + 20):
        gate.observe(200, {})
    assert gate.limit == 8  # the cap, never more
    assert gate.backoffs == 3
    assert [p["limit"] for p in published][:4] == [4, 2, 1, 2]


def test_one_burst_of_429s_halves_the_limit_once():
    gate = EndpointGate(8)
    for _ in range(5):
        gate.observe(429, {})
    assert gate.limit == 4 and gate.backoffs == 1


def test_retry_after_and_used_up_rate_limits_pause_every_new_call():
    async def main():
        gate = EndpointGate(4)
        headers = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-limit-requests": "500",
                   "x-ratelimit-reset-requests": "300ms", "x-ratelimit-remaining-tokens": "9000"}
        gate.observe(200, headers)
        assert gate.server_figures["requests"] == {"remaining": 0, "limit": 500, "reset_seconds": 0.3}
        assert "requests allowance" in gate.pace()["pause_reason"]
        started = time.monotonic()
        async with gate.slot():
            waited = time.monotonic() - started
        gate.observe(429, {"retry-after": "0.2"})
        started = time.monotonic()
        async with gate.slot():
            waited_again = time.monotonic() - started
        return waited, waited_again

    waited, waited_again = asyncio.run(main())
    assert 0.25 <= waited < 1.0
    assert 0.18 <= waited_again < 1.0


def test_a_lowered_limit_holds_calls_back_and_a_raised_one_lets_them_go():
    async def main():
        gate = EndpointGate(3)
        gate.limit = 1
        peak = in_flight = 0

        async def call():
            nonlocal peak, in_flight
            async with gate.slot():
                in_flight += 1
                peak = max(peak, in_flight)
                await asyncio.sleep(0.01)
                in_flight -= 1
                gate.observe(200, {})

        await asyncio.gather(*(call() for _ in range(12)))
        return peak, gate.limit

    peak, limit = asyncio.run(main())
    assert 1 < peak <= 3 and limit == 3


@pytest.mark.django_db(transaction=True)
def test_the_submission_page_shows_the_pace_kept_with_the_server(make_model_submission, fake_model, play, client):
    submission = make_model_submission(max_concurrent_requests=4)
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    limit_headers = {"x-ratelimit-remaining-requests": "41", "x-ratelimit-limit-requests": "60",
                     "x-ratelimit-reset-requests": "20s"}
    fake_model.enqueue(Fault.status(429, retry_after=0.1, headers=limit_headers))
    play(run.episodes.get().id)
    time.sleep(0.2)  # the pace is stored from the worker's database thread

    page = client.get(submission.get_absolute_url()).content.decode()
    pace = page.split('id="endpoint-pace">', 1)[1].split("</td>", 1)[0]
    assert "of 4 calls in flight allowed now" in pace
    assert "backed off 1 time" in pace
    assert "41 of 60 requests left (reset in 20 s)" in pace


@pytest.mark.django_db(transaction=True)
def test_a_model_agent_calls_through_its_submissions_gate_on_each_loop(make_model_submission):
    # The agent keeps the gate it found (arena.play.agents.model.ModelAgent._gate), which
    # must stay the one every other caller of the submission's endpoint shares on that
    # loop, and never outlive its loop.
    from arena.models import Episode
    from arena.play.agents import make_agent
    from arena.play.pace import submission_gate

    submission = make_model_submission()
    run = new_run(submission)
    episode = Episode.objects.select_related("run__submission").get(run=run)
    agent = make_agent(submission, run, episode)

    async def gates():
        shared = submission_gate(submission)
        return shared, agent._gate(), agent._gate()

    first_shared, first, again = asyncio.run(gates())
    assert first is again is first_shared
    second_shared, second, _ = asyncio.run(gates())
    assert second is second_shared and second is not first
