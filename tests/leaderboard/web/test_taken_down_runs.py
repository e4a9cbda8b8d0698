"""A run taken down on its own (its submission still public): a stranger, signed in or
not, reads every page, API answer and export of the submission as if that run had never
existed: no id, link, row, count, point or file of it (arena.moderation). Its owner reads
it marked "hidden"; staff read it as before.

Each stranger's answer is compared with the answer for the same submission once the run is
deleted: the very bytes (but the masked CSRF token a signed-in page carries, new at each request)."""

import io
import re
import tarfile

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from arena import page_generation
from arena.models import Run
from arena.services.submissions import experiment_create, submission_create
from arena.services.takedowns import moderate_and_apply
from tests.support.balrog import played_run

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-password-9"
REASON = "leaked test set"


@pytest.fixture
def scene():
    owner = User.objects.create_user("owner", password=PASSWORD)
    stranger = User.objects.create_user("stranger", password=PASSWORD)
    staff = User.objects.create_user("operator", password=PASSWORD, is_staff=True)
    submission = submission_create(
        owner=owner, fields={"name": "Kept-7B", "base_url": "http://example.org/v1", "model": "kept-7b"},
        api_key="", runs=[],
    )
    kept = played_run(submission, "balrog/babyai-goto", progress=[100.0, 0.0])
    hidden = played_run(submission, "balrog/babaisai", progress=[100.0], options={"level": "goto_win"})
    Run.objects.filter(pk=hidden.pk).update(tokens_spent_in=1234, tokens_spent_out=56, model_calls=7, model_latency_ms=700)
    Run.objects.filter(pk=kept.pk).update(model_calls=3, model_latency_ms=900)  # the endpoint's measured speed
    hidden.episodes.update(end_reason="all lives lost")  # a filter choice of the task's episode list
    # Someone else's public run of the hidden run's task only: a choice on the model page's
    # comparison only because of the hidden run.
    other = submission_create(
        owner=stranger, fields={"name": "Other-7B", "base_url": "http://example.org/v1", "model": "other-7b"},
        api_key="", runs=[],
    )
    played_run(other, "balrog/babaisai", progress=[0.0], options={"level": "goto_win"})
    sweep = experiment_create(submission, kind="sweep", task="lmact/gridworld", format="ascii", num_episodes=1, max_demonstrations=2)
    sweep_runs = list(sweep.runs.order_by("pk"))
    for run, score in zip(sweep_runs, (0.2, 0.9)):  # two points of the scaling figure
        Run.objects.filter(pk=run.pk).update(episodes_done=1, score_sum=score, status=Run.FINISHED)
    return {
        "owner": owner, "stranger": stranger, "staff": staff, "submission": submission, "kept": kept,
        "hidden": [hidden, sweep_runs[1]], "other": other, "sweep": sweep,
    }


