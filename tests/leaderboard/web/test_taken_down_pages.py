"""What the owner of a taken-down submission (or run) meets on the pages a link, an email
or a bookmark leads to: the page, under a banner saying when and why it was taken down and
what is kept, with no button that writes; the API's detail says the same in `takedown`.
Everyone else still gets the bare 404 (no reason, no sign it exists); staff see the pages
as before (arena.moderation: owner_reads)."""

import pytest
from django.contrib.auth.models import User
from django.template.defaultfilters import date as date_filter
from rest_framework.test import APIClient

from arena.models import Episode, Match
from arena.services.submissions import experiment_create, submission_create
from arena.services.takedowns import moderate_and_apply
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-password-9"
REASON = "abusive name"
KEPT = "Nothing was deleted: its runs, episodes and steps are kept as they were."


def _submission(owner, name):
    return submission_create(
        owner=owner, fields={"name": name, "base_url": "http://example.org/v1", "model": name.lower()},
        api_key="", runs=[],
    )


@pytest.fixture
def scene():
    owner = User.objects.create_user("owner", password=PASSWORD)
    stranger = User.objects.create_user("stranger", password=PASSWORD)
    staff = User.objects.create_user("operator", password=PASSWORD, is_staff=True)
    submission = _submission(owner, "Hidden-7B")
    run = new_run(submission, episodes=2)
    episode = run.episodes.order_by("index").first()
    experiment = experiment_create(submission, kind="sweep", task="lmact/gridworld", format="ascii", num_episodes=2)
    # Someone else's public episode of the same game, for the compare page.
    other_episode = new_run(_submission(stranger, "Public-7B"), episodes=1).episodes.get()
    return {
        "owner": owner, "stranger": stranger, "staff": staff, "submission": submission, "run": run,
        "episode": episode, "experiment": experiment, "other_episode": other_episode,
    }


