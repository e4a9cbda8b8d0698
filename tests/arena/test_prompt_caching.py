"""Caching priced: Anthropic caches only what cache_control marks, so the frozen prefix
(LMAct's preamble and demonstrations, BALROG's instructions) is marked; cached input is
priced at the submission's cached-input price; the run page shows the cache hit rate."""

from decimal import Decimal

import pytest

from arena.services.submissions import submission_create
from arena.clients.anthropic import EPHEMERAL, mark_frozen_prefix
from arena.models import Episode, Submission
from tests.conftest import new_run
from tests.support.fake_providers import FakeAnthropicServer, marked_prefix

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_frozen_prefix_ends_with_a_cache_breakpoint_wherever_it_falls():
    assert mark_frozen_prefix("PREFIXrest", 6) == [
        {"type": "text", "text": "PREFIX", "cache_control": EPHEMERAL}, {"type": "text", "text": "rest"}]
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    blocks = [{"type": "text", "text": "demo "}, image, {"type": "text", "text": "now"}]
    assert mark_frozen_prefix(blocks, 5) == [{"type": "text", "text": "demo ", "cache_control": EPHEMERAL},
                                            image, {"type": "text", "text": "now"}]
    assert mark_frozen_prefix("all of it", 9) == [{"type": "text", "text": "all of it", "cache_control": EPHEMERAL}]
    assert mark_frozen_prefix("nothing frozen", 0) == "nothing frozen"


def _anthropic_submission(server, **fields):
    return submission_create(owner=None, fields={
        "name": "Claude (fake)", "provider": "anthropic", "base_url": server.base_url, "model": "claude-fake",
        "temperature": 0.0, "max_tokens": 64, "price_input_per_mtok": Decimal("3"),
        "price_output_per_mtok": Decimal("15"), "price_cached_input_per_mtok": Decimal("0.3"), **fields,
    }, api_key="sk-ant-test-0123456789", runs=[])


def test_lmact_marks_its_preamble_and_demonstrations_and_the_cache_is_priced(allow_loopback, play, client):
    with FakeAnthropicServer() as server:
        submission = _anthropic_submission(server, num_demonstrations=2)
        run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
        play(run.episodes.get().id)
        requests = server.requests

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert len(episode.demonstration_seeds) == 2 and episode.num_steps > 2
    prefix = "".join(part["text"] for part in episode.prompt_prefix if part["type"] == "text")
    assert all(marked_prefix(request.json) == prefix for request in requests)
    steps = list(episode.steps.order_by("index"))
    assert steps[0].cached_tokens_in in (None, 0)  # the first call writes the cache
    assert all(step.cached_tokens_in == len(prefix) // 4 for step in steps[1:])

    # Only the first call wrote the prefix into the cache; the write is on its call.
    written = len(prefix) // 4
    assert steps[0].calls[0]["cache_write_tokens_in"] == written
    assert all("cache_write_tokens_in" not in step.calls[0] for step in steps[1:])

    run.refresh_from_db()
    assert run.cached_tokens_in == sum(step.cached_tokens_in or 0 for step in steps) > 0
    assert run.cache_write_tokens_in == written
    rate = run.cached_tokens_in / run.tokens_spent_in
    assert run.cache_hit_rate == pytest.approx(rate)
    full_price = (run.tokens_spent_in * 3 + run.tokens_spent_out * 15) / 1e6
    # Cache reads at the cached price, the one write at 1.25 times the input price.
    cached_price = full_price - run.cached_tokens_in * (3 - 0.3) / 1e6 + written * 3 * 0.25 / 1e6
    assert run.cost_usd == pytest.approx(cached_price) and run.cost_usd < full_price
    page = client.get(run.get_absolute_url()).content.decode()
    assert f'<span id="run-cache-hit-rate">{100 * rate:.1f} %</span>' in page


def test_cache_writes_are_charged_anthropics_premium_within_the_input():
    submission = Submission(price_input_per_mtok=Decimal("3"), price_output_per_mtok=Decimal("15"),
                            price_cached_input_per_mtok=Decimal("0.3"))
    # 1M in (400k read from the cache, 500k written to it), 0 out.
    assert submission.cost_usd(1_000_000, 0, 400_000, 500_000) == pytest.approx(0.3 + 0.12 + 500_000 * 3.75 / 1e6)
    assert submission.cost_usd(1_000_000, 0, 400_000) == pytest.approx(0.6 * 3 + 0.12)
    # A write count larger than the uncached input is capped by it (counts never price twice).
    assert submission.cost_usd(1_000, 0, 400, 5_000) == pytest.approx(600 * 3.75 / 1e6 + 400 * 0.3 / 1e6)


def test_balrog_marks_its_instructions(allow_loopback, play):
    from tests.support.fake_openai import Fault

    with FakeAnthropicServer() as server:
        submission = _anthropic_submission(server)
        run = new_run(submission, task="balrog/textworld-coin-collector", fmt="text", episodes=1)
        server.enqueue(*[Fault.reply("go north") for _ in range(80)])
        play(run.episodes.get().id)
        requests = server.requests

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    instructions = "".join(p["text"] for p in episode.prompt_prefix if p.get("section") == "instructions")
    assert instructions and all(marked_prefix(request.json) == instructions for request in requests)
    assert episode.steps.filter(cached_tokens_in__gt=0).count() == episode.num_steps - 1
