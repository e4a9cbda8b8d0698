"""The paper preset and the submitter's own settings (issue: the protocol on every row):
the API's default is the form's — the preset — and neither the form nor the API ever
overrides a setting the submitter chose: where a suite played as in its paper and a
chosen setting disagree, the submission is refused naming both values, and nothing is
queued. Runs with custom settings are listed apart from the comparable rows."""

import pytest
from django.utils import timezone

from arena.metrics import fold
from arena.models import Episode, Run, Submission
from arena.protocol import CUSTOM, PRESET, run_protocol
from envs.registry import get_suite
from leaderboard.suites.balrog import board
from tests.support.accounts import api, browser, user  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

BALROG_TASKS = ["balrog/babyai-goto:text", "balrog/crafter:text"]


def _post(api, fake_model, **body):
    body = {"name": "API user", "base_url": fake_model.base_url, "model": "fake-model", **body}
    return api.post("/api/submissions/", body, format="json")


def _finish(submission, progress=50.0):
    """Each run's episodes folded as finished, so the submission has BALROG rows."""
    for run in submission.runs.all():
        sums = {}
        for _ in range(run.num_episodes):
            sums = fold(sums, {"progress": progress})
        Run.objects.filter(pk=run.pk).update(
            status=Run.FINISHED, episodes_done=run.num_episodes, metric_sums=sums, finished_at=timezone.now())


def _nothing_created():
    return not Submission.objects.filter(kind=Submission.KIND_MODEL).exists() and not Episode.objects.exists()


def test_an_api_submission_with_only_a_url_a_model_and_balrog_tasks_plays_the_preset(api, fake_model, allow_loopback):
    response = _post(api, fake_model, tasks=BALROG_TASKS)
    assert response.status_code == 201, response.json()
    submission = Submission.objects.get(pk=response.json()["id"])
    runs = {run.task: run for run in submission.runs.all()}
    for run in runs.values():
        # BALROG's config: temperature 1.0 and 8,192 tokens, not the submission's 0.0 / 2,048.
        assert run.settings.generation(submission) == (1.0, 8192)
        assert run_protocol(run).kind == PRESET
    assert runs["balrog/babyai-goto"].num_episodes == 10 and runs["balrog/crafter"].num_episodes == 10
    _finish(submission)
    page = board(get_suite("balrog"), mode="llm")
    assert [row.submission.pk for row in page.ranked] == [submission.pk] and page.ranked[0].rank == 1
    assert page.custom == []


def test_an_api_submission_with_its_own_settings_is_listed_apart_from_the_comparable_rows(
        api, fake_model, allow_loopback, client):
    preset = Submission.objects.get(pk=_post(api, fake_model, tasks=BALROG_TASKS).json()["id"])
    response = _post(api, fake_model, name="Own settings", tasks=BALROG_TASKS, temperature=0.0, max_tokens=2048,
                     episodes_per_task=2)
    assert response.status_code == 201, response.json()
    custom = Submission.objects.get(pk=response.json()["id"])
    assert {run_protocol(run).kind for run in custom.runs.all()} == {CUSTOM}
    _finish(preset, 10.0)
    _finish(custom, 90.0)  # a higher figure, still never ranked above the comparable row

    page = board(get_suite("balrog"), mode="llm")
    assert [row.submission.pk for row in page.ranked] == [preset.pk]
    assert [(row.submission.pk, row.rank) for row in page.custom] == [(custom.pk, None)]
    html = client.get("/suites/balrog/").content.decode()
    custom_section = html[html.index('id="balrog-custom"'):]
    assert "Own settings" in custom_section and "badge custom" in custom_section
    assert "custom · temperature 0 · 2,048 max tokens · 2 episodes per run" in custom_section
    assert "paper preset · temperature 1 · 8,192 max tokens · 10 episodes per run" in html

    overall = client.get("/api/leaderboard/overall/").json()
    assert [row["submission"]["id"] for row in overall["rows"]] == [preset.pk]
    (apart,) = overall["custom_rows"]
    assert apart["submission"]["id"] == custom.pk and apart["rank"] is None
    assert apart["protocol"]["kind"] == "custom" and apart["protocol"]["comparable"] is False
    assert apart["protocol"]["temperatures"] == [0.0] and apart["protocol"]["episodes_per_run"] == [2]
    assert overall["rows"][0]["protocol"]["comparable"] is True


