"""A canary API key must appear nowhere a run produces: pages, API, logs, exports."""

import logging

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from arena.models import Episode
from tests.conftest import new_run
from tests.support.fake_openai import Fault

pytestmark = pytest.mark.django_db(transaction=True)

CANARY = "sk-canary-7f3a9e51d2c84b06"


def test_the_api_key_appears_in_no_page_api_response_log_or_export(
    make_model_submission, fake_model, play, client, caplog, settings
):
    caplog.set_level(logging.DEBUG)
    settings.ARENA_MODEL_TIMEOUT_SECONDS = 0.5
    owner = User.objects.create_superuser("owner", password="a-long-password-9")
    submission = make_model_submission(api_key=CANARY)
    submission.owner = owner
    submission.save()
    run = new_run(submission, task="lmact/chess", fmt="pgn", episodes=1)
    broken = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    fake_model.enqueue(Fault.status(401))  # not retried: the gridworld episode fails
    play(broken.episodes.get().id)
    play(run.episodes.get().id)
    # The key did reach the endpoint, so the scan below is meaningful.
    assert any(r.headers.get("authorization") == f"Bearer {CANARY}" for r in fake_model.requests)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    failed = broken.episodes.get()
    assert failed.status == Episode.FAILED
    client.force_login(owner)
    api = APIClient()
    api.force_authenticate(owner)
    urls = [
        "/", "/tasks/", "/tasks/lmact/chess/", "/suites/lmact/", f"/runs/{run.pk}/", f"/runs/{broken.pk}/",
        f"/episodes/{episode.pk}/", f"/episodes/{failed.pk}/", f"/episodes/{episode.pk}/pgn",
        f"/submissions/{submission.pk}/", "/submissions/mine/", "/admin/arena/submission/",
        f"/admin/arena/submission/{submission.pk}/change/", f"/admin/arena/episode/{failed.pk}/change/",
        "/healthz",
    ]
    api_urls = [
        "/api/submissions/", f"/api/submissions/{submission.pk}/", "/api/runs/", f"/api/runs/{run.pk}/",
        f"/api/episodes/{episode.pk}/", f"/api/episodes/{episode.pk}/steps/?page_size=500",
        f"/api/episodes/{failed.pk}/", "/api/leaderboard/?task=lmact/chess", "/api/schema/",
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert CANARY not in response.content.decode(), url
    for url in api_urls:
        response = api.get(url)
        assert response.status_code == 200, url
        assert CANARY not in response.content.decode(), url
    assert CANARY not in caplog.text
    assert CANARY not in str(submission.api_key_encrypted)

