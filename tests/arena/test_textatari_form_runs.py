"""A model submitted through the submission form plays textatari/pong in each of the
four scenarios (TextAtari §2.2, App. D.1), and its runs show on the suite page."""

import pytest
from django.contrib.auth.models import User

from arena.models import Episode, Run, Submission
from envs.textatari.games.pong import Pong
from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.django_db(transaction=True)

PONG = "textatari/pong"
SCENARIOS = {"basic", "obscured", "manual", "reference"}
# The form's choice for the step-limit setting: the index of 100 in the task's settings.
HUNDRED_STEPS = "1"


@pytest.fixture
def user_client(client, settings):
    settings.ARENA_ALLOW_LOOPBACK = True
    client.force_login(User.objects.create_user("ada", password="a long enough passphrase"))
    return client


@pytest.fixture
def pong_player():
    """A model that always answers Pong's RIGHT (up) in the suite's JSON format."""
    with FakeOpenAIServer(default_action="RIGHT") as server:
        yield server


def _form(base_url: str, **overrides) -> dict:
    data = {
        "name": "Pong player", "provider": "openai", "base_url": base_url, "model": "fake-model",
        "api_key": "sk-textatari-test", "temperature": "0", "max_tokens": "64", "num_demonstrations": "0",
        "show_legal_actions": "on", "tasks": [f"{PONG}:text"], "episodes_per_task": "1", "history_window": "4",
        "reflection": "none", f"setting--{PONG}--max_steps": HUNDRED_STEPS,
    }
    data.update(overrides)
    return data


def test_a_form_submission_plays_pong_in_every_scenario_and_shows_on_the_suite_page(user_client, pong_player, play):
    response = user_client.post("/submit/", _form(pong_player.base_url))
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == submission.get_absolute_url()
    runs = {run.options["scenario"]: run for run in Run.objects.filter(submission=submission)}
    assert set(runs) == SCENARIOS
    assert {run.options["max_steps"] for run in runs.values()} == {100}

    play(*Episode.objects.filter(run__submission=submission).order_by("id").values_list("id", flat=True))

    texts = {}
    for scenario, run in runs.items():
        episode = run.episodes.get()
        assert episode.status == Episode.FINISHED, (scenario, episode.error)
        assert episode.num_steps == 100 and episode.end_reason == "step limit"
        assert set(episode.steps.values_list("executed_action", "legal")) == {("RIGHT", True)}
        assert {"normalised_score", "game_score"} <= episode.metrics.keys()
        texts[scenario] = (str(episode.prompt_prefix), episode.final_observation_text)
    # What the scenarios tell the model differs as App. D.1 says: the manual or the
    # expert's trajectory after the header, the game's nouns masked in the observations.
    manual = Pong.manual.strip()[:60]
    assert manual in texts["manual"][0] and manual not in texts["basic"][0]
    assert "played by an expert" in texts["reference"][0] and "played by an expert" not in texts["basic"][0]
    assert "ball" in texts["basic"][1].lower()
    assert "ball" not in texts["obscured"][1].lower() and "item" in texts["obscured"][1]

    page = user_client.get("/suites/textatari/")
    rows = [row for row in page.context["rows"] if row.submission.pk == submission.pk]
    assert {row.scenario for row in rows} == SCENARIOS
    for row in rows:
        cell = row.cell("pong")
        assert row.max_steps == 100 and cell.normalised.episodes == 1
        assert cell.url == runs[row.scenario].get_absolute_url()
    html = page.content.decode()
    for title in ("Basic", "Obscured", "Game manual", "Reference (expert trajectory)"):
        assert f"<td>{title}</td>" in html


def test_as_in_the_paper_plays_five_seeds_of_1000_steps_per_scenario_with_the_agent_submitted(
    user_client, pong_player
):
    # The settings the preset fixes left as the form offers them: changed, they would be
    # refused rather than overridden (arena.web.preset_choice).
    data = _form(pong_player.base_url, paper_protocol=["textatari"], chain_of_thought="on", reflection="recent",
                 episodes_per_task="10", history_window="16")
    del data[f"setting--{PONG}--max_steps"]
    user_client.post("/submit/", data)
    runs = list(Run.objects.all())
    assert {run.options["scenario"] for run in runs} == SCENARIOS
    for run in runs:
        settings = run.settings
        assert run.num_episodes == 5 and "max_steps" not in run.options  # the task's default: 1,000
        # A CoT agent keeps the last 10 state–action pairs besides the current one (§3.2).
        assert (settings.history_window, settings.num_demonstrations, settings.show_legal_actions) == (11, 0, True)
        # The agent is the submitter's: the paper runs Naive, CoT and Reflexion alike.
        assert settings.chain_of_thought and settings.reflection == "recent"
