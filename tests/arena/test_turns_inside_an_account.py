"""Inside one account, its submissions take the account's turns in turn (issue 41): a
big submission does not starve the same account's later small one, and the account
still gets one turn a round against another's (arena.services.turns, as the worker
takes messages)."""

import pytest

from arena import queue
from arena.models import Episode, Submission
from arena.services.turns import turn_of_account
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True)


def _submission(name, owner):
    return Submission.objects.create(name=name, owner=owner, base_url="http://127.0.0.1:9/v1", model="m")


def _play_turn() -> Episode | None:
    """Take a message as the worker does and claim the episode whose turn it is."""
    while (dequeued := queue.dequeue_episode()) is not None:
        taken = turn_of_account(dequeued)
        # The runner claims only a queued episode; a stale message is dropped.
        if Episode.objects.filter(pk=taken.episode_id, status=Episode.QUEUED).update(status=Episode.RUNNING):
            return Episode.objects.select_related("run__submission").get(pk=taken.episode_id)
    return None


def test_a_big_submission_does_not_starve_its_accounts_later_small_one(django_user_model):
    alice, bob = (django_user_model.objects.create(username=name) for name in ("alice", "bob"))
    big = new_run(_submission("big", alice), episodes=20)
    small = new_run(_submission("small", alice), episodes=3)
    other = new_run(_submission("bob's", bob), episodes=5)

    played = [_play_turn() for _ in range(10)]
    # Accounts still alternate, one turn each a round.
    assert [e.run.submission.owner_id for e in played] == [alice.pk, bob.pk] * 5
    # Alice's turns go to her submissions in turn: the small one is done in six turns,
    # not after the big one's twenty.
    alices = [e.run.submission.name for e in played if e.run.submission.owner_id == alice.pk]
    assert alices == ["big", "small", "big", "small", "big"]
    # Bob's five are played; her turns come one after the other now.
    assert [_play_turn().run.submission.name for _ in range(2)] == ["small", "big"]
    assert not small.episodes.filter(status=Episode.QUEUED).exists()
    # Each submission's episodes in their own order, none lost nor played twice.
    while (episode := _play_turn()) is not None:
        played.append(episode)
    assert not Episode.objects.filter(status=Episode.QUEUED).exists()
    big_order = [e.index for e in played if e.run_id == big.pk]
    assert big_order == sorted(big_order)
    assert Episode.objects.filter(status=Episode.RUNNING).count() == 28 and other.episodes.count() == 5


def test_the_queue_position_follows_the_swap(django_user_model):
    alice = django_user_model.objects.create(username="alice")
    new_run(_submission("big", alice), episodes=4)
    small = new_run(_submission("small", alice), episodes=1)
    first, second = _play_turn(), _play_turn()
    assert (first.run.submission.name, second.run.submission.name) == ("big", "small")
    # The big one's second episode gave its turn to the small one and took its place:
    # still queued, with a message, at the small one's former priority.
    small_episode = small.episodes.get()
    assert small_episode.status == Episode.RUNNING
    waiting = Episode.objects.filter(status=Episode.QUEUED).order_by("pk")
    assert [e.index for e in waiting] == [1, 2, 3]
    assert waiting[0].queue_priority < waiting[2].queue_priority  # behind the big one's others now
    assert set(queue.pending_episode_ids()) >= set(waiting.values_list("pk", flat=True))
    # …yet the big one's episodes still play in their order.
    assert [_play_turn().index for _ in range(3)] == [1, 2, 3]
    assert _play_turn() is None


def test_episodes_without_an_account_and_baselines_keep_their_order(baseline):
    run = new_run(baseline("random"), episodes=3)
    assert [_play_turn().pk for _ in range(3)] == list(run.episodes.order_by("index").values_list("pk", flat=True))
