"""A head-to-head match of a submission the operators hid is taken down with it, as its
episodes are (issue 41): its page, its moves JSON and its live channel answer 404 (or
refuse) to everyone but staff, its owner included; the list of matches leaves it out;
the ratings list the hidden submission nowhere, not even as the anchor (without one, nobody
is rated)."""

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User

from arena.models import Submission
from leaderboard.routing import websocket_urlpatterns
from tests.support.rated_matches import finished, model, random_baseline

application = URLRouter(websocket_urlpatterns)


def _scene():
    owner = User.objects.create_user("owner")
    staff = User.objects.create_user("operator", is_staff=True)
    anchor = random_baseline()
    hidden, shown = model("Taken-7B", owner=owner), model("Shown-7B")
    taken = finished("chess", hidden, anchor, 1.0)
    kept = finished("chess", shown, anchor, 0.0)
    return {"owner": owner, "staff": staff, "anchor": anchor, "hidden": hidden, "shown": shown,
            "taken": taken, "kept": kept}


def _hide(submission):
    Submission.objects.filter(pk=submission.pk).update(moderation=Submission.HIDDEN, moderation_reason="abuse")


@pytest.mark.django_db
def test_a_match_of_a_hidden_submission_answers_404_to_all_but_staff(client):
    scene = _scene()
    taken = scene["taken"].pk
    addresses = [f"/matches/{taken}/", f"/matches/{taken}/moves.json"]
    assert [client.get(url).status_code for url in addresses] == [200, 200]
    _hide(scene["hidden"])
    for user in (None, scene["owner"]):
        client.logout()
        if user is not None:
            client.force_login(user)
        assert [client.get(url).status_code for url in addresses] == [404, 404], user
        listed = client.get("/matches/").content.decode()
        assert f'href="/matches/{taken}/"' not in listed and f'href="/matches/{scene["kept"].pk}/"' in listed
        assert "Taken-7B" not in client.get(f"/matches/?submission={scene['hidden'].pk}").content.decode()
    client.force_login(scene["staff"])
    assert [client.get(url).status_code for url in addresses] == [200, 200]
    assert f'href="/matches/{taken}/"' in client.get("/matches/").content.decode()


@pytest.mark.django_db
def test_the_ratings_list_no_hidden_submission_not_even_the_anchor(client):
    scene = _scene()
    assert "Taken-7B" in client.get("/ratings/chess/").content.decode()
    _hide(scene["hidden"])
    page = client.get("/ratings/chess/").content.decode()
    assert "Taken-7B" not in page and "Shown-7B" in page
    assert "Taken-7B" not in client.get("/api/ratings/?game=chess").content.decode()
    _hide(scene["anchor"])
    assert ">Random<" not in client.get("/ratings/chess/").content.decode()
    assert "Random" not in client.get("/api/ratings/?game=chess").content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_live_channel_of_a_hidden_submissions_match_does_not_open():
    scene = await sync_to_async(_scene)()
    await sync_to_async(_hide)(scene["hidden"])
    for match, opens in ((scene["taken"], False), (scene["kept"], True)):
        communicator = WebsocketCommunicator(application, f"/ws/matches/{match.pk}/")
        connected, _ = await communicator.connect()
        assert connected is opens
        await communicator.disconnect()
