"""Results stamped with their harness (envs.harness, arena.selectors.older_runs, arena.services.reruns, leaderboard.boards.harness):
every run stores the suite version it was played under, the leaderboards, the API and the
CSV show it and mark runs from another version, and the owner's one click plays those
runs again under the current version through the fair queue, keeping the older ones."""

import csv
import dataclasses
import io

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from arena import queue
from arena.services.episodes import episode_claim, episode_finish
from arena.selectors import older_runs
from arena.services.reruns import rerun_older_runs
from arena.models import Episode, Run
from envs import harness
from envs.registry import get_suite
from tests.support.episodes import WORKER, record_step, scripted_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def raise_lmact_to_v2(monkeypatch):
    """Raises the LMAct suite's protocol to v2 after runs were played under v1 (what a
    changed prompt template does), the other suites left as they are."""
    original = harness.current_version

    def current(suite):
        if suite.id == "lmact":
            return harness.version_string(2, original(suite).partition("+")[2])
        return original(suite)

    return lambda: monkeypatch.setattr(harness, "current_version", current)


@pytest.fixture
def owner(db):
    return User.objects.create_user("owner", password="pw-owner-1234")


@pytest.fixture
def owned(make_model_submission, owner):
    submission = make_model_submission(name="Versioned", budget_tokens_per_run=50_000)
    submission.owner = owner
    submission.save()
    return submission


def test_a_suites_version_is_its_protocol_and_a_digest_of_its_engines_versions():
    balrog = get_suite("balrog")
    version = harness.current_version(balrog)
    stamp = harness.Stamp.parse(version)
    assert stamp.protocol == balrog.protocol_version == 2 and len(stamp.digest) == harness.DIGEST_LENGTH
    assert version == harness.version_string(2, harness.engines_digest(harness.package_versions(balrog.engine_packages)))
    # Another engine version, or a raised protocol, is another version.
    versions = harness.package_versions(balrog.engine_packages)
    assert harness.engines_digest({**versions, "nle": "0.0.1"}) != stamp.digest
    raised = dataclasses.replace(balrog, protocol_version=3)
    assert harness.current_version(raised) != version and harness.current_version(raised).startswith("v3+")
    # The order packages are named in does not matter; a missing one is "absent".
    assert harness.engines_digest(dict(reversed(list(versions.items())))) == stamp.digest
    assert harness.package_versions(["no-such-distribution-here"]) == {"no-such-distribution-here": "absent"}


def test_the_notes_say_which_harness_a_run_came_from():
    lmact = get_suite("lmact")
    current = harness.Stamp.parse(harness.current_version(lmact))
    older = harness.standing(harness.version_string(current.protocol, current.digest), lmact)
    assert older.is_current and not older.is_old
    newer_protocol = harness.Standing(harness.Stamp.parse("v3+aaaaaaaa"), harness.Stamp.parse("v4+aaaaaaaa"), lmact)
    assert newer_protocol.is_old and newer_protocol.note == "played under LMAct suite v3; current v4"
    engines = harness.Standing(harness.Stamp.parse("v4+bbbbbbbb"), harness.Stamp.parse("v4+aaaaaaaa"), lmact)
    assert engines.is_old and "other engine versions (engines bbbbbbbb); current engines aaaaaaaa" in engines.note
    unknown = harness.standing(harness.BEFORE_VERSIONING, lmact)
    assert unknown.is_old and unknown.played.protocol is None
    assert unknown.note.startswith("played before harness versions were recorded; current LMAct suite v1")
    # An imported run was never played here: not current, but no re-run brings it up to date.
    imported = harness.standing(harness.IMPORTED, lmact)
    assert not imported.is_current and not imported.is_old


def test_every_new_run_is_stamped_with_its_suites_current_version(make_model_submission):
    run = scripted_run(make_model_submission(), [1.0], preset=False)
    assert run.harness_version == harness.current_version(get_suite("lmact"))
    info = scripted_run(make_model_submission(), [0.0], task="infogather/single-feature", fmt="text", preset=False)
    assert info.harness_version == harness.current_version(get_suite("infogather"))


@pytest.mark.django_db(transaction=True)
def test_the_migration_labels_existing_runs_as_played_before_versioning():
    executor = MigrationExecutor(connection)
    before = [("arena", "0019_baseline_figures")]
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    OldSubmission, OldRun = old_apps.get_model("arena", "Submission"), old_apps.get_model("arena", "Run")
    submission = OldSubmission.objects.create(name="Old", kind="model")
    old_run = OldRun.objects.create(submission=submission, task="lmact/gridworld", variant={"format": "ascii"}, num_episodes=1)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert Run.objects.get(pk=old_run.pk).harness_version == harness.BEFORE_VERSIONING
    # Never today's version made up for them: they are marked older than it.
    assert harness.standing(Run.objects.get(pk=old_run.pk).harness_version, get_suite("lmact")).is_old


