"""Pages of steps (the public steps API and the live channel) stay small whatever a
model wrote: long texts are cut in lists and served in full one step at a time, and a
page stops adding steps at a byte budget, its `next` link continuing from there."""

import json

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils.html import escape
from rest_framework.test import APIClient

from arena.services.submissions import baseline_submission
from leaderboard import serializers
from leaderboard.routing import websocket_urlpatterns
from arena.live.frame import STEP_TEXT_PREVIEW_CHARS
from leaderboard.serializers import STEP_PAGE_MAX_BYTES
from leaderboard.web.episode_views import SHOWN_ACTION_CHARS
from tests.support.episodes import scripted_episode
from tests.support.huge_steps import END_MARK, huge_steps_episode

ONE_MB = 1_000_000
CUT_FIELDS = {"completion", "reasoning", "prompt_added.0.text", "calls.0.completion"}


def _huge_episode(steps=3):
    return huge_steps_episode(baseline_submission("random", "Random"), steps=steps, size=ONE_MB)


def _pages(client, url):
    """Every page of a steps listing, following `next`, with its size in bytes."""
    pages = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content[:300]
        body = response.json()
        pages.append((len(response.content), body))
        url = body["next"]
    return pages


@pytest.mark.django_db
def test_a_page_of_one_megabyte_completions_stays_under_the_byte_cap_and_cuts_long_texts():
    episode = _huge_episode()
    client = APIClient()

    pages = _pages(client, f"/api/episodes/{episode.id}/steps/?page_size=500")

    assert all(size <= STEP_PAGE_MAX_BYTES for size, _ in pages), [size for size, _ in pages]
    steps = [step for _, body in pages for step in body["results"]]
    assert [step["index"] for step in steps] == [0, 1, 2]
    assert all(body["count"] == 3 for _, body in pages)
    first = steps[0]
    assert set(first["truncated"]) == CUT_FIELDS
    assert len(first["completion"]) == STEP_TEXT_PREVIEW_CHARS
    assert first["completion"].startswith("step 0 says up. ") and END_MARK not in first["completion"]
    # Short fields come whole.
    assert first["observation_text"] == "obs 0" and first["parsed_action"] == "up"
    assert first["full_url"] == f"/api/episodes/{episode.id}/steps/0/"


@pytest.mark.django_db
def test_one_step_is_served_in_full_on_demand():
    episode = _huge_episode()
    client = APIClient()
    listed = client.get(f"/api/episodes/{episode.id}/steps/").json()["results"][1]

    response = client.get(listed["full_url"])

    assert response.status_code == 200
    full = response.json()
    assert full["index"] == 1 and full["truncated"] == []
    assert len(full["completion"]) == ONE_MB and full["completion"].endswith(END_MARK)
    assert full["calls"][0]["completion"] == full["completion"]
    assert full["prompt_added"][0]["text"].endswith(END_MARK)
    assert client.get(f"/api/episodes/{episode.id}/steps/3/").status_code == 404


@pytest.mark.django_db
def test_a_page_stops_adding_steps_at_the_byte_budget_and_next_continues_from_there(monkeypatch):
    episode = _huge_episode(steps=5)
    one_step = len(json.dumps(APIClient().get(f"/api/episodes/{episode.id}/steps/?page_size=1").json()["results"][0]))
    # Room for two steps a page.
    monkeypatch.setattr(serializers, "STEP_PAGE_MAX_BYTES", int(2.5 * one_step))

    pages = _pages(APIClient(), f"/api/episodes/{episode.id}/steps/?page_size=500")

    assert [[step["index"] for step in body["results"]] for _, body in pages] == [[0, 1], [2, 3], [4]]
    assert "after=1" in pages[0][1]["next"] and pages[-1][1]["next"] is None


@pytest.mark.django_db
def test_a_page_holds_at_least_one_step_however_large(monkeypatch):
    episode = _huge_episode(steps=2)
    monkeypatch.setattr(serializers, "STEP_PAGE_MAX_BYTES", 10)

    pages = _pages(APIClient(), f"/api/episodes/{episode.id}/steps/")

    assert [[step["index"] for step in body["results"]] for _, body in pages] == [[0], [1]]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, words",
    [("after=abc", "after"), ("after=-5", "after"), ("page=2", "after")],
)
def test_a_bad_cursor_is_a_clear_error(query, words):
    episode = _huge_episode(steps=1)
    response = APIClient().get(f"/api/episodes/{episode.id}/steps/?{query}")
    assert response.status_code == 400
    assert words in json.dumps(response.json())


@pytest.mark.django_db
def test_a_cursor_past_the_end_gives_an_empty_last_page():
    episode = _huge_episode(steps=1)
    body = APIClient().get(f"/api/episodes/{episode.id}/steps/?after=99999999999999999999999").json()
    assert body == {"count": 1, "next": None, "results": []}


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_live_channel_sends_the_same_cut_steps():
    episode = await sync_to_async(_huge_episode)()
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/episodes/{episode.id}/")
    connected, _ = await communicator.connect()
    assert connected

    messages = []
    while not messages or messages[-1]["type"] != "end":
        messages.append(json.loads(await communicator.receive_from(timeout=5)))
    await communicator.disconnect()

    steps = [m["step"] for m in messages if m["type"] == "step"]
    assert [step["index"] for step in steps] == [0, 1, 2]
    assert all(set(step["truncated"]) == CUT_FIELDS for step in steps)
    assert all(len(json.dumps(m)) < STEP_PAGE_MAX_BYTES // 10 for m in messages)
    assert steps[2]["full_url"] == f"/api/episodes/{episode.id}/steps/2/"


@pytest.mark.django_db
def test_the_compare_page_names_a_huge_action_by_its_start(client):
    reply = "> take the parcel " + "and again " * 10_000
    left = scripted_episode(baseline_submission("expert", "Expert"), ["up", reply])
    right = scripted_episode(baseline_submission("random", "Random"), ["up", "down"])

    response = client.get(f"/episodes/{left.pk}/compare/{right.pk}/")

    assert len(response.content) < 50_000
    shown = reply[:SHOWN_ACTION_CHARS] + "…"
    assert response.context["compare_data"]["first_difference"] == {"index": 1, "left": shown, "right": "down"}
    assert escape(f"Expert played {shown}, Random played down.") in response.content.decode()
