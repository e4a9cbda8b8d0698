"""The cap of queued episodes per user holds when one account sends its submissions at
the same time (issue 41): both requests pass the early check on the same count, then
only the one whose episodes still fit is created; the other is refused with the cap's
message, beside the field, and creates nothing.

The two requests run in two threads, each with its own database connection, through
the whole API (authentication, validation, the endpoint's probe against a fake model).
Each waits for the other just after the early check: both have been counted before
either creates, the race an early check alone loses."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Episode, Experiment, Submission
from arena.web import api_serializers

pytestmark = pytest.mark.django_db(transaction=True)

CAP = 5


@pytest.fixture
def token(settings):
    settings.ARENA_MAX_QUEUED_EPISODES_PER_USER = CAP
    return Token.objects.create(user=User.objects.create_user("alice")).key


def _in_parallel(send, count=2):
    def each(n):
        try:
            return send(n)
        finally:
            connection.close()  # the thread's own connection

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(each, range(count)))


def _client(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _both_counted_first(monkeypatch):
    both_counted = threading.Barrier(2, timeout=20)
    check = api_serializers.check_queued_episodes

    def check_then_wait(*args, **kwargs):
        check(*args, **kwargs)
        both_counted.wait()

    monkeypatch.setattr(api_serializers, "check_queued_episodes", check_then_wait)


def test_two_submissions_sent_at_once_cannot_both_pass_the_cap(token, fake_model, allow_loopback, monkeypatch):
    _both_counted_first(monkeypatch)
    body = {"name": "m", "base_url": fake_model.base_url, "model": "fake-model", "api_key": "sk-x",
            "tasks": ["lmact/gridworld:ascii"], "episodes_per_task": 3}

    answers = _in_parallel(lambda n: _client(token).post("/api/submissions/", {**body, "name": f"m{n}"}, format="json"))

    assert sorted(answer.status_code for answer in answers) == [201, 400]
    refused = next(answer for answer in answers if answer.status_code == 400).json()
    assert "you have 3 waiting in the queue; this arena allows 5 queued per user" in refused["episodes_per_task"][0]
    assert Submission.objects.count() == 1
    assert Episode.objects.filter(status=Episode.QUEUED).count() == 3


def test_two_experiments_sent_at_once_cannot_both_pass_the_cap(token, make_model_submission, monkeypatch):
    submission = make_model_submission()
    Submission.objects.filter(pk=submission.pk).update(owner=User.objects.get(username="alice"))
    Episode.objects.filter(run__submission=submission).delete()
    _both_counted_first(monkeypatch)
    body = {"kind": "replay", "submission": submission.pk, "task": "lmact/gridworld:ascii", "num_episodes": 4}

    answers = _in_parallel(lambda n: _client(token).post("/api/experiments/", body, format="json"))

    assert sorted(answer.status_code for answer in answers) == [201, 400]
    refused = next(answer for answer in answers if answer.status_code == 400).json()
    assert "you have 4 waiting in the queue; this arena allows 5 queued per user" in refused["num_episodes"][0]
    assert Experiment.objects.count() == 1
    assert Episode.objects.filter(status=Episode.QUEUED).count() == 4