def test_a_changed_suite_version_marks_older_rows_on_pages_api_and_csv(client, owned, raise_lmact_to_v2,
                                                                        make_model_submission):
    old = scripted_run(owned, [1.0, 0.0], preset=False)
    other_suite = scripted_run(owned, [0.0], task="infogather/single-feature", fmt="text", preset=False)
    raise_lmact_to_v2()
    note = "played under LMAct suite v1; current v2"

    task_page = client.get("/tasks/lmact/gridworld/").content.decode()
    assert note in task_page and 'class="harness-old"' in task_page
    info_page = client.get("/tasks/infogather/single-feature/").content.decode()
    assert 'class="harness-old"' not in info_page and 'class="muted harness-version"' in info_page

    api = client.get(f"/api/runs/{old.pk}/").json()["harness"]
    assert api == {
        "harness_version": old.harness_version, "harness_current": harness.current_version(get_suite("lmact")),
        "harness_is_current": False, "harness_note": note,
    }
    assert client.get(f"/api/runs/{other_suite.pk}/").json()["harness"]["harness_is_current"] is True

    rows = list(csv.reader(io.StringIO(client.get("/api/leaderboard/?task=lmact/gridworld&format=csv").content.decode())))
    header, record = rows[0], rows[1]
    assert record[header.index("Harness version")] == old.harness_version
    assert record[header.index("Harness current")] == note

    overall = client.get("/").content.decode()
    assert "1 run played under LMAct suite v1; current v2" in overall
    overall_json = client.get("/api/leaderboard/overall/").json()
    row = next(r for r in overall_json["rows"] + overall_json["custom_rows"] if r["submission"]["id"] == owned.pk)
    assert row["harness"]["runs_not_current"] == 1 and row["harness"]["notes"] == [f"1 run {note}"]

    model_page = client.get(owned.get_absolute_url()).content.decode()
    assert 'id="older-harness"' in model_page and 'id="rerun-older"' not in model_page  # not the owner


def test_the_owners_one_click_plays_older_runs_again_under_the_current_version(client, owned, owner,
                                                                               raise_lmact_to_v2,
                                                                               django_capture_on_commit_callbacks):
    old = scripted_run(owned, [1.0, 0.0, 1.0], first_seed=7, preset=False)
    current = scripted_run(owned, [0.0], task="infogather/single-feature", fmt="text", preset=False)
    raise_lmact_to_v2()
    assert older_runs(owned) == [old]
    pending_before = queue.pending_count()

    client.force_login(owner)
    assert 'id="rerun-older"' in client.get(owned.get_absolute_url()).content.decode()
    with django_capture_on_commit_callbacks(execute=True):  # the queue messages go out on commit
        response = client.post(f"/submissions/{owned.pk}/rerun-older/", follow=True)
    assert "1 run queued again under the current harness" in response.content.decode()

    fresh = Run.objects.exclude(pk__in=[old.pk, current.pk]).get(submission=owned)
    assert (fresh.task, fresh.variant, fresh.first_seed, fresh.num_episodes) == (
        old.task, old.variant, old.first_seed, old.num_episodes)
    assert fresh.harness_version.startswith("v2+") and fresh.status == Run.QUEUED
    assert fresh.budget_tokens == 50_000  # the submission's budget per run
    seeds = list(fresh.episodes.order_by("index").values_list("seed", flat=True))
    assert seeds == [7, 8, 9]
    # Through the fair queue: each episode a message in the users' band.
    assert queue.pending_count() == pending_before + 3
    priorities = fresh.episodes.values_list("queue_priority", flat=True)
    assert {queue.band_of(p) for p in priorities} == {queue.USER}
    # The older run is kept, still marked; the page no longer offers a re-run.
    old.refresh_from_db()
    assert old.status == Run.FINISHED and old.episodes_done == 3
    assert older_runs(owned) == []
    assert 'id="older-harness"' not in client.get(owned.get_absolute_url()).content.decode()
    # A second click finds nothing to play again.
    assert rerun_older_runs(owned) == []
    assert "already under its suite" in client.post(
        f"/submissions/{owned.pk}/rerun-older/", follow=True).content.decode()
    assert Run.objects.filter(submission=owned).count() == 3

    # Once the fresh run is played, the overall figures are the current run's: the row is
    # no longer marked, while the task leaderboard keeps the older row, marked.
    assert "1 run played under LMAct suite v1; current v2" in client.get("/").content.decode()
    for episode, score in zip(fresh.episodes.order_by("index"), [0.0, 0.0, 1.0]):
        assert episode_claim(episode.id, WORKER)
        record_step(episode.id, 0, "up", done=True)
        episode_finish(episode.id, WORKER, score=score, end_reason="step limit")
    assert "1 run played under LMAct suite v1; current v2" not in client.get("/").content.decode()
    overall_json = client.get("/api/leaderboard/overall/").json()
    row = next(r for r in overall_json["rows"] + overall_json["custom_rows"] if r["submission"]["id"] == owned.pk)
    assert row["harness"]["runs_not_current"] == 0
    assert row["cells"]["lmact.gridworld"]["mean"] == pytest.approx(1 / 3)  # the fresh run's, not the older 2/3
    task_page = client.get("/tasks/lmact/gridworld/").content.decode()
    assert task_page.count("played under LMAct suite v1; current v2") == 1