def _as(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def _hide(scene, target) -> str:
    """Take `target` down; the date its banner shows."""
    record = moderate_and_apply(scene[target], "hide", REASON, by=scene["staff"]).record
    return date_filter(record.at, "Y-m-d")


def _pages(scene) -> dict[str, str]:
    episode, other = scene["episode"].pk, scene["other_episode"].pk
    return {
        "submission": f"/submissions/{scene['submission'].pk}/",
        "experiment": f"/experiments/{scene['experiment'].pk}/",
        "run": f"/runs/{scene['run'].pk}/",
        "episode": f"/episodes/{episode}/",
        "compare": f"/episodes/{episode}/compare/{other}/",
    }


def test_the_owner_opens_every_page_of_a_taken_down_submission_under_a_banner_without_writes(scene):
    on = _hide(scene, "submission")
    owner = _as(scene["owner"])
    banner = f"This submission was taken down by the operators on {on}: {REASON}."
    for name, url in _pages(scene).items():
        response = owner.get(url)
        assert response.status_code == 200, name
        page = response.content.decode()
        assert banner in page, name
        assert KEPT in page and f"quoting the submission&#x27;s number (#{scene['submission'].pk})" in page, name
        assert "the head-to-head matches it cancelled are played again" in page, name
        # No button that writes, no export that would share it.
        for write in ("/requeue/", "/cancel/", "/probe/", "/endpoint/", "/rerun-older/", 'class="narrow-form experiment-form"',
                      "steps.jsonl", "episodes.zip", "balrog.tgz"):
            assert write not in page, (name, write)


def test_everyone_else_gets_the_bare_404_and_staff_the_page_as_before(scene):
    _hide(scene, "submission")
    for user in (None, scene["stranger"]):
        for name, url in _pages(scene).items():
            response = _as(user).get(url)
            assert response.status_code == 404, (name, user)
            assert REASON not in response.content.decode() and "Hidden-7B" not in response.content.decode()
    staff = _as(scene["staff"])
    for name, url in _pages(scene).items():
        page = staff.get(url).content.decode()
        assert 'id="takedown"' not in page, name
    assert f"This submission was hidden by the operators: {REASON}" in staff.get(_pages(scene)["submission"]).content.decode()


def test_a_taken_down_run_shows_its_own_banner_and_leaves_the_submission_page_as_it_was(scene):
    on = _hide(scene, "run")
    owner = _as(scene["owner"])
    for name in ("run", "episode", "compare"):
        page = owner.get(_pages(scene)[name]).content.decode()
        assert f"This run was taken down by the operators on {on}: {REASON}." in page, name
        assert f"quoting the run&#x27;s number (#{scene['run'].pk})" in page
        assert "head-to-head" not in page  # a run's takedown cancels no match
    submission_page = owner.get(_pages(scene)["submission"]).content.decode()
    assert 'id="takedown"' not in submission_page and 'class="narrow-form experiment-form"' in submission_page
    assert _as(scene["stranger"]).get(_pages(scene)["run"]).status_code == 404


def test_the_api_detail_tells_the_owner_why_and_lists_stay_without_it(scene):
    on = _hide(scene, "submission")
    owner = _as(scene["owner"])
    submission, run = scene["submission"].pk, scene["run"].pk
    for url, what, pk in ((f"/api/submissions/{submission}/", "submission", submission), (f"/api/runs/{run}/", "submission", submission)):
        takedown = owner.get(url).json()["takedown"]
        assert {k: takedown[k] for k in ("status", "what", "id", "reason")} == {
            "status": "taken_down", "what": what, "id": pk, "reason": REASON}
        assert takedown["on"].startswith(on) and KEPT in takedown["kept"] and f"#{submission}" in takedown["contact"]
    # The episode page's steps read for the owner too.
    assert owner.get(f"/api/episodes/{scene['episode'].pk}/steps/").status_code == 200
    # Lists, exports and everyone else's reads: as before.
    assert submission not in [row["id"] for row in owner.get("/api/submissions/").json()["results"]]
    assert run not in [row["id"] for row in owner.get("/api/runs/").json()["results"]]
    for url in (f"/episodes/{scene['episode'].pk}/steps.jsonl", f"/runs/{run}/episodes.zip"):
        assert owner.get(url).status_code == 404, url
    for url in (f"/api/submissions/{submission}/", f"/api/runs/{run}/", f"/api/episodes/{scene['episode'].pk}/"):
        assert _as(scene["stranger"]).get(url).status_code == 404, url
    # Nothing taken down: null for everyone.
    public = scene["other_episode"].run
    assert _as(None).get(f"/api/runs/{public.pk}/").json()["takedown"] is None
    assert _as(None).get(f"/api/submissions/{public.submission_id}/").json()["takedown"] is None


def test_the_api_experiment_and_episode_details_tell_the_owner_why_as_the_others_do(scene):
    on = _hide(scene, "submission")
    submission, experiment, episode = scene["submission"].pk, scene["experiment"].pk, scene["episode"].pk
    owner = _as(scene["owner"])
    for url in (f"/api/experiments/{experiment}/", f"/api/episodes/{episode}/"):
        response = owner.get(url)
        assert response.status_code == 200, url
        takedown = response.json()["takedown"]
        assert {k: takedown[k] for k in ("status", "what", "id", "reason")} == {
            "status": "taken_down", "what": "submission", "id": submission, "reason": REASON}, url
        assert takedown["on"].startswith(on) and KEPT in takedown["kept"] and f"#{submission}" in takedown["contact"]
    # The list leaves it out for the owner too.
    assert experiment not in [row["id"] for row in owner.get("/api/experiments/").json()["results"]]
    # Anyone else: the very 404 of an experiment that never existed.
    nowhere = _as(None).get(f"/api/experiments/{10**9}/")
    for user in (None, scene["stranger"]):
        response = _as(user).get(f"/api/experiments/{experiment}/")
        assert (response.status_code, response.content) == (nowhere.status_code, nowhere.content) == (404, nowhere.content)
    # Staff read it as before.
    assert _as(scene["staff"]).get(f"/api/experiments/{experiment}/").json()["runs"] == list(
        scene["experiment"].runs.order_by("pk").values_list("pk", flat=True))


def test_an_episode_of_a_taken_down_run_says_so_and_a_public_one_says_null(scene):
    _hide(scene, "run")
    takedown = _as(scene["owner"]).get(f"/api/episodes/{scene['episode'].pk}/").json()["takedown"]
    assert (takedown["what"], takedown["id"], takedown["reason"]) == ("run", scene["run"].pk, REASON)
    assert _as(scene["stranger"]).get(f"/api/episodes/{scene['episode'].pk}/").status_code == 404
    assert _as(None).get(f"/api/episodes/{scene['other_episode'].pk}/").json()["takedown"] is None
    assert _as(None).get(f"/api/experiments/{scene['experiment'].pk}/").json()["takedown"] is None


def test_the_owners_list_links_to_the_page_that_says_why(scene):
    _hide(scene, "submission")
    page = _as(scene["owner"]).get("/submissions/mine/").content.decode()
    assert f'href="/submissions/{scene["submission"].pk}/"' in page


def test_a_taken_down_submissions_match_page_stays_404_for_its_owner(scene, baseline):
    match = Match.objects.create(game="tictactoe", first=scene["submission"], second=baseline("random"))
    _hide(scene, "submission")
    assert _as(scene["owner"]).get(f"/matches/{match.pk}/").status_code == 404
    assert Episode.objects.filter(run=scene["run"], status=Episode.SKIPPED).count() == 2


def _compare(user, a, b) -> tuple[int, str]:
    page, api = _as(user).get(f"/compare/?a={a}&b={b}"), _as(user).get(f"/api/compare/?a={a}&b={b}")
    assert page.status_code == api.status_code
    return page.status_code, page.content.decode() + api.content.decode()


def test_the_comparison_of_two_submissions_leaves_a_taken_down_one_out_without_a_leak(scene):
    hidden, public = scene["submission"].pk, scene["other_episode"].run.submission_id
    assert _compare(None, hidden, public)[0] == 200
    _hide(scene, "submission")
    nothing = f"there is no submission {hidden} (parameter a)"  # what an id that exists nowhere gets
    assert f"there is no submission {10**9} (parameter a)" in _compare(None, 10**9, public)[1]
    for user in (None, scene["stranger"]):
        status, text = _compare(user, hidden, public)
        assert status == 400 and text.count(nothing) == 2 and "Hidden-7B" not in text and "taken down" not in text
    status, text = _compare(scene["owner"], hidden, public)
    assert status == 400 and f"submission {hidden} (parameter a) was taken down by the operators" in text


def test_a_taken_down_run_is_left_out_of_its_submissions_comparison(scene):
    for episode in (scene["episode"], scene["other_episode"]):
        Episode.objects.filter(pk=episode.pk).update(status=Episode.FINISHED, score=1.0)
        type(episode.run).objects.filter(pk=episode.run_id).update(episodes_done=1)
    a, b = scene["submission"].pk, scene["other_episode"].run.submission_id
    assert f"/runs/{scene['run'].pk}/" in _compare(None, a, b)[1]
    _hide(scene, "run")
    status, text = _compare(None, a, b)
    assert status == 200 and f"/runs/{scene['run'].pk}/" not in text


def test_the_banner_names_the_operators_contact_when_the_operator_set_one(scene, settings):
    _hide(scene, "submission")
    owner = _as(scene["owner"])
    page = f"/submissions/{scene['submission'].pk}/"
    assert "abuse@arena.example" not in owner.get(page).content.decode()
    settings.ARENA_OPERATOR_CONTACT = "abuse@arena.example"
    assert "contact the operators of this arena (abuse@arena.example)" in owner.get(page).content.decode()
    takedown = owner.get(f"/api/submissions/{scene['submission'].pk}/").json()["takedown"]
    assert "abuse@arena.example" in takedown["contact"]
