"""A submission's endpoint address is private to its owner and staff (issue 29): a
stranger's view of every page and every API URL in the schema, exports included, holds
no part of it, also where an endpoint's error quoted it; the owner still sees it."""

import asyncio
import gzip
import io
import re
import tarfile
import zipfile

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from arena.endpoint_privacy import ENDPOINT_HIDDEN, endpoint_parts, hide_endpoint
from arena.matches.models import Match
from arena.matches.player import MatchWorker
from arena.matches.services import queue_pair
from arena.models import Episode, Experiment, Submission, SubmissionEdit
from tests.conftest import new_run
from tests.support.fake_openai import Fault

CANARY_HOST = "canary-endpoint-7f3a9e.internal.example"
CANARY_URL = f"http://{CANARY_HOST}:8443/tenant/acme-canary/v1?route=canary-q9"
CANARY_PIECES = (CANARY_HOST, "acme-canary", "canary-q9")


def test_every_identifying_part_of_an_address_is_hidden_from_a_text():
    text = f"could not reach {CANARY_HOST}:8443 (GET {CANARY_URL}); tenant /tenant/acme-canary/v1?route=canary-q9"
    shown = hide_endpoint(text, CANARY_URL)
    assert ENDPOINT_HIDDEN in shown
    for piece in CANARY_PIECES:
        assert piece not in shown, shown
    # A short path names nobody and is left in the prose.
    assert "/v1" not in endpoint_parts("http://10.1.2.3:8000/v1")
    assert hide_endpoint("answered HTTP 404 for /v1/models", "http://10.1.2.3:8000/v1") == "answered HTTP 404 for /v1/models"
    assert hide_endpoint("", CANARY_URL) == "" and hide_endpoint("nothing here", "") == "nothing here"


def _page_routes(patterns, prefix=""):
    """Every route of the site's own pages (the API is read from its schema; the admin is
    staff's), as route strings with their <converter:name> parameters."""
    for pattern in patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if route in ("api/", "admin/"):
                continue
            yield from _page_routes(pattern.url_patterns, prefix + route)
        elif isinstance(pattern, URLPattern) and not route.startswith("^"):
            yield prefix + route


def _fill(route: str, ids: dict) -> str:
    """The route with each parameter filled with an object of the scene: the object kind
    is the path segment before the parameter ("runs/<int:pk>" → the run)."""
    def value(match):
        name = match.group(2)
        before = route[: match.start()].rstrip("/").rsplit("/", 1)[-1].strip("{}")
        return str(ids.get((before, name), ids.get(name, ids.get(before, "1"))))

    return "/" + re.sub(r"[<{](?:(\w+):)?(\w+)[>}]", value, route.lstrip("/"))


async def _gathered(chunks) -> bytes:
    return b"".join([chunk async for chunk in chunks])


def _body(response) -> str:
    if not response.streaming:
        raw = response.content
    elif response.is_async:
        raw = async_to_sync(_gathered)(response.streaming_content)
    else:
        raw = b"".join(response.streaming_content)
    kind = response.get("Content-Type", "")
    if "zip" in kind:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    if "gzip" in kind:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as archive:
            return "\n".join(
                archive.extractfile(member).read().decode("utf-8", "replace")
                for member in archive.getmembers() if member.isfile()
            )
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", "replace")


