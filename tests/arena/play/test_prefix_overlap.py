"""An episode's prompt prefix (LMAct's demonstrations, the instructions) is stored while
its first model call is under way, as each step's write overlaps the next call, instead
of the call waiting for it (~18 ms on the worker's busy database thread). The order
guarantees stay: no step is stored before its episode's prefix, a lease lost by then
still stops play, and a resumed episode keeps the prefix its first attempt stored.

The prefix's store is slowed here on the database thread, where it runs; the fake
model answers at once."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.models import Episode, Step
from arena.play import runner as runner_module
from arena.services.episodes import reap_stale_episodes
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_SECONDS = 5.0


def _completions(server) -> int:
    return sum(1 for request in server.requests if request.method == "POST")


def _until(condition, seconds: float = WAIT_SECONDS) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


@pytest.fixture
def slowed_prefix(monkeypatch):
    """`slowed_prefix(before)`: the prefix's store runs `before(episode_id)` first, on
    the database thread, and is counted."""
    stores = []

    def install(before):
        real = runner_module.episode_set_prefix

        def store(episode_id, *args, **kwargs):
            before(episode_id)
            stores.append(episode_id)
            return real(episode_id, *args, **kwargs)

        monkeypatch.setattr(runner_module, "episode_set_prefix", store)
        return stores

    return install


def _demonstrating(make_model_submission):
    # Two demonstrations in the prompt: a prefix worth storing.
    return make_model_submission(num_demonstrations=2)


def test_the_first_model_call_does_not_wait_for_the_prefix_store(make_model_submission, fake_model, play,
                                                                  slowed_prefix):
    episode = new_run(_demonstrating(make_model_submission), task="lmact/tictactoe").episodes.get()
    seen = {}

    def after_the_first_call(episode_id):
        seen["called before the store"] = _until(lambda: _completions(fake_model) >= 1)

    stores = slowed_prefix(after_the_first_call)
    play(episode.pk)

    episode.refresh_from_db()
    assert seen == {"called before the store": True}
    assert stores == [episode.pk]
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.prompt_prefix and len(episode.demonstration_seeds) == 2


def test_a_step_is_never_stored_before_its_prefix(make_model_submission, fake_model, play, slowed_prefix):
    episode = new_run(_demonstrating(make_model_submission), task="lmact/tictactoe").episodes.get()
    seen = {}

    def slower_than_the_first_step(episode_id):
        # The first answer came back and its step is ready to be written...
        seen["answered"] = _until(lambda: _completions(fake_model) >= 1)
        time.sleep(0.3)
        # ...and waits for the prefix.
        seen["steps stored before the prefix"] = Step.objects.filter(episode_id=episode_id).count()

    slowed_prefix(slower_than_the_first_step)
    play(episode.pk)

    episode.refresh_from_db()
    assert seen == {"answered": True, "steps stored before the prefix": 0}
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.num_steps == episode.steps.count() > 0


def test_a_lease_lost_before_the_prefix_is_stored_stops_play(make_model_submission, fake_model, play, slowed_prefix):
    episode = new_run(_demonstrating(make_model_submission), task="lmact/tictactoe").episodes.get()

    def taken_over(episode_id):
        _until(lambda: _completions(fake_model) >= 1)
        # Another worker took the episode over meanwhile (this one's lease had expired).
        Episode.objects.filter(pk=episode_id).update(worker="other")

    slowed_prefix(taken_over)
    play(episode.pk, worker="first")

    episode.refresh_from_db()
    # Play stopped at the first step: its answer was not stored, no second call was made.
    assert (episode.status, episode.worker) == (Episode.RUNNING, "other")
    assert not episode.prompt_prefix and not Step.objects.filter(episode=episode).exists()
    assert _completions(fake_model) == 1


def test_a_resumed_episode_keeps_the_prefix_its_first_attempt_stored(make_model_submission, play, slowed_prefix):
    episode = new_run(_demonstrating(make_model_submission), task="lmact/gridworld").episodes.get()
    stores = slowed_prefix(lambda episode_id: None)
    play(episode.pk, worker="first")
    episode.refresh_from_db()
    assert episode.num_steps > 1
    prefix, seeds = episode.prompt_prefix, episode.demonstration_seeds
    # Its worker died after the first step: the later steps never were.
    Step.objects.filter(episode=episode, index__gt=0).delete()
    Episode.objects.filter(pk=episode.pk).update(
        status=Episode.RUNNING, worker="first", num_steps=1, heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    assert reap_stale_episodes() == {"requeued": 1, "failed": 0}

    play(episode.pk, worker="second")

    episode.refresh_from_db()
    assert episode.status == Episode.FINISHED, episode.error
    assert (episode.prompt_prefix, episode.demonstration_seeds) == (prefix, seeds)
    assert stores == [episode.pk]  # stored once, by the first attempt
    assert episode.num_steps == episode.steps.count() > 1
