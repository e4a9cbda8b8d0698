"""What a reasoning model's provider wants given back with each answer (Anthropic's
signed thinking blocks, the Responses API's encrypted reasoning items) survives a worker
restart: an episode whose worker died after some steps is resumed by another worker,
whose client is given back the stored items, so every request it sends is the request
an uninterrupted episode of the same seed sent."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from arena.services.episodes import episode_claim, reap_stale_episodes
from arena.services.submissions import submission_create
from arena.models import Episode, Step
from arena.play.runner import EpisodeRunner
from tests.conftest import new_run
from tests.support.fake_reasoning import fake_reasoning_server

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-test-reasoning-0123456789"
CRASH_AFTER = 2


def _submission(server):
    return submission_create(owner=None, fields={
        "name": f"Reasoner ({server.form})", "provider": server.provider, "base_url": server.base_url,
        "model": "fake-reasoner", "temperature": 1.0, "max_tokens": 64, "reasoning_effort": "high",
        "history_window": 1000,
    }, api_key=KEY, runs=[])


def _crashed_after(episode: Episode, played: Episode, steps: int) -> None:
    """`episode` as a worker that died after storing the first `steps` steps of `played`
    (the same seed, so the same game up to there) leaves it: running and silent."""
    assert episode_claim(episode.id, "crashed-worker")
    copied = [f.attname for f in Step._meta.concrete_fields if f.attname not in ("id", "episode_id")]
    Step.objects.bulk_create(
        Step(episode_id=episode.id, **{name: getattr(step, name) for name in copied})
        for step in played.steps.order_by("index")[:steps]
    )
    Episode.objects.filter(pk=episode.id).update(num_steps=steps, heartbeat_at=timezone.now() - timedelta(hours=1))


@pytest.mark.parametrize("form", ["anthropic", "responses"])
def test_a_resumed_episode_sends_the_reasoning_an_uninterrupted_one_sends(form, allow_loopback):
    with fake_reasoning_server(form) as server:
        submission = _submission(server)
        uninterrupted = new_run(submission, task="infogather/single-feature", fmt="text").episodes.get()
        async_to_sync(EpisodeRunner("steady-worker").run)(uninterrupted.id)
        sent_uninterrupted = [request.json for request in server.requests]
    uninterrupted.refresh_from_db()
    assert uninterrupted.status == Episode.FINISHED, uninterrupted.error
    assert uninterrupted.num_steps > CRASH_AFTER
    assert all(step.reasoning_items for step in uninterrupted.steps.all())

    with fake_reasoning_server(form) as server:
        for _ in range(CRASH_AFTER):  # the calls the crashed worker made
            server.next_turn()
        submission.base_url = server.base_url
        submission.save(update_fields=["base_url"])
        interrupted = new_run(submission, task="infogather/single-feature", fmt="text",
                              first_seed=uninterrupted.seed).episodes.get()
        _crashed_after(interrupted, uninterrupted, CRASH_AFTER)
        assert reap_stale_episodes() == {"requeued": 1, "failed": 0}
        async_to_sync(EpisodeRunner("rescuing-worker").run)(interrupted.id)
        sent_resumed = [request.json for request in server.requests]

    interrupted.refresh_from_db()
    assert interrupted.status == Episode.FINISHED and interrupted.attempts == 2, interrupted.error
    # The first request after the restart carries the earlier answers' items...
    carried = str(sent_resumed[0])
    assert ("signature-1" in carried) if form == "anthropic" else ("encrypted_content" in carried)
    # ...and every request is the one the uninterrupted episode sent.
    assert sent_resumed == sent_uninterrupted[CRASH_AFTER:]