@pytest.fixture
def scene(make_model_submission, fake_model, play, baseline, settings):
    """A model submission with a finished and a failed episode, whose endpoint errors
    quoted its address; then its address is changed to the canary (as by an edit)."""
    owner = User.objects.create_user("owner", password="a-long-password-9")
    submission = make_model_submission()
    Submission.objects.filter(pk=submission.pk).update(owner=owner)
    played_at = fake_model.base_url
    quoting = {"error": {"message": f"upstream {played_at} is overloaded"}}
    run = new_run(submission, task="lmact/chess", fmt="pgn", episodes=1)
    broken = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    fake_model.enqueue(Fault.status(401, body={"error": {"message": f"no such key at {played_at}"}}))
    play(broken.episodes.get().id)
    fake_model.enqueue(Fault.status(503, body=quoting))  # retried: the step keeps the first failure as a note
    play(run.episodes.get().id)
    episode, failed = run.episodes.get(), broken.episodes.get()
    assert episode.status == Episode.FINISHED and failed.status == Episode.FAILED
    assert ENDPOINT_HIDDEN in failed.error and played_at.split("//")[1] not in failed.error
    noted = episode.steps.exclude(error="").first()
    assert noted is not None and ENDPOINT_HIDDEN in noted.error and "127.0.0.1" not in noted.error
    probe = {
        "notes": [f"{CANARY_HOST} does not report its context window"],
        "field_errors": {"base_url": f"The arena could not reach {CANARY_URL}"}, "latency_ms": 12.0,
    }
    Submission.objects.filter(pk=submission.pk).update(base_url=CANARY_URL, endpoint_probe=probe)
    SubmissionEdit.objects.create(submission=submission, changed_by=owner, changes={"base_url": [played_at, CANARY_URL]})
    experiment = Experiment.objects.create(kind=Experiment.SWEEP, submission=submission, task="lmact/chess", format="pgn")
    other = baseline("random")
    # A head-to-head match against the canary address: its failure is stored and shown.
    settings.ARENA_MODEL_MAX_RETRIES = 0
    match = queue_pair("tictactoe", Submission.objects.get(pk=submission.pk), other, opening_seed=0, round_number=1)[0]
    asyncio.run(MatchWorker().serve(until_idle=True))
    match.refresh_from_db()
    assert match.status == Match.FAILED and match.error
    ids = {
        ("runs", "pk"): run.pk, ("episodes", "pk"): episode.pk, ("submissions", "pk"): submission.pk,
        ("experiments", "pk"): experiment.pk, "other_pk": failed.pk, "suite": "lmact", "name": "chess",
        ("runs", "id"): run.pk, ("episodes", "id"): episode.pk, ("submissions", "id"): submission.pk,
        ("experiments", "id"): experiment.pk, ("matches", "pk"): match.pk,
    }
    extra = [
        f"/episodes/{failed.pk}/", f"/runs/{broken.pk}/", f"/api/episodes/{failed.pk}/",
        f"/api/episodes/{episode.pk}/steps/?page_size=500", f"/runs/{run.pk}/episodes.zip",
        f"/episodes/{episode.pk}/steps.jsonl", f"/episodes/{failed.pk}/steps.jsonl",
        f"/compare/?a={submission.pk}&b={other.pk}", f"/api/compare/?a={submission.pk}&b={other.pk}",
        "/api/leaderboard/?task=lmact/chess", "/api/leaderboard/overall/",
    ]
    return {"owner": owner, "submission": submission, "ids": ids, "extra": extra, "played_at": played_at}


def _leaks(text: str, played_at: str) -> list[str]:
    pieces = (*CANARY_PIECES, played_at.split("//")[1])
    return [piece for piece in pieces if piece in text]


@pytest.mark.django_db(transaction=True)
def test_a_stranger_sees_no_endpoint_address_on_any_page_api_url_or_export(scene, client):
    page_urls = [_fill(route, scene["ids"]) for route in _page_routes(get_resolver().url_patterns)]
    schema = client.get("/api/schema/", {"format": "json"}).json()
    api_urls = [_fill(path, scene["ids"]) for path, ops in schema["paths"].items() if "get" in ops]
    assert len(page_urls) >= 20 and len(api_urls) >= 10, (page_urls, api_urls)
    assert f"/api/submissions/{scene['submission'].pk}/" in api_urls
    checked = 0
    for url in [*page_urls, *api_urls, *scene["extra"]]:
        response = client.get(url)
        assert response.status_code < 500, url
        if response.status_code == 200:
            checked += 1
        assert not _leaks(_body(response), scene["played_at"]), url
    assert checked >= 25
    listed = client.get("/api/submissions/").json()["results"]
    assert listed and all("base_url" not in row for row in listed)
    detail = client.get(f"/api/submissions/{scene['submission'].pk}/").json()
    assert "base_url" not in detail and detail["model"] == "fake-model" and detail["provider"] == "openai"


@pytest.mark.django_db(transaction=True)
def test_the_owner_and_staff_see_the_address_another_user_does_not(scene, client):
    pk = scene["submission"].pk
    stranger = User.objects.create_user("stranger", password="a-long-password-9")
    staff = User.objects.create_user("operator", password="a-long-password-9", is_staff=True)
    for user, sees in ((scene["owner"], True), (staff, True), (stranger, False)):
        client.force_login(user)
        page = client.get(f"/submissions/{pk}/").content.decode()
        api = APIClient()
        api.force_authenticate(user)
        detail = api.get(f"/api/submissions/{pk}/").json()
        assert (CANARY_HOST in page) is sees, user
        assert (detail.get("base_url") == CANARY_URL) is sees, user
        assert (CANARY_HOST in detail["endpoint_probe"]["notes"][0]) is sees, user
        assert "fake-model" in page
