"""The form and the API apply the same rules to a submission (arena.web.validation): one
table of bad inputs, played through both paths, gets the same field errors and creates
nothing."""

import json

import pytest

from arena.models import Run, Submission
from tests.support.accounts import api, browser, user  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

KEY = "sk-rules-canary-5150"

# (field, value, words the error states). Each value is sent as JSON to the API and as
# its text to the form.
BAD_INPUTS = [
    ("history_window", 0, "greater than or equal to 1"),
    ("history_window", 10**25, "less than or equal to"),
    ("context_window", 0, "greater than or equal to 1024"),
    ("context_window", 10**25, "less than or equal to"),
    ("budget_tokens_per_run", 0, "greater than or equal to 1"),
    ("budget_tokens_per_run", 10**25, "less than or equal to"),
    ("price_input_per_mtok", -1, "greater than or equal to 0"),
    ("price_output_per_mtok", -0.5, "greater than or equal to 0"),
    ("price_cached_input_per_mtok", -0.1, "greater than or equal to 0"),
    ("budget_usd_per_run", -2, "greater than or equal to 0"),
    ("max_concurrent_requests", 0, "greater than or equal to 1"),
    ("max_tokens", 0, "greater than or equal to 1"),
    ("temperature", 2.5, "less than or equal to 2"),
    ("num_demonstrations", 513, "less than or equal to 512"),
    ("api_key", "sk-rules-canary-5150\nX-Injected: yes", "line break"),
    ("api_key", "sk-rules-canary-5150\r\nX-Injected: yes", "line break"),
    ("api_key", "sk-rules-\x00canary-5150", "null characters"),  # Django's and DRF's own check
    ("api_key", "sk-rules-\x01canary-5150", "control character"),
    ("api_key", "sk-rules-\x7fcanary-5150", "control character"),
    ("api_key", "sk-rules-\tcanary-5150", "tab"),
    ("api_key", "sk-rules-canary-5150é", "non-ASCII"),
    ("api_key", "sk-rules canary-5150", "space"),
    ("api_key", "sk-" + "a" * 5000, "at most"),
    ("reasoning_effort", "extreme", "extreme"),
    ("thinking_budget_tokens", 0, "greater than or equal to 1"),
    # The fake is a self-hosted OpenAI-compatible server: thinking goes by effort only.
    ("thinking_budget_tokens", 4096, "no standard thinking budget"),
    # A right-to-left override would make a name on the leaderboard read as another's.
    ("name", "evil\u202egpt-4o", "U+202E"),
    ("name", "\u2067Claude\u2069", "U+2067, U+2069"),
    ("model", "fake-model\u200f", "U+200F"),
]
IDS = [f"{field}={value!r:.30}" for field, value, _ in BAD_INPUTS]


def _api_body(base_url, **overrides):
    body = {
        "name": "Rules", "provider": "openai", "base_url": base_url, "model": "fake-model", "api_key": KEY,
        "tasks": ["lmact/gridworld:ascii"], "episodes_per_task": 1,
        "price_input_per_mtok": "1.0", "price_output_per_mtok": "2.0",
    }
    body.update(overrides)
    return body


def _form_body(base_url, **overrides):
    body = {
        "name": "Rules", "provider": "openai", "base_url": base_url, "model": "fake-model", "api_key": KEY,
        "temperature": "0", "max_tokens": "256", "num_demonstrations": "0", "tasks": ["lmact/gridworld:ascii"],
        "episodes_per_task": "1", "history_window": "16", "reflection": "none",
        "price_input_per_mtok": "1.0", "price_output_per_mtok": "2.0",
    }
    body.update({field: str(value) for field, value in overrides.items()})
    return body


def _nothing_created():
    return not Submission.objects.exists() and not Run.objects.exists()


