"""A first try stays small: a submission may play some values of an option its task
sweeps (infogather at 3 colours only, TextAtari's basic scenario only), in the form and
in the API; the preview lists those runs only; a suite played as in its paper plays
them all."""

import json

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Run, Submission
from arena.services.submissions import run_specs
from arena.web.task_choice import check_task_settings
from django.core.exceptions import ValidationError
from envs.registry import get_suite
from tests.arena.web.test_submission_preview import _api_body, _form, _preset_api_body

pytestmark = pytest.mark.django_db

CONJUNCTION = "infogather/conjunction"
PONG = "textatari/pong"


@pytest.fixture
def web(client):
    client.force_login(User.objects.create_user("first-try", password="a long enough password"))
    return client


@pytest.fixture
def api():
    client = APIClient()
    user = User.objects.create_user("first-try-api", password="a long enough password")
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def _options(runs, name):
    return sorted({spec.options[name] for spec in runs})


def test_the_whole_sweep_is_the_default_and_chosen_values_narrow_it():
    variants = [(CONJUNCTION, "text"), (PONG, "text")]
    whole = run_specs(variants, 1)
    assert sum(spec.task == CONJUNCTION for spec in whole) == 16 and sum(spec.task == PONG for spec in whole) == 4
    chosen = check_task_settings({CONJUNCTION: {"num_colours": [3]}, PONG: {"scenario": "basic"}}, variants)
    assert chosen == {CONJUNCTION: {"num_colours": [3]}, PONG: {"scenario": ["basic"]}}
    small = run_specs(variants, 1, chosen)
    conjunction = [spec for spec in small if spec.task == CONJUNCTION]
    assert len(conjunction) == 2 and _options(conjunction, "num_colours") == [3]
    assert _options(conjunction, "guided_reasoning") == [False, True]  # the option not narrowed stays swept
    assert [spec.options for spec in small if spec.task == PONG] == [{"scenario": "basic"}]


def test_values_keep_the_options_order_and_every_value_is_the_whole_sweep():
    variants = [(CONJUNCTION, "text")]
    assert check_task_settings({CONJUNCTION: {"num_colours": [10, 3, 3]}}, variants) == {
        CONJUNCTION: {"num_colours": [3, 10]}
    }
    assert check_task_settings({CONJUNCTION: {"num_colours": list(range(3, 11))}}, variants) == {}


@pytest.mark.parametrize(
    "chosen, message",
    [
        ({"num_colours": []}, "choose at least one value of num_colours"),
        ({"num_colours": [2]}, "the values of num_colours are 3, 4"),
        ({"num_colours": ["3"]}, "got '3'"),
        ({"guided_reasoning": [1]}, "got 1"),  # 1 == True, but not a yes/no
        ({"colours": [3]}, "its settings: num_colours, guided_reasoning"),
    ],
)
def test_a_wrong_choice_is_refused_with_what_is_allowed(chosen, message):
    with pytest.raises(ValidationError) as refused:
        check_task_settings({CONJUNCTION: chosen}, [(CONJUNCTION, "text")])
    assert message in refused.value.messages[0]


def test_the_form_plays_the_ticked_values_and_the_preview_says_so(web, allow_loopback, fake_model):
    data = _form(fake_model.base_url, tasks=[f"{CONJUNCTION}:text", f"{PONG}:text"], preview="1")
    page = web.get("/submit/").content.decode()
    assert f'name="sweep--{CONJUNCTION}--num_colours"' in page and f'name="sweep--{PONG}--scenario"' in page
    data[f"sweep--{CONJUNCTION}--num_colours"] = ["0"]  # 3 colours
    data[f"sweep--{PONG}--scenario"] = ["0"]  # basic
    response = web.post("/submit/", data)
    preview = response.context["preview"]
    assert [(run.task, run.options) for run in preview.runs] == [
        (CONJUNCTION, {"num_colours": 3, "guided_reasoning": False}),
        (CONJUNCTION, {"num_colours": 3, "guided_reasoning": True}),
        (PONG, {"scenario": "basic"}),
    ]
    assert "Create submission and queue 3 runs" in response.content.decode()
    data.pop("preview")
    data["previewed"] = preview.fingerprint
    assert web.post("/submit/", data).status_code == 302
    assert sorted(run.variant["options"].get("num_colours", 0) for run in Run.objects.all()) == [0, 3, 3]


def test_a_form_that_sends_no_values_plays_the_whole_sweep(web, allow_loopback, fake_model):
    data = _form(fake_model.base_url, tasks=[f"{CONJUNCTION}:text"], preview="1")
    assert len(web.post("/submit/", data).context["preview"].runs) == 16


def test_the_api_plays_the_chosen_values_and_its_dry_run_previews_them(api, allow_loopback, fake_model):
    body = _api_body(fake_model.base_url, tasks=[f"{CONJUNCTION}:text"], task_settings={CONJUNCTION: {"num_colours": 3}})
    preview = api.post("/api/submissions/?dry_run=1", body, format="json")
    assert preview.status_code == 200, preview.content
    assert [run["options"]["num_colours"] for run in preview.json()["runs"]] == [3, 3]
    created = api.post("/api/submissions/", body, format="json")
    assert created.status_code == 201, created.content
    assert Run.objects.count() == 2


def test_a_suite_played_as_in_its_paper_plays_every_value(api, allow_loopback, fake_model):
    body = _preset_api_body(
        fake_model.base_url, get_suite("infogather"), tasks=[f"{CONJUNCTION}:text"],
        task_settings={CONJUNCTION: {"num_colours": [3]}},
    )
    refused = api.post("/api/submissions/", body, format="json")
    assert refused.status_code == 400
    assert "played as in its paper, which plays every value of num_colours" in json.dumps(refused.json())
    assert not Submission.objects.exists()


def test_the_catalogue_names_the_swept_values(api):
    suites = api.get("/api/submissions/catalogue/").json()["suites"]
    task = next(task for suite in suites for task in suite["tasks"] if task["id"] == CONJUNCTION)
    assert task["sweeps"]["num_colours"]["values"] == list(range(3, 11))
    assert task["sweeps"]["guided_reasoning"]["values"] == [False, True]