def test_only_the_owner_can_play_runs_again(client, owned, raise_lmact_to_v2):
    scripted_run(owned, [1.0], preset=False)
    raise_lmact_to_v2()
    stranger = User.objects.create_user("stranger", password="pw-stranger-1234")
    client.force_login(stranger)
    assert client.post(f"/submissions/{owned.pk}/rerun-older/").status_code == 403
    assert Run.objects.filter(submission=owned).count() == 1
    assert not Episode.objects.filter(run__submission=owned, status=Episode.QUEUED).exists()


def test_the_api_plays_older_runs_again_for_the_owner_only(client, owned, owner, raise_lmact_to_v2):
    old = scripted_run(owned, [1.0], preset=False)
    raise_lmact_to_v2()
    stranger = User.objects.create_user("api-stranger", password="pw-stranger-1234")
    client.force_login(stranger)
    assert client.post(f"/api/submissions/{owned.pk}/rerun-older/").status_code == 403
    client.force_login(owner)
    queued = client.post(f"/api/submissions/{owned.pk}/rerun-older/").json()["queued_runs"]
    fresh = Run.objects.get(pk=queued[0])
    assert len(queued) == 1 and (fresh.task, fresh.variant) == (old.task, old.variant)
    assert client.post(f"/api/submissions/{owned.pk}/rerun-older/").json() == {"queued_runs": []}


def test_imported_runs_are_labelled_imported_and_never_played_again(owned, raise_lmact_to_v2):
    run = scripted_run(owned, [1.0], preset=False)
    raise_lmact_to_v2()
    Run.objects.filter(pk=run.pk).update(harness_version=harness.IMPORTED)
    assert older_runs(owned) == [] and rerun_older_runs(owned) == []


def test_suite_pages_pool_the_current_run_once_an_older_one_was_played_again(client, owned):
    from tests.support.balrog import played_run

    old = played_run(owned, "balrog/crafter", progress=[10.0, 10.0])
    Run.objects.filter(pk=old.pk).update(harness_version=harness.version_string(0, "00000000"))
    kept_apart = played_run(owned, "balrog/babyai-goto", progress=[20.0, 40.0])
    Run.objects.filter(pk=kept_apart.pk).update(harness_version=harness.BEFORE_VERSIONING)
    page = client.get("/suites/balrog/")
    crafter = next(cell for cell in page.context["board"].ranked[0].cells if cell.environment.name == "crafter")
    assert crafter.figure.mean == pytest.approx(10.0)  # the older run, alone: shown, marked
    assert "played under BALROG suite v0" in page.content.decode()

    played_run(owned, "balrog/crafter", progress=[50.0, 50.0])  # the same run, under today's version
    page = client.get("/suites/balrog/")
    row = page.context["board"].ranked[0]
    cells = {cell.environment.name: cell for cell in row.cells}
    assert cells["crafter"].figure.mean == pytest.approx(50.0)  # not the pooled 30
    assert cells["babyai"].figure.mean == pytest.approx(30.0)  # nothing replaced it: kept, and marked
    assert "1 run played before harness versions were recorded" in page.content.decode()
    assert "played under BALROG suite v0" not in page.content.decode()


def test_a_rows_summary_counts_older_and_imported_runs_apart(owned, raise_lmact_to_v2):
    from leaderboard.boards.harness import row_harness

    older = scripted_run(owned, [1.0], preset=False)
    imported = scripted_run(owned, [0.0], first_seed=5, preset=False)
    current = scripted_run(owned, [0.0], task="infogather/single-feature", fmt="text", preset=False)
    raise_lmact_to_v2()
    Run.objects.filter(pk=imported.pk).update(harness_version=harness.IMPORTED)
    runs = list(Run.objects.filter(pk__in=[older.pk, imported.pk, current.pk]))
    summary = row_harness(runs + runs[:1])  # a run behind two cells is counted once
    assert (summary.runs, len(summary.older), summary.imported) == (3, 1, 1)
    assert summary.summary == (
        "1 of 3 runs not under the current harness: 1 run played under LMAct suite v1; current v2"
        " · 1 of 3 runs imported from another harness's logs"
    )
    assert row_harness([current]).summary == "all runs under the current harness"


