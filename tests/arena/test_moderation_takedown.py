"""Moderation takes content down (issue 41, finding 6): a hidden submission's pages, runs,
episodes, live channel, API rows and exports answer 404 to everyone but staff and its
owner, who still opens its pages and API details (under a banner saying why:
tests/leaderboard/web/test_taken_down_pages.py) but not its exports, lists nor live
channel, and reads the reason on their submission list too; a suspended user can no
longer sign in, use their token or submit, and their submissions are hidden."""

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Episode, ModerationAction, Submission
from arena.services.submissions import submission_create
from leaderboard.selectors.episodes import episode_exists
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-password-9"
REASON = "abusive name"


@pytest.fixture
def scene():
    owner = User.objects.create_user("owner", password=PASSWORD)
    staff = User.objects.create_user("operator", password=PASSWORD, is_staff=True)
    submission = submission_create(
        owner=owner, fields={"name": "Hidden-7B", "base_url": "http://example.org/v1", "model": "m"}, api_key="", runs=[]
    )
    run = new_run(submission, episodes=1)
    episode = run.episodes.get()
    return {"owner": owner, "staff": staff, "submission": submission, "run": run, "episode": episode}


# Its owner still reads every address below but these (arena.moderation: owner_reads).
EXPORTS = ("steps.jsonl", "episodes.zip", "balrog.tgz")


def _addresses(scene) -> list[str]:
    submission, run, episode = scene["submission"], scene["run"], scene["episode"]
    return [
        f"/submissions/{submission.pk}/", f"/runs/{run.pk}/", f"/episodes/{episode.pk}/",
        f"/episodes/{episode.pk}/steps.jsonl", f"/runs/{run.pk}/episodes.zip", f"/submissions/{submission.pk}/balrog.tgz",
        f"/episodes/{episode.pk}/compare/{episode.pk}/",
        f"/api/submissions/{submission.pk}/", f"/api/runs/{run.pk}/", f"/api/episodes/{episode.pk}/",
        f"/api/episodes/{episode.pk}/steps/",
    ]


def _as(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def _hide(scene, target="submission"):
    staff = _as(scene["staff"])
    response = staff.post("/moderation/", {"target": target, "target_id": scene[target].pk, "action": "hide",
                                           "reason": REASON})
    assert response.status_code == 302


@pytest.mark.parametrize("target", ["submission", "run"])
def test_hidden_content_answers_404_to_everyone_but_staff_and_its_owner_reads_only_its_pages(scene, target):
    stranger = User.objects.create_user("stranger", password=PASSWORD)
    # A hidden run takes down the run and its episodes; its submission stays.
    addresses = [url for url in _addresses(scene) if target == "submission" or "/submissions/" not in url]
    before = {url: _as(None).get(url).status_code for url in addresses}
    assert 200 in before.values()
    _hide(scene, target)
    for url, status in before.items():
        for user in (None, stranger):
            assert _as(user).get(url).status_code == 404, (url, user)
        assert _as(scene["staff"]).get(url).status_code == status, url
        owner_reads = not any(export in url for export in EXPORTS)
        assert _as(scene["owner"]).get(url).status_code == (status if owner_reads else 404), url
    # Listed nowhere for strangers either, and the live channel does not open.
    listed = _as(None).get("/api/runs/").json()["results"]
    assert scene["run"].pk not in [row["id"] for row in listed]
    owners_list = _as(scene["owner"]).get("/api/runs/").json()["results"]
    assert scene["run"].pk not in [row["id"] for row in owners_list]
    assert not episode_exists(scene["episode"].pk)
    # Nor can the owner act on it: requeue, cancel, replay under a newer harness.
    owner = _as(scene["owner"])
    assert owner.post(f"/api/runs/{scene['run'].pk}/requeue/").status_code == 404
    assert owner.post(f"/runs/{scene['run'].pk}/cancel/").status_code == 404
    if target == "submission":
        assert owner.post(f"/api/submissions/{scene['submission'].pk}/rerun-older/").status_code == 404


@pytest.mark.parametrize("target", ["submission", "run"])
def test_the_owner_reads_why_on_their_submission_list_with_a_link_to_the_page_that_says_more(scene, target):
    owner = _as(scene["owner"])
    listed = owner.get("/submissions/mine/").content.decode()
    assert "taken-down-notice" not in listed and f'href="/runs/{scene["run"].pk}/"' not in listed
    _hide(scene, target)
    page = owner.get("/submissions/mine/").content.decode()
    what = "1 submission" if target == "submission" else "1 run"
    assert f"The operators took down {what}:" in page
    assert f"<strong>taken down</strong>: {REASON}" in page
    # Its pages open for its owner (with the banner), so the list links to them.
    assert f'href="/submissions/{scene["submission"].pk}/"' in page
    if target == "run":
        assert f'href="/runs/{scene["run"].pk}/"' in page
    # Strangers see no such notice on their own list.
    stranger = User.objects.create_user("stranger", password=PASSWORD)
    assert "taken-down-notice" not in _as(stranger).get("/submissions/mine/").content.decode()


def test_a_suspended_user_cannot_sign_in_use_a_token_or_submit_and_their_submissions_hide(client, scene):
    token = Token.objects.create(user=scene["owner"]).key
    staff = _as(scene["staff"])
    response = staff.post("/moderation/", {"account-username": "owner", "account-action": "suspend",
                                           "account-reason": "spam"})
    assert response.status_code == 302

    assert not client.login(username="owner", password=PASSWORD)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.post("/api/submissions/", {"name": "again"}, format="json").status_code == 401
    assert APIClient().post("/api/token/", {"username": "owner", "password": PASSWORD}, format="json").status_code == 400
    submission = Submission.objects.get(pk=scene["submission"].pk)
    assert submission.moderation == "hidden" and submission.moderation_reason == "account suspended: spam"
    assert Episode.objects.get(pk=scene["episode"].pk).status != Episode.QUEUED  # cancelled
    assert _as(None).get(f"/submissions/{submission.pk}/").status_code == 404
    assert ModerationAction.objects.filter(submission=submission, action="hide", by=scene["staff"]).exists()
    assert "owner" in staff.get("/moderation/").content.decode()

    staff.post("/moderation/", {"account-username": "owner", "account-action": "reinstate"})
    assert client.login(username="owner", password=PASSWORD)
    assert Submission.objects.get(pk=submission.pk).moderation == "hidden"  # restored one by one


def test_suspending_needs_a_reason_and_an_existing_user(scene):
    staff = _as(scene["staff"])
    refused = staff.post("/moderation/", {"account-username": "owner", "account-action": "suspend", "account-reason": " "})
    assert refused.status_code == 400 and "say why" in refused.content.decode()
    missing = staff.post("/moderation/", {"account-username": "nobody", "account-action": "suspend",
                                          "account-reason": "spam"})
    assert missing.status_code == 400 and "There is no such user." in missing.content.decode()
    assert User.objects.get(username="owner").is_active
