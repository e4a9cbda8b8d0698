"""Issue 41: an endpoint that quotes every part of its address back, each on its own, in
other letter cases and percent-encodings, in its 401, 404 and 500 answers — and the
arena's own connection errors (refused, timed out) — publish no part of the address: a
crawl of every page, API response, download and websocket message, as an anonymous
reader and as another user, finds none of them; the owner still sees the address.
Nor do such readers read the endpoint's own message in an episode's, a step's or a
match's error (they read its kind): the owner and staff do."""

import asyncio
import re
from urllib.parse import unquote

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.db import connection

from arena.matches.models import Match
from arena.matches.player import MatchWorker
from arena.matches.services import queue_pair
from arena.models import Episode, Step, Submission
from leaderboard.routing import websocket_urlpatterns
from tests.conftest import new_run
from tests.support.crawl import body, every_url
from tests.support.ports import free_port
from tests.support.quoting_server import QuotingServer, SilentServer

pytestmark = pytest.mark.django_db(transaction=True)

TENANT_PATH = "/Tenant-Canary-x7/v1"
QUERY = "key=Key-Canary-q9&route=Route-Canary-z3"
WORDS = ("tenant-canary-x7", "key-canary-q9", "route-canary-z3")
# Words of the quoting server's own message (tests.support.quoting_server), which only
# the owner and staff may read.
MESSAGE_WORDS = ("cannot post", "unknown tenant")


def _message_words(text: str) -> list[str]:
    return [word for word in MESSAGE_WORDS if word in text.lower()]


def _found(text: str, ports: tuple[int, ...]) -> list[str]:
    """The canaries in `text`, in any letter case, as written or percent-decoded once or twice."""
    views = {text, unquote(text), unquote(unquote(text))}
    found = {word for view in views for word in WORDS if word in view.lower()}
    for port in ports:
        if any(re.search(rf"(?<![\w.]){port}(?!\w|\.\d)", view) for view in views):
            found.add(str(port))
    return sorted(found)


def _websocket_messages(episode_id: int, kind: str = "episodes") -> list[dict]:
    async def read():
        communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/{kind}/{episode_id}/")
        connected, _ = await communicator.connect()
        assert connected
        messages = []
        while not messages or messages[-1]["type"] != "end":
            messages.append(await communicator.receive_json_from(timeout=5))
        await communicator.disconnect()
        return messages

    return async_to_sync(read)()


@pytest.fixture
def quoting():
    with QuotingServer() as server:
        yield server


