"""The queue is fair (arena.queue): submissions take turns, baselines come last,
interrupted episodes first; on every back-end (memory, SQLite, Redis)."""

import pytest
from django.test import override_settings

from arena import queue
from arena.models import Episode, Submission
from arena.queue import Flow
from tests.conftest import new_run
from tests.support.redis_server import RedisServer


@pytest.fixture(params=["memory", "sqlite", "redis"])
def backend(request, monkeypatch, tmp_path):
    """arena.queue on a fresh Huey of that back-end."""
    overrides = {"ARENA_QUEUE": request.param, "ARENA_QUEUE_PATH": str(tmp_path / "queue.sqlite3")}
    redis = None
    if request.param == "redis":
        redis = RedisServer.start()
        overrides["REDIS_URL"] = redis.url
    try:
        with override_settings(**overrides):
            fresh = queue._make_huey()
        monkeypatch.setattr(queue, "huey", fresh)
        monkeypatch.setattr(queue, "play_episode", fresh.task(name="play_episode")(queue.play_episode.func))
        yield request.param
    finally:
        if redis is not None:
            redis.stop()


def _queue(flow: Flow, episode_ids, *, resume=False):
    queue.enqueue_episodes(queue.priorities([(flow, list(episode_ids))], resume=resume))


def _take() -> int | None:
    dequeued = queue.dequeue_episode()
    return None if dequeued is None else dequeued.episode_id


def test_a_new_submission_is_served_before_any_further_baseline_and_takes_turns(backend):
    baselines = Flow("run:1", baseline=True)
    first_user = Flow("submission:1", baseline=False)
    _queue(baselines, range(1, 5001))
    _queue(first_user, range(10_001, 15_001))
    assert _take() == 10_001  # users before baselines, however long the baselines waited
    newcomer = Flow("submission:2", baseline=False)
    _queue(newcomer, range(20_001, 20_011))

    taken = [_take() for _ in range(6)]
    # Its first episode next but one (the other submission's turn came first), then turns.
    assert taken == [10_002, 20_001, 10_003, 20_002, 10_004, 20_003]
    assert queue.pending_count() == 5000 + 4996 + 7


def test_baseline_runs_take_turns_so_every_task_gets_rows_early(backend):
    _queue(Flow("run:1", baseline=True), [1, 2, 3])
    _queue(Flow("run:2", baseline=True), [4, 5, 6])
    assert [_take() for _ in range(7)] == [1, 4, 2, 5, 3, 6, None]


def test_interrupted_episodes_come_first_in_their_kind(backend):
    user, baseline = Flow("submission:1", baseline=False), Flow("run:1", baseline=True)
    _queue(baseline, [1, 2])
    _queue(baseline, [3], resume=True)
    _queue(user, [4, 5])
    _queue(user, [6], resume=True)
    assert queue.pending_episode_ids(resume=True) == {3, 6}
    assert queue.head_band() == queue.USER_RESUME
    # An interrupted baseline episode resumes after the users' new episodes, not before.
    assert [_take() for _ in range(7)] == [6, 4, 5, 3, 1, 2, None]
    assert queue.head_band() is None


def test_a_flow_that_comes_back_after_the_queue_emptied_does_not_jump_ahead(backend):
    # A late-comer starts at the band's virtual time; an old flow that queues again is
    # not put behind it for what it played before.
    _queue(Flow("submission:1", baseline=False), [1, 2, 3])
    assert [_take() for _ in range(3)] == [1, 2, 3]
    _queue(Flow("submission:1", baseline=False), [4, 5])
    _queue(Flow("submission:2", baseline=False), [6, 7])
    assert [_take() for _ in range(4)] == [4, 6, 5, 7]


def test_the_queue_position_counts_the_messages_ahead(backend):
    _queue(Flow("run:1", baseline=True), range(1, 101))
    _queue(Flow("submission:1", baseline=False), range(201, 211))
    priorities = queue.priorities([(Flow("submission:2", baseline=False), [301])])
    queue.enqueue_episodes(priorities)
    # Behind the other submission's first message only: they take turns.
    assert queue.messages_ahead(priorities[301]) == 1
    assert queue.messages_ahead(float(queue.BASELINE * queue.BAND_WIDTH - 50)) == 11 + 50


@pytest.mark.django_db(transaction=True)
def _model_submission(name):
    return Submission.objects.create(name=name, base_url="http://127.0.0.1:9/v1", model="m")


@pytest.mark.django_db(transaction=True)
def test_through_the_services_a_third_submission_is_claimed_before_any_further_baseline(baseline):
    # The scenario of a busy arena: 5,000 baseline episodes, another user's 5,000.
    new_run(baseline("random"), episodes=5000)
    other = new_run(_model_submission("other"), episodes=5000)
    assert _take() == other.episodes.get(index=0).pk
    third = new_run(_model_submission("third"), episodes=3)

    claimed = []
    while (taken := _take()) is not None:
        episode = Episode.objects.select_related("run__submission").get(pk=taken)
        if episode.run_id == third.pk:
            break
        claimed.append(episode)
    assert [e.run.submission.is_baseline for e in claimed] == [False]  # the other's next turn only
    assert taken == third.episodes.get(index=0).pk


@pytest.mark.django_db(transaction=True)
def test_each_episode_notes_the_priority_of_its_message(baseline):
    run = new_run(_model_submission("noted"), episodes=4)
    noted = dict(run.episodes.values_list("pk", "queue_priority"))
    sent = {}
    while (dequeued := queue.huey.dequeue()) is not None:
        sent[dequeued.args[0]] = dequeued.priority
    assert noted == sent and len(set(noted.values())) == 4


@pytest.mark.django_db(transaction=True)
def test_an_account_with_twenty_submissions_takes_one_turn_to_a_newcomers_one(django_user_model):
    busy, newcomer = django_user_model.objects.create(username="busy"), django_user_model.objects.create(username="new")
    for n in range(20):
        new_run(Submission.objects.create(name=f"busy {n}", owner=busy, base_url="http://127.0.0.1:9/v1", model="m"),
                episodes=5)
    new_run(Submission.objects.create(name="first", owner=newcomer, base_url="http://127.0.0.1:9/v1", model="m"),
            episodes=5)

    owners = []
    for _ in range(10):
        owners.append(Episode.objects.select_related("run__submission").get(pk=_take()).run.submission.owner_id)
    # Turns go per account: the newcomer's five episodes in the first ten, not one in 21.
    assert owners.count(newcomer.pk) == 5 and owners.count(busy.pk) == 5