def _as(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def _surfaces(scene) -> dict[str, str]:
    submission, sweep, other = scene["submission"].pk, scene["sweep"].pk, scene["other"].pk
    hidden = scene["hidden"][0].pk
    return {
        "submission page": f"/submissions/{submission}/",
        "experiment page": f"/experiments/{sweep}/",
        "submission api": f"/api/submissions/{submission}/",
        "submissions api": "/api/submissions/",
        "experiment api": f"/api/experiments/{sweep}/",
        "experiments api": "/api/experiments/",
        "runs api": f"/api/runs/?submission={submission}",
        "run api": f"/api/runs/{hidden}/",
        "all runs api": "/api/runs/",
        "run page": f"/runs/{hidden}/",
        "run export": f"/runs/{hidden}/episodes.zip",
        "kept run page": f"/runs/{scene['kept'].pk}/",
        "run's episodes api": f"/api/episodes/?run={hidden}",
        "task's episodes api": "/api/episodes/?task=balrog/babaisai",
        "task's episodes page": "/tasks/balrog/babaisai/episodes/",
        "task page": "/tasks/balrog/babaisai/",
        "front page": "/",
        "compare page": f"/compare/?a={submission}&b={other}",
        "compare api": f"/api/compare/?a={submission}&b={other}",
        "suite episodes": f"/suites/balrog/episodes/?runs={hidden}",
        "suite episodes, both": f"/suites/balrog/episodes/?runs={scene['kept'].pk},{hidden}",
        "balrog board": "/suites/balrog/",
        "balrog export": f"/submissions/{submission}/balrog.tgz",
    }


def _answer(client, url) -> tuple[int, object]:
    response = client.get(url)
    if getattr(response, "streaming", False):
        data = b"".join(response.streaming_content)
        if response.status_code == 200 and url.endswith(".tgz"):  # the gzip header dates itself
            with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                return 200, {m.name: archive.extractfile(m).read() for m in archive if m.isfile()}
        return response.status_code, data
    text = response.content.decode()
    return response.status_code, re.sub(r'(name="csrfmiddlewaretoken" value=|csrf-token" content=)"[^"]*"', r"\1", text)


def _hide_runs(scene) -> None:
    for run in scene["hidden"]:
        moderate_and_apply(run, "hide", REASON, by=scene["staff"])


SURFACES = (
    "submission page", "experiment page", "submission api", "submissions api", "experiment api", "experiments api",
    "runs api", "run api", "all runs api", "run page", "run export", "kept run page", "run's episodes api", "task's episodes api", "task's episodes page", "task page",
    "front page", "compare page", "compare api", "suite episodes", "suite episodes, both", "balrog board",
    "balrog export",
)


def test_the_surfaces_are_the_listed_ones(scene):
    assert set(SURFACES) == set(_surfaces(scene))


@pytest.mark.parametrize("surface", SURFACES)
def test_a_stranger_reads_it_as_if_the_taken_down_runs_never_existed(scene, surface):
    url = _surfaces(scene)[surface]
    _hide_runs(scene)
    seen = {"anonymous": _answer(_as(None), url), "stranger": _answer(_as(scene["stranger"]), url)}
    Run.objects.filter(pk__in=[run.pk for run in scene["hidden"]]).delete()
    page_generation.bump()
    never = {"anonymous": _answer(_as(None), url), "stranger": _answer(_as(scene["stranger"]), url)}
    assert seen == never


def test_the_comparison_is_of_pages_that_show_the_kept_run(scene):
    _hide_runs(scene)
    client, surfaces = _as(None), _surfaces(scene)
    kept = f"/runs/{scene['kept'].pk}/"
    for name in ("submission page", "experiment page", "balrog export", "compare page", "suite episodes, both"):
        assert _answer(client, surfaces[name])[0] == 200, name
    assert kept in _answer(client, surfaces["submission page"])[1]
    assert _answer(client, surfaces["suite episodes"])[0] == 404


def test_the_owner_reads_the_taken_down_runs_marked_and_staff_as_before(scene):
    _hide_runs(scene)
    hidden = [run.pk for run in scene["hidden"]]
    submission, sweep = scene["submission"].pk, scene["sweep"].pk
    for user in (scene["owner"], scene["staff"]):
        client = _as(user)
        page = client.get(f"/submissions/{submission}/").content.decode()
        for pk in hidden:
            assert f'href="/runs/{pk}/"' in page, user
        assert page.count('class="badge moderation-hidden"') == 2, user
        assert f'href="/runs/{hidden[1]}/"' in client.get(f"/experiments/{sweep}/").content.decode(), user
        assert set(hidden) <= set(client.get(f"/api/submissions/{submission}/").json()["runs"]), user
        assert hidden[1] in client.get(f"/api/experiments/{sweep}/").json()["runs"], user
        assert "over 10 calls" in page, user  # the endpoint's speed: 7 calls of the hidden run, 3 of the kept one
        tokens = client.get(f"/api/submissions/{submission}/").json()["tokens"]
        assert (tokens["in"], tokens["out"]) == (1234, 56), user
    # A stranger: none of them, and the tokens they spent neither.
    stranger = _as(scene["stranger"])
    assert "300 ms per call on average over 3 calls" in stranger.get(f"/submissions/{submission}/").content.decode()
    detail = stranger.get(f"/api/submissions/{submission}/").json()
    assert not set(hidden) & set(detail["runs"]) and (detail["tokens"]["in"], detail["tokens"]["out"]) == (0, 0)
    # An export shares nothing taken down, with its owner neither: staff's holds it.
    owners = _answer(_as(scene["owner"]), f"/submissions/{submission}/balrog.tgz")[1]
    staffs = _answer(_as(scene["staff"]), f"/submissions/{submission}/balrog.tgz")[1]
    assert not any("babaisai" in name for name in owners) and any("babaisai" in name for name in staffs)


def test_a_comparison_computed_again_after_the_takedown_shows_a_stranger_nothing_of_the_run(scene):
    """leaderboard.compare.refresh computes again the games someone compared, but those of
    a taken-down run (a comparison shows only the runs of
    leaderboard.selectors.submissions.runs_with_results); its figures kept before the
    takedown stay under a key of the two runs, which no page reads any more."""
    from leaderboard.compare.refresh import refresh_compared

    surfaces, stranger = _surfaces(scene), _as(scene["stranger"])
    hidden = scene["hidden"][0]
    compared = stranger.get(surfaces["compare api"]).json()  # someone compares them before the takedown
    assert [game["a_run"] for game in compared["games"]] == [hidden.pk]
    _hide_runs(scene)
    # An episode of the run ends after the takedown (a worker at its last step): the
    # write side leaves its game alone.
    assert refresh_compared(run_id=hidden.pk) == 0
    urls = [surfaces["compare page"], surfaces["compare api"]]
    seen = {(user, url): _answer(_as(scene[user] if user != "anonymous" else None), url)
            for user in ("anonymous", "stranger") for url in urls}
    Run.objects.filter(pk__in=[run.pk for run in scene["hidden"]]).delete()
    page_generation.bump()
    never = {(user, url): _answer(_as(scene[user] if user != "anonymous" else None), url)
             for user in ("anonymous", "stranger") for url in urls}
    assert seen == never