def test_an_explicit_preset_with_conflicting_settings_is_refused_naming_them(api, fake_model, allow_loopback):
    response = _post(api, fake_model, tasks=BALROG_TASKS, paper_protocol=["balrog"], episodes_per_task=3,
                     chain_of_thought=True)
    assert response.status_code == 400
    errors = response.json()
    assert "BALROG as in the paper plays 10 episodes per task; you chose 3." in errors["episodes_per_task"][0]
    assert "BALROG as in the paper plays chain of thought off; you chose on." in errors["chain_of_thought"][0]
    assert '"paper_protocol": []' in errors["chain_of_thought"][0]
    assert _nothing_created()

    assert _post(api, fake_model, tasks=BALROG_TASKS, paper_protocol=True, temperature=0.5).status_code == 400
    assert _nothing_created()


def test_the_same_settings_as_the_preset_do_not_conflict_and_false_plays_custom(api, fake_model, allow_loopback):
    same = _post(api, fake_model, tasks=BALROG_TASKS, paper_protocol=True, temperature=1.0, episodes_per_task=10)
    assert same.status_code == 201, same.json()
    off = _post(api, fake_model, tasks=BALROG_TASKS, paper_protocol=False, episodes_per_task=1)
    assert off.status_code == 201, off.json()
    assert {run_protocol(run).kind for run in Run.objects.filter(submission_id=off.json()["id"])} == {CUSTOM}


def _form(base_url, **fields):
    """The form as a browser posts it with its defaults: "As in the paper" ticked for
    every suite, 10 episodes per task, chain of thought off."""
    data = {"name": "Form user", "provider": "openai", "base_url": base_url, "model": "fake-model", "api_key": "",
            "temperature": "0.0", "max_tokens": "2048", "num_demonstrations": "0", "history_window": "16",
            "show_legal_actions": "on", "reflection": "none", "mode": "llm",
            "episodes_per_task": "10", "max_concurrent_requests": "4",
            "paper_protocol": ["lmact", "balrog", "textatari", "infogather", "adventure"], "tasks": BALROG_TASKS}
    data.update(fields)
    return data


def test_the_form_never_overrides_a_choice_it_names_the_conflict_and_queues_nothing(
        browser, fake_model, allow_loopback):
    response = browser.post("/submit/", _form(fake_model.base_url, episodes_per_task="3", chain_of_thought="on"))
    assert response.status_code == 200  # the form again, with its errors
    form = response.context["form"]
    assert "BALROG as in the paper plays 10 episodes per task; you chose 3." in form.errors["episodes_per_task"][0]
    assert "Untick “As in the paper”" in form.errors["chain_of_thought"][0]
    assert _nothing_created()

    # Unticking the preset plays the choices, as custom rows.
    mine = _form(fake_model.base_url, episodes_per_task="3", chain_of_thought="on", paper_protocol=["adventure"])
    response = browser.post("/submit/", mine)
    assert response.status_code == 302, response.context["form"].errors
    runs = Run.objects.filter(submission__name="Form user")
    assert {run.num_episodes for run in runs} == {3} and all(run.settings.chain_of_thought for run in runs)
    assert {run_protocol(run).kind for run in runs} == {CUSTOM}


def test_the_forms_defaults_play_the_preset(browser, fake_model, allow_loopback):
    response = browser.post("/submit/", _form(fake_model.base_url))
    assert response.status_code == 302, response.context["form"].errors
    assert {run_protocol(run).kind for run in Run.objects.filter(submission__name="Form user")} == {PRESET}


def test_a_run_of_one_episode_says_so_in_words(make_model_submission):
    """"1 episode per run" and "1 episode (preset 100)", as a one-episode custom run of a
    suite with a preset reads on every leaderboard (it read "1 episodes")."""
    from arena.protocol import row_protocol
    from tests.conftest import new_run

    run = new_run(make_model_submission(), task="lmact/tictactoe", fmt="ascii", episodes=1)
    text = row_protocol([run]).text
    assert "1 episode per run" in text and "1 episode (preset 100)" in text and "1 episodes" not in text
