"""The public pages' cache (config.pagecache): anonymous viewers get a stored page until
an episode ends or a submission changes, signed-in users never get a stored page nor
leave one behind, and writes are never answered from it.

The site's real ASGI application runs in this process behind the cache; the cache's
clock is a counter the tests move forward, so "the generation is read again" happens
exactly when a test says so.
"""

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.contrib.auth.models import User
from django.core.asgi import get_asgi_application
from django.test import Client

from arena import page_generation
from arena.services.episodes import episode_claim, episode_finish
from arena.services.submissions import baseline_submission
from config.pagecache import PageCache
from tests.conftest import new_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

CHECK_SECONDS = 0.5
WORKER = "page-cache-test-worker"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now

    def advance(self):
        self.now += CHECK_SECONDS


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def site(clock):
    return PageCache(get_asgi_application(), check_seconds=CHECK_SECONDS, clock=clock)


async def request(app, path, *, method="GET", cookies=None, headers=()):
    all_headers = [(b"host", b"testserver"), *headers]
    if cookies:
        all_headers.append((b"cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()).encode()))
    query = path.split("?", 1)[1] if "?" in path else ""
    communicator = HttpCommunicator(app, method, path.split("?")[0], headers=all_headers)
    communicator.scope["query_string"] = query.encode()
    response = await communicator.get_response(timeout=30)
    await communicator.wait(timeout=30)  # the application's last steps (storing the page) too
    response["hit"] = (b"x-arena-page-cache", b"hit") in response["headers"]
    return response


def _submission_with_a_started_episode(name):
    submission = baseline_submission("random", name)
    episode = new_run(submission, episodes=1).episodes.get()
    assert episode_claim(episode.id, WORKER)
    return episode.id


def _session_cookie(username):
    user = User.objects.create_user(username, password="a-long-password-1")
    client = Client()
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


async def test_the_front_page_shows_a_finished_episode_once_the_generation_is_read_again(site, clock):
    episode_id = await sync_to_async(_submission_with_a_started_episode)("Pending Random")
    first = await request(site, "/")
    assert first["status"] == 200 and not first["hit"]
    again = await request(site, "/")
    assert again["hit"] and again["body"] == first["body"]

    await sync_to_async(episode_finish)(episode_id, WORKER, score=0.5, end_reason="step limit")
    clock.advance()
    after = await request(site, "/")
    assert not after["hit"]
    assert after["body"] != first["body"], "the finished episode did not reach the front page"


async def test_the_leaderboard_api_shows_a_finished_episode_once_the_generation_is_read_again(site, clock):
    episode_id = await sync_to_async(_submission_with_a_started_episode)("Random")
    path = "/api/leaderboard/?task=lmact/gridworld"
    before = await request(site, path, headers=[(b"accept", b"application/json")])
    assert (await request(site, path, headers=[(b"accept", b"application/json")]))["hit"]

    await sync_to_async(episode_finish)(episode_id, WORKER, score=0.5, end_reason="step limit")
    clock.advance()
    after = await request(site, path, headers=[(b"accept", b"application/json")])
    assert b'"episodes_done":1' in after["body"].replace(b" ", b"") or after["body"] != before["body"]
    assert after["body"] != before["body"]


async def test_a_renamed_submission_shows_on_the_suite_page_once_the_generation_is_read_again(site, clock):
    episode_id = await sync_to_async(_submission_with_a_started_episode)("Before The Rename")
    await sync_to_async(episode_finish)(episode_id, WORKER, score=0.5, end_reason="step limit")
    clock.advance()
    assert b"Before The Rename" in (await request(site, "/tasks/lmact/gridworld/"))["body"]

    def rename():
        submission = baseline_submission("random", "Before The Rename")
        submission.name = "After The Rename"
        submission.save()

    await sync_to_async(rename)()
    clock.advance()
    assert b"After The Rename" in (await request(site, "/tasks/lmact/gridworld/"))["body"]


async def test_one_signed_in_user_never_sees_another_users_page(site):
    alice = await sync_to_async(_session_cookie)("alice-viewer")
    bob = await sync_to_async(_session_cookie)("bob-viewer")

    for _ in range(2):
        alices = await request(site, "/", cookies=alice)
        assert b"alice-viewer" in alices["body"] and not alices["hit"]
    bobs = await request(site, "/", cookies=bob)
    assert b"bob-viewer" in bobs["body"] and b"alice-viewer" not in bobs["body"] and not bobs["hit"]
    for _ in range(2):
        anonymous = await request(site, "/")
        assert b"alice-viewer" not in anonymous["body"] and b"bob-viewer" not in anonymous["body"]
        assert b"Log in" in anonymous["body"]


async def test_a_signed_in_user_is_not_answered_with_the_anonymous_page(site):
    assert (await request(site, "/"))["status"] == 200
    assert (await request(site, "/"))["hit"]
    alice = await sync_to_async(_session_cookie)("alice-viewer")
    mine = await request(site, "/", cookies=alice)
    assert not mine["hit"] and b"alice-viewer" in mine["body"] and b"My submissions" in mine["body"]


async def test_an_api_token_request_is_not_answered_from_the_cache(site):
    path = "/api/leaderboard/?task=lmact/gridworld"
    await request(site, path)
    assert (await request(site, path))["hit"]
    with_token = await request(site, path, headers=[(b"authorization", b"Token not-a-real-token")])
    assert not with_token["hit"] and with_token["status"] == 401


async def test_a_post_is_never_answered_from_the_cache(site):
    await request(site, "/")
    assert (await request(site, "/"))["hit"]
    posted = await request(site, "/", method="POST")
    assert not posted["hit"] and posted["status"] == 403  # refused by the CSRF check, as without the cache


async def test_another_accept_header_gets_its_own_page(site):
    path = "/api/leaderboard/?task=lmact/gridworld"
    json_page = await request(site, path, headers=[(b"accept", b"application/json")])
    html_page = await request(site, path, headers=[(b"accept", b"text/html")])
    assert not html_page["hit"] and html_page["body"].lstrip().startswith(b"<!DOCTYPE html>")
    assert json_page["body"].startswith(b"[")


async def test_the_generation_changes_at_every_bump_in_both_stores(settings):
    for store in ("file", "cache"):
        settings.ARENA_PAGE_GENERATION_STORE = store
        seen = {await sync_to_async(page_generation.current)()}
        for _ in range(3):
            await sync_to_async(page_generation.bump)()
            now = await sync_to_async(page_generation.current)()
            assert now not in seen
            seen.add(now)


async def test_a_flood_of_query_strings_keeps_a_bounded_number_of_pages():
    async def small_page(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": scope["query_string"]})

    bounded = PageCache(small_page, check_seconds=CHECK_SECONDS, max_entries=3)
    for number in range(10):
        assert (await request(bounded, f"/?page={number}"))["body"] == f"page={number}".encode()
    assert len(bounded.entries) == 3
    assert (await request(bounded, "/?page=9"))["hit"] and not (await request(bounded, "/?page=0"))["hit"]
