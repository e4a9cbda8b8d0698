"""A submission's endpoint address is private to its owner and staff (issue 29): a
stranger's view of every page and every API URL in the schema, exports included, holds
no part of it, also where an endpoint's error quoted it; the owner still sees it."""

import asyncio

import pytest
from django.contrib.auth.models import User
from django.urls import get_resolver
from rest_framework.test import APIClient

from arena.endpoints.privacy import ADDRESS_HIDDEN, ENDPOINT_HIDDEN, endpoint_parts, hide_endpoint
from arena.matches.models import Match
from arena.matches.player import MatchWorker
from arena.matches.services import queue_pair
from arena.models import Episode, Experiment, Submission, SubmissionEdit
from tests.conftest import new_run
from tests.support.crawl import body, fill, page_routes
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


def test_each_part_is_hidden_alone_in_any_letter_case_and_percent_encoding():
    url = "http://GPU7.Acme-Lab.example:18757/Tenant-Acme/v1?key=Sk-Query-9&route=Blue-Route"
    quotes = [
        "Cannot POST /Tenant-Acme/v1/chat/completions", "query: key=Sk-Query-9&route=Blue-Route",
        "unknown tenant tenant-acme", "bad key SK-QUERY-9", "route blue-route", "host gpu7.acme-lab.example",
        "on gpu7 port 18757", "%2FTenant-Acme%2Fv1", "%252FTenant-Acme%252Fv1", "%53%6B-Query-9",
        "http://gpu7.acme-lab.EXAMPLE:18757/tenant-acme/V1",
    ]
    for quote in quotes:
        shown = hide_endpoint(quote, url)
        for piece in ("acme", "gpu7", "18757", "query-9", "blue-route", "2ftenant"):
            assert piece not in shown.lower(), (quote, shown)
    # Protocol words and other numbers stay: the message still says what went wrong.
    assert hide_endpoint("POST /v1/chat/completions: model not found after 12:30:45", url) == (
        "POST /v1/chat/completions: model not found after 12:30:45"
    )


def test_the_arenas_own_connection_errors_keep_no_address_of_any_endpoint():
    url = "http://localhost:18757/v1"  # what the messages name is the resolved address, not the URL
    messages = {
        "[Errno 111] Connect call failed ('127.0.0.1', 18757)": "[Errno 111] Connect call failed [address]",
        "Multiple exceptions: [Errno 111] Connect call failed ('::1', 18757, 0, 0), "
        "[Errno 111] Connect call failed ('10.0.0.7', 18757)":
            "Multiple exceptions: [Errno 111] Connect call failed [address], [Errno 111] Connect call failed [address]",
        "Timed out connecting to 10.0.0.7:18757.": "Timed out connecting to [address].",
        "Timed out connecting to [fe80::1%eth0]:8443": "Timed out connecting to [address]",
        "could not reach 2001:db8::7 (::ffff:192.168.1.9)": "could not reach [address] (::ffff:[address])",
    }
    for message, shown in messages.items():
        assert hide_endpoint(message, url) == shown
    assert ADDRESS_HIDDEN in hide_endpoint("Connect call failed ('127.0.0.1', 18757)", "")


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
    assert ADDRESS_HIDDEN in failed.error and played_at.split("//")[1] not in failed.error
    noted = episode.steps.exclude(error="").first()
    assert noted is not None and ADDRESS_HIDDEN in noted.error and "127.0.0.1" not in noted.error
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
    page_urls = [fill(route, scene["ids"]) for route in page_routes(get_resolver().url_patterns)]
    schema = client.get("/api/schema/", {"format": "json"}).json()
    api_urls = [fill(path, scene["ids"]) for path, ops in schema["paths"].items() if "get" in ops]
    assert len(page_urls) >= 20 and len(api_urls) >= 10, (page_urls, api_urls)
    assert f"/api/submissions/{scene['submission'].pk}/" in api_urls
    checked = 0
    for url in [*page_urls, *api_urls, *scene["extra"]]:
        response = client.get(url)
        assert response.status_code < 500, url
        if response.status_code == 200:
            checked += 1
        assert not _leaks(body(response), scene["played_at"]), url
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
