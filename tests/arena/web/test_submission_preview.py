"""The submission form's task choice (suites from their descriptors, whole suites, LLM/VLM
mode, paper presets, task settings) and its preview, on the page and through
`POST /api/submissions/?dry_run=1`: both show the same preview for the same input,
neither creates anything, and "Create" queues exactly the runs the preview listed."""

import dataclasses
import json

import pytest
from django.contrib.auth.models import User
from django.utils.html import escape
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.models import Episode, Run, Submission
from arena.web.preview import submission_preview
from arena.services.submissions import run_specs
from arena.web.task_choice import formats_in_mode
from envs.core import IMAGE_FORMATS
from envs.registry import all_suites, get_task_class, tasks_of
from envs.suite import PaperPreset
from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.django_db

# The submission's own strategy, sent alike to the form and the API.
OWN_STRATEGY = {
    "temperature": 0.0, "max_tokens": 256, "num_demonstrations": 0, "show_legal_actions": True,
    "chain_of_thought": False, "answer_markers": False, "history_window": 8, "keep_reasoning": False,
    "self_correction": False, "reflection": "none", "max_concurrent_requests": 4,
}


def _suite_with_preset(*, most_runs=False):
    """A registered suite that offers a paper preset and whose whole suite, played as in
    the paper, fits the operator's episode limit: the one with the fewest runs, or the
    most. Chosen from the registry, not by name."""
    from django.conf import settings

    def runs(suite):
        variants = [(task_id, fmt) for task_id, cls in tasks_of(suite.id).items() for fmt in cls.formats]
        return run_specs(variants, 1, {}, frozenset({suite.id}))

    fitting = [
        suite for suite in all_suites().values()
        if suite.paper_preset is not None
        and sum(spec.num_episodes for spec in runs(suite)) <= settings.ARENA_MAX_EPISODES_PER_SUBMISSION
    ]
    return sorted(fitting, key=lambda suite: len(runs(suite)), reverse=most_runs)[0]


def _suite_with_image_formats():
    return next(
        suite for suite in all_suites().values()
        if any(set(cls.formats) & set(IMAGE_FORMATS) and set(cls.formats) - set(IMAGE_FORMATS)
               for cls in tasks_of(suite.id).values())
    )


@pytest.fixture
def user():
    return User.objects.create_user("previewer", password="a long enough password")