@pytest.fixture
def scene(make_model_submission, quoting, play, baseline, settings):
    settings.ARENA_MODEL_MAX_RETRIES = 1
    settings.ARENA_MODEL_TIMEOUT_SECONDS = 0.5
    owner = User.objects.create_user("alice", password="a-long-password-9")
    closed = free_port()
    silent = SilentServer().__enter__()
    silent_port = silent.port
    urls = {
        "quoting": quoting.tenant_url(TENANT_PATH, QUERY),
        "refused": f"http://127.0.0.1:{closed}{TENANT_PATH}?{QUERY}",
        "silent": f"http://127.0.0.1:{silent.port}{TENANT_PATH}?{QUERY}",
    }
    submissions = {}
    for name, url in urls.items():
        submission = make_model_submission(name=f"Canary {name}", base_url=url)
        Submission.objects.filter(pk=submission.pk).update(owner=owner)
        submissions[name] = Submission.objects.get(pk=submission.pk)
    runs = []

    def played(submission, statuses=()):
        run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1, first_seed=len(runs))
        quoting.answer_with(*statuses)
        play(run.episodes.get().id)
        runs.append(run)
        return run.episodes.get()

    try:
        noted = played(submissions["quoting"], (500,))  # retried once: the step keeps the failure as a note
        failures = [
            played(submissions["quoting"], (401,)),
            played(submissions["quoting"], (404,)),
            played(submissions["quoting"], (500, 500)),
            played(submissions["refused"]),
            played(submissions["silent"]),
        ]
    finally:
        silent.__exit__(None, None, None)
    assert noted.status == Episode.FINISHED and noted.steps.exclude(error="").exists(), noted.error
    assert [episode.status for episode in failures] == [Episode.FAILED] * 5, [e.error for e in failures]
    assert [episode.error_kind for episode in failures] == ["auth", "model_not_found", "server_error", "connection",
                                                            "timeout"]
    # A head-to-head match whose model seat meets the quoting 500s.
    quoting.answer_with(*[500] * 50)
    match = queue_pair("tictactoe", submissions["quoting"], baseline("random"), opening_seed=0, round_number=1)[0]
    asyncio.run(MatchWorker().serve(until_idle=True))
    quoting.answer_normally()
    match.refresh_from_db()
    assert match.status == Match.FAILED and match.error
    episodes = [noted, *failures]
    ids = {
        ("runs", "pk"): runs[0].pk, ("episodes", "pk"): failures[0].pk, ("submissions", "pk"): submissions["quoting"].pk,
        ("runs", "id"): runs[0].pk, ("episodes", "id"): failures[0].pk, ("submissions", "id"): submissions["quoting"].pk,
        ("matches", "pk"): match.pk, "suite": "lmact", "name": "gridworld",
    }
    extra = [f"/matches/{match.pk}/", f"/api/matches/{match.pk}/", f"/matches/{match.pk}/moves.json",
             "/matches/", f"/api/episodes/{noted.pk}/steps/0/"]
    for run in runs:
        extra += [run.get_absolute_url(), f"/api/runs/{run.pk}/", f"/runs/{run.pk}/episodes.zip"]
    for episode in episodes:
        extra += [f"/episodes/{episode.pk}/", f"/api/episodes/{episode.pk}/",
                  f"/api/episodes/{episode.pk}/steps/?page_size=500", f"/episodes/{episode.pk}/steps.jsonl"]
    for submission in submissions.values():
        extra += [submission.get_absolute_url(), f"/api/submissions/{submission.pk}/"]
    return {
        "owner": owner, "submissions": submissions, "episodes": episodes, "match": match, "ids": ids, "extra": extra,
        "ports": (quoting.port, closed, silent_port),
    }


def test_the_quoting_server_did_quote_every_part_and_nothing_stored_keeps_one(scene, quoting):
    quoted = quoting.quotes(type("Request", (), {"path": f"{TENANT_PATH}/chat/completions?{QUERY}",
                                                  "headers": {"host": f"127.0.0.1:{quoting.port}"}})())
    assert _found(quoted, scene["ports"]) == sorted([*WORDS, str(quoting.port)])
    stored = [
        *Episode.objects.values_list("error", flat=True), *Step.objects.values_list("error", flat=True),
        *Match.objects.values_list("error", flat=True),
    ]
    assert any("HTTP 401" in text for text in stored) and any("HTTP 404" in text for text in stored)
    for text in stored:
        assert not _found(text, scene["ports"]) and "127.0.0.1" not in text and "::1" not in text, text


@pytest.mark.parametrize("reader", ["anonymous", "another user"])
def test_a_crawl_of_every_page_api_download_and_websocket_finds_no_part_of_the_address(scene, client, reader):
    if reader == "another user":
        client.force_login(User.objects.create_user("mallory", password="a-long-password-9"))
    checked = 0
    for url in [*every_url(client, scene["ids"]), *scene["extra"]]:
        response = client.get(url)
        assert response.status_code < 500, url
        checked += response.status_code == 200
        text = body(response)
        assert not _found(text, scene["ports"]), url
        assert not _message_words(text), url
    assert checked >= 40
    for episode in scene["episodes"]:
        messages = _websocket_messages(episode.pk)
        assert messages[-1]["type"] == "end"
        assert not _found(repr(messages), scene["ports"]) and not _message_words(repr(messages)), episode.pk
    match_messages = _websocket_messages(scene["match"].pk, "matches")
    assert match_messages[-1]["type"] == "end"
    assert not _found(repr(match_messages), scene["ports"]) and not _message_words(repr(match_messages))


