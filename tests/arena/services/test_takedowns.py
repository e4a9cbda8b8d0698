"""Taking a submission or a run down stops what it had queued and running, so it no longer
spends its owner's endpoint or queue turns; restoring it plays the stopped episodes on
(arena.services.takedowns)."""

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from arena import queue
from arena.models import Episode, Match, Run, Step, Submission
from arena.services.episodes import episode_claim
from arena.services.run_actions import run_cancel
from arena.services.steps import LeaseLost, StepRecord, step_record
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-password-9"
REASON = "abusive name"


@pytest.fixture
def scene(make_model_submission):
    owner = User.objects.create_user("owner", password=PASSWORD)
    staff = User.objects.create_user("operator", password=PASSWORD, is_staff=True)
    submission = make_model_submission(name="Hidden-7B")
    Submission.objects.filter(pk=submission.pk).update(owner=owner)
    submission.refresh_from_db()
    run = new_run(submission, episodes=3)
    return {"owner": owner, "staff": staff, "submission": submission, "run": run}


def _as(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _moderate(scene, target, action, reason=""):
    response = _as(scene["staff"]).post(
        "/moderation/", {"target": target, "target_id": scene[target].pk, "action": action, "reason": reason},
        follow=True,
    )
    assert response.status_code == 200
    return response.content.decode()


def _statuses(run) -> list[str]:
    return list(run.episodes.order_by("index").values_list("status", flat=True))


def _step(index: int) -> StepRecord:
    return StepRecord(
        index=index, observation_text="obs", observation_image=None, prompt_added=[], completion="Action: up",
        reasoning="", parsed_action="up", executed_action="up", legal=True, reward=0.0, done=False,
        end_reason="", tokens_in=None, tokens_out=None, latency_ms=None, error="",
    )


def _start_one(run) -> Episode:
    """The first episode as a worker playing it leaves it: claimed, one step stored."""
    episode = run.episodes.order_by("index").first()
    assert episode_claim(episode.pk, "w1")
    step_record(episode.pk, "w1", _step(0))
    return episode


def test_a_taken_down_submission_plays_nothing_more_and_its_endpoint_gets_no_call(scene, play, fake_model):
    run = scene["run"]
    playing = _start_one(run)
    page = _moderate(scene, "submission", "hide", REASON)
    assert "3 unfinished episodes stopped" in page

    assert _statuses(run) == [Episode.SKIPPED] * 3
    assert set(run.episodes.values_list("end_reason", flat=True)) == {f"taken down by the operators: {REASON}"}
    assert Run.objects.get(pk=run.pk).status == Run.CANCELLED
    assert Run.objects.get(pk=run.pk).steps_total == 1  # what it played counts
    # The worker playing one loses it at its next step; what it played is kept.
    with pytest.raises(LeaseLost):
        step_record(playing.pk, "w1", _step(1))
    assert Step.objects.filter(episode=playing).count() == 1
    # Queue messages already sent find nothing to play: no call reaches the endpoint.
    play(*run.episodes.values_list("pk", flat=True))
    assert fake_model.requests == []
    assert _statuses(run) == [Episode.SKIPPED] * 3
    # Staff read why on the run page.
    assert f"taken down by the operators: {REASON}" in _as(scene["staff"]).get(f"/runs/{run.pk}/").content.decode()


def test_restoring_plays_the_stopped_episodes_on_from_their_last_step(scene, play, fake_model):
    run = scene["run"]
    playing = _start_one(run)
    _moderate(scene, "submission", "hide", REASON)
    queue.huey.flush()  # the messages sent before the takedown were taken and dropped

    page = _moderate(scene, "submission", "restore")
    assert "3 unfinished episodes stopped by the takedown queued again" in page
    assert _statuses(run) == [Episode.QUEUED] * 3
    assert Run.objects.get(pk=run.pk).status == Run.RUNNING
    # The started one goes ahead of those not started, as after a worker's crash.
    assert queue.pending_episode_ids() == set(run.episodes.values_list("pk", flat=True))
    assert queue.pending_episode_ids(resume=True) == {playing.pk}

    play(*run.episodes.order_by("index").values_list("pk", flat=True))
    assert _statuses(run) == [Episode.FINISHED] * 3
    assert Run.objects.get(pk=run.pk).status == Run.FINISHED
    assert fake_model.requests  # the owner's endpoint plays again
    # The resumed episode kept its first step and went on after it.
    assert list(Step.objects.filter(episode=playing).order_by("index").values_list("index", flat=True))[:2] == [0, 1]
    # Its first step counted once: at the takedown, taken back at the restore, counted at its end.
    run.refresh_from_db()
    assert run.steps_total == Step.objects.filter(episode__run=run).count()


def test_a_run_the_owner_cancelled_stays_cancelled_after_a_restore(scene):
    cancelled = scene["run"]
    run_cancel(cancelled)
    other = new_run(scene["submission"], episodes=2, first_seed=10)
    _moderate(scene, "submission", "hide", REASON)
    _moderate(scene, "submission", "restore")
    assert _statuses(cancelled) == [Episode.SKIPPED] * 3
    assert Run.objects.get(pk=cancelled.pk).status == Run.CANCELLED
    assert _statuses(other) == [Episode.QUEUED] * 2


def test_a_taken_down_run_stops_alone_and_resumes_only_once_its_submission_is_back(scene):
    run, submission = scene["run"], scene["submission"]
    other = new_run(submission, episodes=2, first_seed=10)
    _moderate(scene, "run", "hide", REASON)
    assert _statuses(run) == [Episode.SKIPPED] * 3
    assert _statuses(other) == [Episode.QUEUED] * 2  # the submission's other runs play on

    _moderate(scene, "submission", "hide", "spam")
    page = _moderate(scene, "run", "restore")  # its submission is still taken down
    assert "queued again" not in page
    assert _statuses(run) == [Episode.SKIPPED] * 3
    _moderate(scene, "submission", "restore")
    assert _statuses(run) == [Episode.QUEUED] * 3
    assert _statuses(other) == [Episode.QUEUED] * 2


def test_a_suspended_owners_episodes_stop_with_the_reason_and_resume_when_reinstated(scene):
    run = scene["run"]
    staff = _as(scene["staff"])
    staff.post("/moderation/", {"account-username": "owner", "account-action": "suspend", "account-reason": "spam"})
    assert set(run.episodes.values_list("end_reason", flat=True)) == {"taken down by the operators: account suspended: spam"}

    page = _moderate(scene, "submission", "restore")
    assert "stay stopped while its owner is suspended" in page
    assert _statuses(run) == [Episode.SKIPPED] * 3
    response = staff.post("/moderation/", {"account-username": "owner", "account-action": "reinstate"}, follow=True)
    assert "3 episode(s) of those already restored queued again" in response.content.decode()
    assert _statuses(run) == [Episode.QUEUED] * 3


def test_a_taken_down_submissions_matches_are_cancelled_without_saying_why_to_the_other_seat(scene, baseline):
    opponent = baseline("random")
    queued = Match.objects.create(game="tictactoe", first=scene["submission"], second=opponent)
    running = Match.objects.create(game="tictactoe", first=opponent, second=scene["submission"], status=Match.RUNNING)
    unrelated = Match.objects.create(game="tictactoe", first=opponent, second=baseline("expert"))
    _moderate(scene, "submission", "hide", REASON)
    for match in (queued, running):
        match.refresh_from_db()
        assert (match.status, match.end_reason) == (Match.CANCELLED, "cancelled: a seat was taken down by the operators")
    assert Match.objects.get(pk=unrelated.pk).status == Match.QUEUED