@pytest.fixture
def web(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def api(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def _form(base_url, **choice):
    data = {"name": "Preview me", "provider": "openai", "base_url": base_url, "model": "fake-model", "api_key": "sk-p"}
    for key, value in OWN_STRATEGY.items():
        if isinstance(value, bool):
            if value:
                data[key] = "on"
        else:
            data[key] = str(value)
    data["episodes_per_task"] = "3"
    data.update(choice)
    return data


def _api_body(base_url, **choice):
    body = {"name": "Preview me", "provider": "openai", "base_url": base_url, "model": "fake-model", "api_key": "sk-p",
            "episodes_per_task": 3, **OWN_STRATEGY}
    body.update(choice)
    return body


# The form's own initial values of the settings a preset may fix: a browser posts them
# unchanged unless the user changes them (arena.web.preset_choice reads only changes).
FORM_INITIAL = {
    "episodes_per_task": "10", "temperature": "0.0", "max_tokens": "2048", "num_demonstrations": "0",
    "show_legal_actions": "on", "history_window": "16", "reflection": "none",
}


def _preset_form(base_url, suite, **choice):
    """_form for a suite played as in its paper: the settings its preset fixes and the
    episodes left at the form's initial values, as a user who keeps the preset does."""
    data = _form(base_url, paper_protocol=[suite.id], **choice)
    for name in (*suite.paper_preset.strategy, "episodes_per_task"):
        data.pop(name, None)
        if name in FORM_INITIAL:
            data[name] = FORM_INITIAL[name]
    return data


def _preset_api_body(base_url, suite, **choice):
    """_api_body for a suite played as in its paper: the settings its preset fixes and the
    episodes left out (sent, a different value is refused)."""
    body = _api_body(base_url, paper_protocol=[suite.id], **choice)
    for name in (*suite.paper_preset.strategy, "episodes_per_task"):
        body.pop(name, None)
    return body


def _nothing_created():
    return not Submission.objects.exists() and not Run.objects.exists() and not Episode.objects.exists()


# -- the choice ------------------------------------------------------------------------


def test_the_form_lists_every_suite_in_its_order_with_its_tasks_and_preset(web):
    page = web.get("/submit/")
    groups = page.context["form"].task_groups()
    assert [group["suite"].id for group in groups] == list(all_suites())
    for group in groups:
        suite = all_suites()[group["suite"].id]
        assert [item["task"].id for item in group["tasks"]] == list(tasks_of(suite.id))
        assert group["paper"] == (suite.paper_preset is not None)  # offered, and chosen by default
    html = page.content.decode()
    for suite in all_suites().values():
        assert escape(suite.description) in html
        if suite.paper_preset:
            assert escape(suite.paper_preset.summary) in html


def test_a_whole_suite_in_llm_mode_plays_every_task_in_its_text_formats(web, allow_loopback, fake_model):
    suite = _suite_with_image_formats()
    response = web.post("/submit/", _form(fake_model.base_url, suites=[suite.id], mode="llm", preview="1"))
    preview = response.context["preview"]
    expected = [
        (task_id, fmt) for task_id, cls in tasks_of(suite.id).items() for fmt in formats_in_mode(cls, "llm")
    ]
    assert list(dict.fromkeys((run.task, run.format) for run in preview.runs)) == expected
    assert all(run.format not in IMAGE_FORMATS for run in preview.runs)
    assert _nothing_created()


def test_an_image_format_in_llm_mode_is_refused_next_to_the_tasks(web, allow_loopback, fake_model):
    suite = _suite_with_image_formats()
    task_id, cls = next((t, c) for t, c in tasks_of(suite.id).items() if set(c.formats) & set(IMAGE_FORMATS))
    image = next(fmt for fmt in cls.formats if fmt in IMAGE_FORMATS)
    response = web.post("/submit/", _form(fake_model.base_url, tasks=[f"{task_id}:{image}"], mode="llm", preview="1"))
    assert "LLM mode plays text observations only" in response.context["form"].errors["tasks"][0]
    html = response.content.decode()
    assert 'id="error-summary"' in html and 'href="#task-choice"' in html  # at the top too, linked to the field
    assert response.context["preview"] is None and _nothing_created() and not fake_model.requests


def test_a_paper_preset_fixes_the_strategy_and_the_episodes_of_its_suite_only():
    preset_suite = _suite_with_preset()
    other = next(s for s in all_suites().values() if s.id != preset_suite.id)
    chosen = [(next(iter(tasks_of(preset_suite.id))), None), (next(iter(tasks_of(other.id))), None)]
    variants = [(task_id, get_task_class(task_id).formats[0]) for task_id, _ in chosen]
    runs = run_specs(variants, 3, {}, frozenset({preset_suite.id}))
    preset = preset_suite.paper_preset
    for spec in runs:
        if get_task_class(spec.task).suite == preset_suite.id:
            assert spec.strategy == preset.strategy
            assert spec.num_episodes == preset.episodes_of(get_task_class(spec.task))
        else:
            assert spec.strategy == {} and spec.num_episodes == 3


def test_a_preset_may_only_fix_run_settings():
    with pytest.raises(ValueError, match="unknown: model"):
        PaperPreset(summary="", episodes=10, strategy={"model": "gpt-4o"})


def test_a_preset_may_fix_the_generation_settings():
    preset = PaperPreset(summary="", episodes=10, strategy={"temperature": 1.0, "max_tokens": 8192})
    assert preset.strategy == {"temperature": 1.0, "max_tokens": 8192}


def test_the_preset_settings_reach_the_queued_runs(web, allow_loopback, fake_model):
    suite = _suite_with_preset()
    response = web.post("/submit/", _preset_form(fake_model.base_url, suite, suites=[suite.id], mode="vlm"))
    assert response.status_code == 302, response.context["form"].errors
    for run in Run.objects.all():
        for field, value in suite.paper_preset.strategy.items():
            assert run.variant[field] == value, (run.task, field)
        assert run.num_episodes == suite.paper_preset.episodes_of(get_task_class(run.task))


def test_a_task_setting_chosen_in_the_form_reaches_the_run_and_the_preview(web, allow_loopback, fake_model):
    task_id, cls, name, values = next(
        (t, c, n, v) for s in all_suites() for t, c in tasks_of(s).items() for n, v in c.settings.items() if len(v) > 1
    )
    data = _form(fake_model.base_url, tasks=[f"{task_id}:{cls.formats[0]}"], preview="1")
    data[f"setting--{task_id}--{name}"] = "1"  # the first value that is not the paper's
    preview = web.post("/submit/", data).context["preview"]
    assert {run.options[name] for run in preview.runs} == {values[1]}
    data.pop("preview")
    data["previewed"] = preview.fingerprint
    assert web.post("/submit/", data).status_code == 302
    assert {run.options[name] for run in Run.objects.all()} == {values[1]}


# -- the preview -----------------------------------------------------------------------


def test_create_queues_exactly_the_previewed_runs(web, allow_loopback, fake_model):
    suite = _suite_with_preset()
    data = _preset_form(fake_model.base_url, suite, suites=[suite.id], mode="vlm")
    response = web.post("/submit/", {**data, "preview": "1"})
    preview = response.context["preview"]
    assert _nothing_created()
    assert 'id="create-submission"' in response.content.decode()
    response = web.post("/submit/", {**data, "previewed": preview.fingerprint})
    assert response.status_code == 302
    queued = [
        (run.task, run.variant["format"], run.variant["options"], run.num_episodes, run.settings.label())
        for run in Run.objects.order_by("id")
    ]
    listed = [(run.task, run.format, run.options, run.episodes, run.label) for run in preview.runs]
    assert queued == listed
    assert Episode.objects.count() == preview.episodes


def test_runs_that_changed_since_the_preview_are_previewed_again_not_created(web, allow_loopback, fake_model):
    suite = _suite_with_preset()
    data = _preset_form(fake_model.base_url, suite, suites=[suite.id])
    preview = web.post("/submit/", {**data, "preview": "1"}).context["preview"]
    changed = {**data, "paper_protocol": [], "previewed": preview.fingerprint}  # now the own settings
    response = web.post("/submit/", changed)
    assert response.status_code == 200 and _nothing_created()
    assert response.context["preview"].fingerprint != preview.fingerprint
    assert "The runs changed since the preview" in response.content.decode()


def test_the_dry_run_api_returns_the_pages_preview_and_creates_nothing(web, api, allow_loopback):
    suite = _suite_with_preset(most_runs=True)
    with FakeOpenAIServer(models=["fake-model"], props_n_ctx=16384) as model:
        page = web.post("/submit/", _preset_form(
            model.base_url, suite, suites=[suite.id], mode="vlm",
            price_input_per_mtok="1.5", price_output_per_mtok="6", preview="1",
        ))
        response = api.post("/api/submissions/?dry_run=1", _preset_api_body(
            model.base_url, suite, suites=[suite.id], mode="vlm",
            price_input_per_mtok="1.5", price_output_per_mtok="6",
        ), format="json")
    assert response.status_code == 200, response.content
    from_page = json.loads(json.dumps(page.context["preview"].to_json()))
    assert response.json() == from_page
    totals = response.json()["totals"]
    assert totals["runs"] == len(response.json()["runs"]) > 1 and totals["cost_usd_estimate"] > 0
    assert response.json()["endpoint"]["context_window"] == 16384
    assert _nothing_created()


def test_the_dry_run_api_refuses_what_the_create_refuses(api, allow_loopback, fake_model):
    response = api.post("/api/submissions/?dry_run=1", _api_body(fake_model.base_url, tasks=[], suites=[]), format="json")
    assert response.status_code == 400
    assert "Choose at least one task" in json.dumps(response.json()["tasks"])
    assert _nothing_created()


def test_refused_images_are_marked_in_the_preview_and_block_the_create(web, allow_loopback):
    suite = _suite_with_image_formats()
    with FakeOpenAIServer(accepts_images=False, props_n_ctx=8192) as model:
        response = web.post("/submit/", _form(model.base_url, suites=[suite.id], mode="vlm", preview="1"))
    preview = response.context["preview"]
    ruled_out = {f"{run.task}:{run.format}" for run in preview.runs if run.ruled_out}
    assert ruled_out and all(variant.split(":")[1] in IMAGE_FORMATS for variant in ruled_out)
    assert set(preview.ruled_out) == ruled_out
    assert preview.endpoint["accepts_images"] is False
    html = response.content.decode()
    assert "does not accept images" in html and 'id="create-submission"' not in html
    assert _nothing_created()


def test_the_estimate_follows_the_measured_sizes_demonstrations_and_the_window():
    # A task with measured demonstration sizes (LMAct's), played with 0 and 2 demonstrations.
    task_id, cls = next(
        (t, c) for t, c in ((t, get_task_class(t)) for s in all_suites() for t in tasks_of(s))
        if any(size.per_demonstration for size in c.spec.prompt_sizes.values())
    )
    fmt = next(f for f, size in cls.spec.prompt_sizes.items() if size.per_demonstration)
    runs = run_specs([(task_id, fmt)], 5)
    fields = {"name": "x", "provider": "openai", "max_tokens": 64, "context_window": None}
    zero = submission_preview(runs, fields={**fields, "num_demonstrations": 0}).runs[0]
    two = submission_preview(runs, fields={**fields, "num_demonstrations": 2}).runs[0]
    steps = max(1, round(min(cls.spec.typical_steps or zero.max_steps, zero.max_steps)))
    assert two.tokens_in - zero.tokens_in == 5 * steps * 2 * cls.spec.prompt_sizes[fmt].per_demonstration
    # A window caps every call's prompt (less the answer budget).
    window = 4096
    capped = submission_preview(runs, fields={**fields, "num_demonstrations": 2, "context_window": window}).runs[0]
    assert capped.tokens_in <= 5 * steps * (window - 64)
    # Self-correction doubles the calls.
    corrected = submission_preview(runs, fields={**fields, "num_demonstrations": 0, "self_correction": True}).runs[0]
    assert corrected.calls_at_most == 2 * zero.calls_at_most == 2 * 5 * zero.max_steps


def test_a_task_without_measured_sizes_is_named_and_left_out_of_the_estimate(monkeypatch):
    task_id = next(iter(tasks_of(next(iter(all_suites())))))
    cls = get_task_class(task_id)
    monkeypatch.setattr("envs.measured._table", lambda: {})  # nothing measured
    preview = submission_preview(run_specs([(task_id, cls.formats[0])], 2), fields={"name": "x", "provider": "openai"})
    assert preview.unestimated == [f"{task_id}:{cls.formats[0]}"]
    assert preview.tokens_in == 0 and preview.runs[0].tokens_in is None


def test_the_catalogue_api_offers_the_forms_suites_presets_and_settings(api, web):
    body = api.get("/api/submissions/catalogue/").json()
    form = web.get("/submit/").context["form"]
    assert [suite["id"] for suite in body["suites"]] == [group["suite"].id for group in form.task_groups()]
    for suite in body["suites"]:
        descriptor = all_suites()[suite["id"]]
        preset = descriptor.paper_preset
        assert suite["paper_preset"] == (preset and {**dataclasses.asdict(preset), "strategy": dict(preset.strategy)})
        for task in suite["tasks"]:
            cls = get_task_class(task["id"])
            assert task["formats"] == list(cls.formats)
            assert {name: setting["paper"] for name, setting in task["settings"].items()} == {
                name: values[0] for name, values in cls.settings.items()
            }
    assert {mode["id"] for mode in body["modes"]} == {"llm", "vlm"}


def test_the_key_typed_before_the_preview_is_used_by_the_create_and_never_shown(web, allow_loopback, fake_model):
    suite = _suite_with_preset()
    data = _form(fake_model.base_url, suites=[suite.id], api_key="sk-kept-canary-4242")
    response = web.post("/submit/", {**data, "preview": "1"})
    assert "sk-kept-canary-4242" not in response.content.decode()
    assert "sk-kept-canary-4242" not in json.dumps(dict(web.session))  # kept encrypted
    assert fake_model.base_url.split("//")[1] not in json.dumps(dict(web.session))  # its URL too (a query may be a key)
    # The browser sends the password field empty again, as it was rendered.
    create = {**data, "api_key": "", "previewed": response.context["preview"].fingerprint}
    assert web.post("/submit/", create).status_code == 302
    assert Submission.objects.get().get_api_key() == "sk-kept-canary-4242"
    # Kept for that preview only: the next submission starts without it.
    assert "submission_preview_key" not in web.session


# -- the preview's probe, reused by "Create" ---------------------------------------------------


def _probe_calls(server) -> int:
    return sum(1 for request in server.requests if request.method == "POST")


def test_create_after_a_preview_does_not_call_the_endpoint_again(web, allow_loopback, fake_model):
    suite = _suite_with_preset()
    data = _form(fake_model.base_url, suites=[suite.id])
    response = web.post("/submit/", {**data, "preview": "1"})
    calls_by_preview = _probe_calls(fake_model)
    assert calls_by_preview > 0
    assert "sk-p" not in json.dumps(dict(web.session))  # the kept probe names the key by a keyed digest only

    created = web.post("/submit/", {**data, "previewed": response.context["preview"].fingerprint})

    assert created.status_code == 302
    assert _probe_calls(fake_model) == calls_by_preview
    assert Submission.objects.get().endpoint_probe == response.context["probe"].to_json()
    assert "submission_preview_probe" not in web.session


@pytest.mark.parametrize("changed", [{"model": "another-model"}, {"api_key": "sk-another"}])
def test_create_probes_again_when_the_endpoint_changed_since_the_preview(web, allow_loopback, fake_model, changed):
    suite = _suite_with_preset()
    data = _form(fake_model.base_url, suites=[suite.id])
    response = web.post("/submit/", {**data, "preview": "1"})
    calls_by_preview = _probe_calls(fake_model)

    web.post("/submit/", {**data, **changed, "previewed": response.context["preview"].fingerprint})

    assert _probe_calls(fake_model) > calls_by_preview


def test_a_preview_probe_older_than_ten_minutes_is_not_reused(web, allow_loopback, fake_model, monkeypatch):
    from arena.web import preview_probe

    suite = _suite_with_preset()
    data = _form(fake_model.base_url, suites=[suite.id])
    response = web.post("/submit/", {**data, "preview": "1"})
    calls_by_preview = _probe_calls(fake_model)
    later = preview_probe.now() + preview_probe.PREVIEW_PROBE_SECONDS + 1
    monkeypatch.setattr(preview_probe, "now", lambda: later)

    assert web.post("/submit/", {**data, "previewed": response.context["preview"].fingerprint}).status_code == 302
    assert _probe_calls(fake_model) > calls_by_preview


@pytest.mark.parametrize("concurrent, noted", [("4", True), ("1", False)])
def test_a_one_slot_server_with_more_concurrent_requests_is_told_what_it_costs(web, allow_loopback, concurrent, noted):
    """llama.cpp's /props says 1 slot: with the form's 4 concurrent requests, the
    episodes share it call by call and re-read their prompts; the preview says so and
    how to keep them cached."""
    with FakeOpenAIServer(props_n_ctx=8192) as model:
        response = web.post("/submit/", _form(model.base_url, tasks=["lmact/gridworld:ascii"],
                                              max_concurrent_requests=concurrent, preview="1"))
    html = response.content.decode()
    assert ('id="preview-slots"' in html) is noted
    if noted:
        assert "The server runs 1 slot and you allow 4 concurrent requests: the episodes share it call by call" in html
        assert "1 concurrent request (under Advanced) plays one episode at a time" in html


def test_the_slots_note_counts_in_words():
    from arena.web.preview import slots_note

    assert slots_note(None, 4) == slots_note(4, 4) == slots_note(2, 1) == ""
    assert "The server runs 2 slots and you allow 8 concurrent requests: the episodes past its 2 slots" in slots_note(2, 8)
    assert "2 concurrent requests (under Advanced) play one episode per slot" in slots_note(2, 8)
