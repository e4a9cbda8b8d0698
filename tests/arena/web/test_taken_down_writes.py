"""Every write on a taken-down submission (or run) is refused and changes nothing: the API
and the pages answer as for content taken down (404, the owner included, who reads why on
its pages' banner and their submission list) or, where the submission is named in the request (an experiment),
400 with the reason; the services refuse too, for a takedown between a page's read and
its write (arena.moderation.refuse_if_taken_down)."""

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from arena import queue
from arena.matches.scheduler import opted_in_models
from arena.models import Episode, Experiment, Run, Submission, SubmissionEdit
from arena.moderation import TakenDown
from arena.services.reruns import rerun_older_runs
from arena.services.run_actions import run_requeue_failed
from arena.services.submissions import experiment_create, submission_create
from arena.services.takedowns import moderate_and_apply
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

REASON = "abusive name"
EXPERIMENT = {"kind": "sweep", "task": "lmact/gridworld:ascii", "num_episodes": 2, "max_demonstrations": 1}


@pytest.fixture
def scene():
    owner = User.objects.create_user("owner", password="a-long-password-9")
    staff = User.objects.create_user("operator", password="a-long-password-9", is_staff=True)
    submission = submission_create(
        owner=owner, fields={"name": "Hidden-7B", "base_url": "http://example.org/v1", "model": "m", "head_to_head": True},
        api_key="", runs=[],
    )
    run = new_run(submission, episodes=2)
    # A failed run played under an older harness: something to re-queue and to re-run.
    run.episodes.update(status=Episode.FAILED, end_reason="failed", error="HTTP 500")
    Run.objects.filter(pk=run.pk).update(status=Run.FAILED, episodes_failed=2, harness_version="before-versioning")
    queue.huey.flush()
    return {"owner": owner, "staff": staff, "submission": submission, "run": Run.objects.get(pk=run.pk)}


def _hide(scene, target):
    moderate_and_apply(scene[target], "hide", REASON, by=scene["staff"])


def _owner(scene) -> APIClient:
    client = APIClient()
    client.force_login(scene["owner"])
    return client


def _state(scene) -> dict:
    """What any of the writes would change."""
    submission = Submission.objects.get(pk=scene["submission"].pk)
    return {
        "runs": list(Run.objects.order_by("pk").values_list("pk", "status")),
        "episodes": list(Episode.objects.order_by("pk").values_list("pk", "status")),
        "experiments": Experiment.objects.count(),
        "endpoint": (submission.base_url, submission.model, submission.endpoint_probe),
        "edits": SubmissionEdit.objects.count(),
        "queued": queue.pending_episode_ids(),
    }


def _writes(scene) -> dict[str, tuple[str, dict]]:
    submission, run = scene["submission"].pk, scene["run"].pk
    return {
        "API: experiment": (f"/api/experiments/", {**EXPERIMENT, "submission": submission}),
        "API: re-queue a run": (f"/api/runs/{run}/requeue/", {}),
        "API: cancel a run": (f"/api/runs/{run}/cancel/", {}),
        "API: re-run older runs": (f"/api/submissions/{submission}/rerun-older/", {}),
        "page: experiment form": (f"/submissions/{submission}/", {"kind": "sweep", "task": "lmact/gridworld:ascii",
                                                                  "episodes": 2, "max_demonstrations": 1}),
        "page: re-queue a run": (f"/runs/{run}/requeue/", {}),
        "page: cancel a run": (f"/runs/{run}/cancel/", {}),
        "page: cancel the submission": (f"/submissions/{submission}/cancel/", {}),
        "page: test the endpoint": (f"/submissions/{submission}/probe/", {}),
        "page: change the endpoint": (f"/submissions/{submission}/endpoint/",
                                      {"base_url": "http://example.com/v1", "model": "other", "api_key": ""}),
        "page: re-run older runs": (f"/submissions/{submission}/rerun-older/", {}),
    }


def test_every_write_on_a_taken_down_submission_is_refused_and_changes_nothing(scene):
    _hide(scene, "submission")
    before = _state(scene)
    owner = _owner(scene)
    answers = {}
    for name, (url, data) in _writes(scene).items():
        response = owner.post(url, data, format="json" if name.startswith("API") else None)
        answers[name] = response.status_code
        assert _state(scene) == before, name
    assert answers == {name: 400 if name == "API: experiment" else 404 for name in answers}
    refusal = owner.post("/api/experiments/", {**EXPERIMENT, "submission": scene["submission"].pk}, format="json")
    assert refusal.json()["submission"] == [
        f"This submission was taken down by the operators ({REASON}): it takes no new runs, experiments or "
        "re-queues until they restore it."
    ]
    # Nor is it entered into head-to-head matches.
    assert scene["submission"].pk not in [s.pk for s in opted_in_models()]


def test_a_taken_down_run_takes_no_requeue_nor_rerun_and_its_submission_keeps_the_rest(scene):
    _hide(scene, "run")
    before = _state(scene)
    owner = _owner(scene)
    for name in ("API: re-queue a run", "API: cancel a run", "page: re-queue a run", "page: cancel a run"):
        url, data = _writes(scene)[name]
        assert owner.post(url, data).status_code == 404, name
    # Re-running the submission's older runs leaves the taken-down one alone.
    assert owner.post(f"/api/submissions/{scene['submission'].pk}/rerun-older/").json() == {"queued_runs": []}
    assert _state(scene) == before
    # The submission itself still takes experiments.
    created = owner.post("/api/experiments/", {**EXPERIMENT, "submission": scene["submission"].pk}, format="json")
    assert created.status_code == 201


def test_the_services_refuse_a_takedown_that_came_between_the_read_and_the_write(scene):
    submission, run = scene["submission"], scene["run"]  # read before the takedown
    _hide(scene, "submission")
    before = _state(scene)
    for write in (
        lambda: experiment_create(submission, kind="sweep", task="lmact/gridworld", format="ascii", num_episodes=2),
        lambda: rerun_older_runs(submission),
        lambda: run_requeue_failed(run),
    ):
        with pytest.raises(TakenDown, match=f"taken down by the operators \\({REASON}\\)"):
            write()
        assert _state(scene) == before


def test_a_taken_down_submissions_experiments_are_not_listed_and_their_detail_says_why(scene):
    owner = _owner(scene)
    experiment = owner.post("/api/experiments/", {**EXPERIMENT, "submission": scene["submission"].pk}, format="json")
    assert experiment.status_code == 201 and experiment.json()["takedown"] is None
    _hide(scene, "submission")
    assert owner.get("/api/experiments/").json()["results"] == []
    # Its owner reads the detail, as the submission's (tests/leaderboard/web/test_taken_down_pages.py).
    detail = owner.get(f"/api/experiments/{experiment.json()['id']}/")
    assert detail.status_code == 200 and detail.json()["takedown"]["reason"] == REASON
