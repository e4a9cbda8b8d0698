"""Head-to-head matches a takedown cancelled are played again once the submission is
restored, by the match worker alone, when both seats can play; otherwise they wait,
saying so on the match page, and the other seat's owner never reads why a seat was
taken down (arena.services.takedowns.requeue_matches)."""

import asyncio

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from arena.matches import services as match_services
from arena.matches.player import MatchWorker
from arena.models import Match, Submission
from arena.services.accounts import reinstate_user, suspend_user
from arena.services.takedowns import MATCH_TAKEN_DOWN, MATCH_WAITING, moderate_and_apply

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-password-9"
REASON = "abusive name"
SUSPENSION = "spam everywhere"


@pytest.fixture
def scene(make_model_submission):
    staff = User.objects.create_user("operator", password=PASSWORD, is_staff=True)
    seats = {}
    for name in ("owner", "other"):
        user = User.objects.create_user(name, password=PASSWORD)
        submission = make_model_submission(name=f"{name.title()}-7B", head_to_head=True)
        Submission.objects.filter(pk=submission.pk).update(owner=user)
        submission.refresh_from_db()
        seats[name], seats[f"{name}_submission"] = user, submission
    first, second = match_services.queue_pair("tictactoe", seats["owner_submission"], seats["other_submission"], 0, 1)
    # One of the pair was being played when the takedown came.
    assert match_services.match_claim(second.pk, "worker-1")
    return {"staff": staff, **seats, "matches": [first, second]}


def _moderate(scene, target: str, action: str, reason: str = ""):
    return moderate_and_apply(Submission.objects.get(pk=scene[target].pk), action, reason, by=scene["staff"])


def _states(scene) -> list[tuple[str, str]]:
    return [tuple(Match.objects.filter(pk=m.pk).values_list("status", "end_reason").get()) for m in scene["matches"]]


def _page(user, match) -> str:
    client = APIClient()
    client.force_login(user)
    response = client.get(f"/matches/{match.pk}/")
    return response.content.decode() if response.status_code == 200 else f"{response.status_code}"


def test_a_restore_queues_the_cancelled_matches_and_the_worker_plays_them_to_the_end(scene):
    _moderate(scene, "owner_submission", "hide", REASON)
    assert _states(scene) == [(Match.CANCELLED, MATCH_TAKEN_DOWN)] * 2
    assert all(REASON not in _page(scene["other"], match) for match in scene["matches"])

    applied = _moderate(scene, "owner_submission", "restore")
    assert "2 head-to-head matches cancelled by the takedown queued again." in applied.summary()
    assert _states(scene) == [(Match.QUEUED, "")] * 2
    # No operator command: the match worker takes them as any queued match.
    assert asyncio.run(MatchWorker(name="worker-2").serve(until_idle=True)) == 2
    for match in scene["matches"]:
        match.refresh_from_db()
        assert match.status == Match.FINISHED and match.result is not None and match.num_moves > 0
        page = _page(scene["other"], match)
        assert match.end_reason in page and REASON not in page


def test_a_match_whose_other_seat_is_taken_down_waits_for_it_and_says_so(scene):
    _moderate(scene, "owner_submission", "hide", REASON)
    _moderate(scene, "other_submission", "hide", "another reason")
    applied = _moderate(scene, "owner_submission", "restore")
    assert applied.matches == 0
    assert _states(scene) == [(Match.CANCELLED, MATCH_WAITING)] * 2
    assert MATCH_WAITING in _page(scene["staff"], scene["matches"][0])

    assert _moderate(scene, "other_submission", "restore").matches == 2
    assert _states(scene) == [(Match.QUEUED, "")] * 2


def test_a_suspended_seats_matches_wait_for_the_reinstatement_without_saying_why(scene):
    _moderate(scene, "owner_submission", "hide", REASON)
    suspend_user(scene["other"], SUSPENSION, by=scene["staff"])
    _moderate(scene, "owner_submission", "restore")
    # Restored while its owner is still suspended: the other seat cannot play yet.
    _moderate(scene, "other_submission", "restore")
    assert _states(scene) == [(Match.CANCELLED, MATCH_WAITING)] * 2
    page = _page(scene["owner"], scene["matches"][0])
    assert MATCH_WAITING in page and SUSPENSION not in page and REASON not in page

    reinstate_user(scene["other"])
    assert _states(scene) == [(Match.QUEUED, "")] * 2


def test_a_worker_still_waiting_on_a_match_restored_meanwhile_does_not_play_it_twice(scene):
    match = scene["matches"][1]  # claimed by worker-1 before the takedown
    _moderate(scene, "owner_submission", "hide", REASON)
    _moderate(scene, "owner_submission", "restore")

    async def worker_1_claims_it_again() -> int:
        worker = MatchWorker(name="worker-1")
        # Its task for the match is still waiting on a model's answer, as it was at the takedown.
        waiting = worker.in_flight[match.pk] = asyncio.create_task(asyncio.sleep(0.5))
        waiting.add_done_callback(lambda _task: worker.in_flight.pop(match.pk, None))
        return await worker.serve(until_idle=True)

    played = asyncio.run(worker_1_claims_it_again())
    match.refresh_from_db()
    # It took the other match of the pair only: the waiting task holds this one again.
    assert played == 1 and (match.status, match.worker, match.num_moves) == (Match.RUNNING, "worker-1", 0)