@pytest.mark.parametrize("field, value, words", BAD_INPUTS, ids=IDS)
def test_the_api_refuses_the_bad_input_and_names_the_field(api, allow_loopback, fake_model, field, value, words):
    response = api.post("/api/submissions/", _api_body(fake_model.base_url, **{field: value}), format="json")
    assert response.status_code == 400, response.content
    errors = response.json()
    assert field in errors, errors
    assert words.lower() in json.dumps(errors[field]).lower(), errors[field]
    assert _nothing_created()
    assert KEY not in response.content.decode()


@pytest.mark.parametrize("field, value, words", BAD_INPUTS, ids=IDS)
def test_the_form_refuses_the_bad_input_and_names_the_field(browser, allow_loopback, fake_model, field, value, words):
    response = browser.post("/submit/", _form_body(fake_model.base_url, **{field: value}))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors, errors
    assert words.lower() in " ".join(errors[field]).lower(), errors[field]
    assert _nothing_created()
    assert KEY not in response.content.decode()


def test_the_table_rows_are_accepted_once_corrected(api, browser, allow_loopback, fake_model):
    """The good base the table starts from is itself valid on both paths."""
    assert api.post("/api/submissions/", _api_body(fake_model.base_url), format="json").status_code == 201
    assert browser.post("/submit/", _form_body(fake_model.base_url)).status_code == 302
    assert Submission.objects.count() == 2


def test_an_agent_endpoint_needs_no_model_on_either_path(api, browser, allow_loopback):
    url = "http://127.0.0.1:9/agent"  # agent endpoints are only checked against the URL guard
    body = _api_body(url, provider="agent")
    del body["model"]
    response = api.post("/api/submissions/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["agent_secret"]
    page = browser.post("/submit/", _form_body(url, provider="agent", model=""))
    assert page.status_code == 200 and page.context["secret"]  # the signing secret, shown once
    assert Submission.objects.filter(provider="agent", model="").count() == 2


@pytest.mark.parametrize(
    "bad_key, words",
    [("sk-new-key-123\nX-Injected: yes", "line break"), ("sk-new-kéy-123", "non-ASCII")],
)
def test_the_endpoint_form_refuses_a_key_that_cannot_be_sent_and_changes_nothing(
    browser, allow_loopback, fake_model, bad_key, words
):
    browser.post("/submit/", _form_body(fake_model.base_url))
    submission = Submission.objects.get()
    response = browser.post(
        f"/submissions/{submission.pk}/endpoint/", {"base_url": fake_model.base_url, "model": "fake-model", "api_key": bad_key}
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert words.lower() in " ".join(errors["api_key"]).lower(), errors
    submission.refresh_from_db()
    assert submission.get_api_key() == KEY and not submission.edits.exists()


def test_a_key_with_surrounding_whitespace_is_trimmed_not_refused(api, allow_loopback, fake_model):
    response = api.post("/api/submissions/", _api_body(fake_model.base_url, api_key=f"  {KEY}\n"), format="json")
    assert response.status_code == 201, response.content
    assert Submission.objects.get().get_api_key() == KEY




def test_the_endpoint_form_refuses_a_model_the_stored_reasoning_setting_breaks(browser, allow_loopback, fake_model):
    """A fixed thinking budget was valid for the old Claude model; the new one thinks only
    adaptively and refuses a budget, and the endpoint form cannot change the setting."""
    browser.post("/submit/", _form_body(fake_model.base_url))
    submission = Submission.objects.get()
    Submission.objects.filter(pk=submission.pk).update(
        provider=Submission.PROVIDER_ANTHROPIC, model="claude-sonnet-4-5", thinking_budget_tokens=2048,
        max_tokens=4096, temperature=1.0,
    )
    response = browser.post(
        f"/submissions/{submission.pk}/endpoint/", {"base_url": fake_model.base_url, "model": "claude-opus-4-6"}
    )
    assert response.status_code == 200
    errors = " ".join(response.context["form"].non_field_errors())
    assert "reasoning setting no longer holds" in errors and "refuses a fixed thinking budget" in errors, errors
    submission.refresh_from_db()
    assert submission.model == "claude-sonnet-4-5" and not submission.edits.exists()
