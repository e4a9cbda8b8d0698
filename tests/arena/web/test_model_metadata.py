"""Model metadata on a submission (organisation, release date, open or closed weights,
link): given through the form and the API, returned by the API, shown on the model page
and on the overall leaderboard's rows (issue #42, item 6)."""

import pytest

from arena.models import Submission
from tests.arena.web.test_submission_rules import _api_body, _form_body, api, browser, user  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

METADATA = {
    "model_organisation": "Acme Labs", "model_release_date": "2024-05-13", "model_weights": "open",
    "model_url": "https://example.org/acme-7b",
}


def test_the_api_and_the_form_store_the_models_metadata(api, browser, allow_loopback, fake_model):  # noqa: F811
    created = api.post("/api/submissions/", _api_body(fake_model.base_url, **METADATA), format="json")
    assert created.status_code == 201
    assert {key: created.json()[key] for key in METADATA} == METADATA
    assert browser.post("/submit/", _form_body(fake_model.base_url, name="By form", **METADATA)).status_code == 302
    by_form = Submission.objects.get(name="By form")
    assert by_form.model_facts == ["Acme Labs", "released 2024-05-13", "open weights"]
    assert by_form.model_url == METADATA["model_url"]
    refused = api.post("/api/submissions/", _api_body(fake_model.base_url, model_weights="leaked"), format="json")
    assert refused.status_code == 400 and "model_weights" in refused.json()


def test_the_model_page_and_the_overall_row_show_it(client, browser, allow_loopback, fake_model):  # noqa: F811
    from tests.support.episodes import scripted_run

    browser.post("/submit/", _form_body(fake_model.base_url, name="Acme", **METADATA))
    submission = Submission.objects.get(name="Acme")
    scripted_run(submission, [1.0, 0.0])
    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "Acme Labs · released 2024-05-13 · open weights" in page
    front = client.get("/").content.decode()
    assert 'href="https://example.org/acme-7b" rel="nofollow noopener">fake-model</a>' in front
    assert '<div class="muted model-facts">Acme Labs · released 2024-05-13 · open weights</div>' in front