def test_the_owner_sees_the_address_and_the_query_is_encrypted_at_rest(scene, client):
    submission = scene["submissions"]["quoting"]
    client.force_login(scene["owner"])
    assert "Key-Canary-q9" in client.get(submission.get_absolute_url()).content.decode()
    with connection.cursor() as cursor:
        cursor.execute("SELECT base_url FROM arena_submission WHERE id = %s", [submission.pk])
        (stored,) = cursor.fetchone()
    assert "canary-q9" not in stored.lower() and "canary-z3" not in stored.lower()
    assert stored.startswith(f"http://127.0.0.1:{scene['ports'][0]}{TENANT_PATH}?arena-encrypted-query=")


def test_the_owner_and_staff_read_the_endpoints_message_others_the_kind_of_failure(scene, client):
    failed = scene["episodes"][1]  # the 401
    staff = User.objects.create_user("operator", password="a-long-password-9", is_staff=True)
    stranger = User.objects.create_user("mallory", password="a-long-password-9")
    run_url, api_url = failed.run.get_absolute_url(), f"/api/episodes/{failed.pk}/"
    for user, detailed in ((scene["owner"], True), (staff, True), (stranger, False), (None, False)):
        client.logout()
        if user is not None:
            client.force_login(user)
        api = client.get(api_url).json()["error"]
        page = client.get(f"/episodes/{failed.pk}/").content.decode()
        run_page = client.get(run_url).content.decode()
        assert ("HTTP 401" in api) is detailed, (user, api)
        assert ("HTTP 401" in page) is detailed and ("HTTP 401" in run_page) is detailed, user
        if not detailed:
            assert api == "the endpoint failed: the endpoint refused the API key"
            assert "the endpoint refused the API key" in run_page
    # The live channel is shared by every reader: it carries the kind only.
    end = _websocket_messages(failed.pk)[-1]
    assert end["episode"]["error"] == "the endpoint failed: the endpoint refused the API key"


def test_the_owner_and_staff_read_a_steps_note_and_a_match_error_others_their_kind(scene, client):
    noted, match = scene["episodes"][0], scene["match"]  # a step retried after a 500; a seat's 500s
    staff = User.objects.create_user("operator", password="a-long-password-9", is_staff=True)
    stranger = User.objects.create_user("mallory", password="a-long-password-9")
    step = noted.steps.exclude(error="").first()
    urls = {
        "steps": f"/api/episodes/{noted.pk}/steps/?page_size=500",
        "step": f"/api/episodes/{noted.pk}/steps/{step.index}/",
        "jsonl": f"/episodes/{noted.pk}/steps.jsonl", "zip": f"/runs/{noted.run_id}/episodes.zip",
        "match page": f"/matches/{match.pk}/", "match json": f"/matches/{match.pk}/moves.json", "matches": "/matches/",
    }
    for user, detailed in ((scene["owner"], True), (staff, True), (stranger, False), (None, False)):
        client.logout()
        if user is not None:
            client.force_login(user)
        bodies = {name: body(client.get(url)) for name, url in urls.items()}
        for name, text in bodies.items():
            assert ("Cannot POST" in text) is detailed, (user, name)
        if not detailed:
            assert "succeeded after 2 attempts (an earlier attempt failed: a server error)" in bodies["step"]
            assert "X&#x27;s endpoint failed: the endpoint kept failing with server errors" in bodies["match page"]
            assert client.get(urls["match json"]).json()["match"]["error"] == (
                "X's endpoint failed: the endpoint kept failing with server errors"
            )
    # The live channels are shared by every reader: they carry the kinds only.
    steps = [message["step"] for message in _websocket_messages(noted.pk) if message["type"] == "step"]
    assert "succeeded after 2 attempts (an earlier attempt failed: a server error)" in [s["error"] for s in steps]
    end = _websocket_messages(match.pk, "matches")[-1]
    assert end["match"]["error"] == "X's endpoint failed: the endpoint kept failing with server errors"
