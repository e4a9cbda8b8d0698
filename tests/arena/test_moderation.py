"""Moderation (issue 29): staff hide, flag, verify and restore a submission or a run
with a public reason; hidden rows drop out of every ranking, CSV and rating; the owner is
told why; every decision is in the audit trail."""

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from arena.services.submissions import submission_create
from arena.models import ModerationAction, Run, Submission
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

TASK = "lmact/gridworld"
REASON = "the endpoint was misconfigured: every episode was illegal"
RANKINGS = (
    "/", f"/tasks/{TASK}/", f"/api/leaderboard/?task={TASK}", f"/api/leaderboard/?task={TASK}&format=csv",
    "/api/leaderboard/overall/", "/api/leaderboard/overall/?format=csv",
)


def _scored(submission, score, fmt="ascii"):
    run = new_run(submission, task=TASK, fmt=fmt, episodes=2)
    Run.objects.filter(pk=run.pk).update(
        status=Run.FINISHED, episodes_done=2, score_sum=2 * score, score_sq_sum=2 * score * score,
        illegal_episodes=2, steps_total=20,
    )
    return Run.objects.get(pk=run.pk)


@pytest.fixture
def scene():
    owner = User.objects.create_user("owner", password="a-long-password-9")
    staff = User.objects.create_user("operator", password="a-long-password-9", is_staff=True)
    made = {}
    for name, score in (("Quokka-7B", 0.9), ("Wombat-13B", 0.4)):
        made[name] = submission_create(
            owner=owner, fields={"name": name, "base_url": "http://example.org/v1", "model": name.lower()},
            api_key="", runs=[],
        )
        made[name + " run"] = _scored(made[name], score)
    made["Quokka-7B coords run"] = _scored(made["Quokka-7B"], 0.8, fmt="coords")
    return {"owner": owner, "staff": staff, **made}


def _ranked_everywhere(client, name) -> list[str]:
    return [url for url in RANKINGS if name in client.get(url).content.decode()]


def _moderate(client, target, pk, action, reason=""):
    return client.post("/moderation/", {"target": target, "target_id": pk, "action": action, "reason": reason})


def test_a_hidden_submission_leaves_every_ranking_with_its_reason_shown_and_comes_back(client, scene):
    quokka = scene["Quokka-7B"]
    assert _ranked_everywhere(client, "Quokka-7B") == list(RANKINGS)
    staff = APIClient()
    staff.force_login(scene["staff"])
    assert _moderate(staff, "submission", quokka.pk, "hide", REASON).status_code == 302

    assert _ranked_everywhere(client, "Quokka-7B") == []
    assert _ranked_everywhere(client, "Wombat-13B") == list(RANKINGS)  # the other stays, first now
    # Taken down for everyone but staff and its owner, who is told why on their submission list.
    assert client.get(f"/submissions/{quokka.pk}/").status_code == 404
    staff_page = staff.get(f"/submissions/{quokka.pk}/").content.decode()
    assert f"This submission was hidden by the operators: {REASON}" in staff_page
    run_page = staff.get(f"/runs/{scene['Quokka-7B run'].pk}/").content.decode()
    assert f"This run's submission was hidden by the operators: {REASON}" in run_page
    assert staff.get(f"/api/submissions/{quokka.pk}/").json()["moderation"] == "hidden"
    client.force_login(scene["owner"])
    assert "taken down by the operators on" in client.get(f"/submissions/{quokka.pk}/").content.decode()
    assert f"taken down</strong>: {REASON}" in client.get("/submissions/mine/").content.decode()
    client.logout()

    assert _moderate(staff, "submission", quokka.pk, "restore").status_code == 302
    assert _ranked_everywhere(client, "Quokka-7B") == list(RANKINGS)
    assert "hidden by the operators" not in client.get(f"/submissions/{quokka.pk}/").content.decode()
    trail = list(ModerationAction.objects.order_by("at", "id").values_list("action", "reason", "by__username"))
    assert trail == [("hide", REASON, "operator"), ("restore", "", "operator")]
    shown = staff.get("/moderation/").content.decode()
    assert REASON in shown and "restore" in shown


def test_a_hidden_run_leaves_the_rankings_and_the_submissions_other_runs_stay(client, scene):
    staff = APIClient()
    staff.force_login(scene["staff"])
    hidden = scene["Quokka-7B run"]
    _moderate(staff, "run", hidden.pk, "hide", "a result under review")
    text = str(client.get(f"/api/leaderboard/?task={TASK}").json())
    assert f"/runs/{hidden.pk}/" not in text and f"/runs/{scene['Quokka-7B coords run'].pk}/" in text
    csv = client.get(f"/api/leaderboard/?task={TASK}&format=csv").content.decode()
    assert f"/runs/{hidden.pk}/" not in csv and f"/runs/{scene['Quokka-7B coords run'].pk}/" in csv
    assert client.get(f"/runs/{hidden.pk}/").status_code == 404  # taken down for strangers
    assert "This run was hidden by the operators: a result under review" in staff.get(f"/runs/{hidden.pk}/").content.decode()
    assert staff.get(f"/api/runs/{hidden.pk}/").json()["moderation_reason"] == "a result under review"


def test_a_flagged_or_verified_submission_stays_ranked_with_its_mark(client, scene):
    staff = APIClient()
    staff.force_login(scene["staff"])
    wombat = scene["Wombat-13B"]
    _moderate(staff, "submission", wombat.pk, "flag", "result under review")
    assert _ranked_everywhere(client, "Wombat-13B") == list(RANKINGS)
    mark = 'title="Flagged by the operators: result under review">flagged</span>'
    assert mark in client.get(f"/tasks/{TASK}/").content.decode() and mark in client.get("/").content.decode()
    assert "flagged by the operators: result under review" in client.get(f"/submissions/{wombat.pk}/").content.decode()
    _moderate(staff, "submission", wombat.pk, "verify")
    assert "This submission was verified by the operators." in client.get(f"/submissions/{wombat.pk}/").content.decode()


def test_hiding_needs_a_reason_and_staff(client, scene):
    quokka = scene["Quokka-7B"]
    staff = APIClient()
    staff.force_login(scene["staff"])
    refused = _moderate(staff, "submission", quokka.pk, "hide", "   ")
    assert refused.status_code == 400 and "the reason to hide is shown publicly" in refused.content.decode()
    missing = _moderate(staff, "run", 999_999, "hide", REASON)
    assert missing.status_code == 400 and "There is no run 999999" in missing.content.decode()
    client.force_login(scene["owner"])  # not staff: sent to the admin's sign-in, nothing changes
    assert _moderate(client, "submission", quokka.pk, "hide", REASON).status_code == 302
    assert client.get("/moderation/").status_code == 302
    quokka.refresh_from_db()
    assert quokka.moderation == "" and not ModerationAction.objects.exists()
    assert "Quokka-7B" in client.get(f"/tasks/{TASK}/").content.decode()
    assert Submission.objects.filter(moderation="").count() == 2