def _older_note(client, submission) -> str:
    """The model page's note on older-harness runs, as its reader sees it ("" for none)."""
    page = client.get(submission.get_absolute_url()).content.decode()
    note = page.partition('id="older-harness">')[2].partition("</div>")[0]
    return " ".join(note.split())


def _older_notes_of_a_stranger_and(owner, client, submission) -> tuple[str, str]:
    """The older-harness note as a stranger reads it, then as `owner` does (left logged in)."""
    client.force_login(User.objects.create_user("stranger", password="pw-stranger-1234"))
    strangers_note = _older_note(client, submission)
    client.force_login(owner)
    return strangers_note, _older_note(client, submission)


@pytest.fixture
def staff(db):
    return User.objects.create_user("operator", password="pw-operator-1234", is_staff=True)


def test_a_taken_down_older_run_is_neither_counted_nor_played_again(client, owned, owner, staff, raise_lmact_to_v2):
    from arena.services.takedowns import moderate_and_apply

    kept = scripted_run(owned, [1.0], first_seed=3, preset=False)
    hidden = scripted_run(owned, [0.0, 1.0], first_seed=20, preset=False)
    raise_lmact_to_v2()
    moderate_and_apply(hidden, "hide", "leaked test set", by=staff)

    # Its owner reads the note a stranger reads: one run to play again, not two.
    strangers_note, owners_note = _older_notes_of_a_stranger_and(owner, client, owned)
    assert strangers_note.startswith("<p>1 run of this submission was not played under its suite's current harness")
    assert owners_note.startswith(strangers_note.partition("</p>")[0])
    assert "Play it again under the current harness" in owners_note

    response = client.post(f"/submissions/{owned.pk}/rerun-older/", follow=True)
    assert "1 run queued again under the current harness" in response.content.decode()
    fresh = Run.objects.filter(submission=owned).exclude(pk__in=[kept.pk, hidden.pk]).get()
    assert (fresh.first_seed, fresh.num_episodes) == (3, 1)  # the kept run's, nothing of the taken-down one's
    hidden_after = Run.objects.get(pk=hidden.pk)
    assert (hidden_after.moderation, hidden_after.status) == (Run.HIDDEN, hidden.status)
    assert not hidden_after.episodes.filter(status=Episode.QUEUED).exists()
    # Nothing is left to play again: no note that offers it, no second run of the taken-down one.
    assert _older_note(client, owned) == ""
    assert rerun_older_runs(owned) == []


def test_a_taken_down_rerun_does_not_count_as_played_again(client, owned, owner, staff, raise_lmact_to_v2):
    from arena.services.takedowns import moderate_and_apply

    old = scripted_run(owned, [1.0, 0.0], first_seed=7, preset=False)
    raise_lmact_to_v2()
    [taken_down] = rerun_older_runs(owned)
    for episode in taken_down.episodes.order_by("index"):  # played to the end, then taken down
        assert episode_claim(episode.id, WORKER)
        record_step(episode.id, 0, "up", done=True)
        episode_finish(episode.id, WORKER, score=1.0, end_reason="step limit")
    moderate_and_apply(taken_down, "hide", "abusive output", by=staff)

    # As if the taken-down re-run never existed, for its owner as for a stranger: the
    # older run is not played again under the current harness, and the owner may.
    strangers_note, owners_note = _older_notes_of_a_stranger_and(owner, client, owned)
    assert strangers_note.startswith("<p>1 run of this submission was not played under its suite's current harness")
    assert owners_note.startswith(strangers_note.partition("</p>")[0])
    assert older_runs(owned) == [old]

    queued = client.post(f"/api/submissions/{owned.pk}/rerun-older/").json()["queued_runs"]
    assert len(queued) == 1 and queued[0] not in (old.pk, taken_down.pk)
    fresh = Run.objects.get(pk=queued[0])
    assert (fresh.task, fresh.variant, fresh.first_seed, fresh.num_episodes) == (
        old.task, old.variant, old.first_seed, old.num_episodes)
    # The taken-down run stays down, as it was: hidden, finished, nothing of it queued.
    taken_down.refresh_from_db()
    assert (taken_down.moderation, taken_down.status, taken_down.episodes_done) == (Run.HIDDEN, Run.FINISHED, 2)
    assert not taken_down.episodes.exclude(status=Episode.FINISHED).exists()
