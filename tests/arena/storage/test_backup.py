"""Backups (issue 29): back up, wipe, restore, and every page, API answer, export and
stored picture is what it was, byte for byte; on SQLite and on PostgreSQL."""

import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command
from django.core.management.base import CommandError

from arena.models import StoredImage, Submission
from tests.conftest import new_run

# A form's CSRF token is new on every rendering: the only part of a page that may differ.
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def _pages(client, run, episode) -> dict[str, bytes]:
    image = StoredImage.objects.first()
    urls = [
        "/", "/tasks/", "/tasks/lmact/gridworld/", f"/runs/{run.pk}/", f"/episodes/{episode.pk}/",
        f"/submissions/{run.submission_id}/", f"/api/runs/{run.pk}/", f"/api/episodes/{episode.pk}/steps/",
        "/api/submissions/", f"/episodes/{episode.pk}/steps.jsonl", image.url,
    ]
    pages = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        body = _drain(response) if response.streaming else response.content
        pages[url] = CSRF.sub("", body.decode("utf-8", "replace")) if not url.endswith(".png") else body
    return pages


def _drain(response) -> bytes:
    if not response.is_async:
        return b"".join(response.streaming_content)

    async def gather():
        return b"".join([chunk async for chunk in response.streaming_content])

    return async_to_sync(gather)()


def _scene(baseline, play):
    run = new_run(baseline("expert"), task="lmact/gridworld", fmt="rgb", episodes=2)
    play(*run.episodes.values_list("id", flat=True))
    run.refresh_from_db()
    assert run.status == "finished" and StoredImage.objects.exists()
    return run, run.episodes.first()


def _back_up_wipe_restore(client, tmp_path, run, episode, settings):
    before = _pages(client, run, episode)
    archive = tmp_path / "arena.tar.gz"
    call_command("arena_backup", str(archive))
    with tarfile.open(archive) as opened:
        names = opened.getnames()
    assert "manifest.json" in names and any(name.startswith("media/images/") for name in names)

    call_command("flush", interactive=False)
    shutil.rmtree(Path(settings.MEDIA_ROOT) / "images")
    assert client.get(f"/runs/{run.pk}/").status_code == 404 and not Submission.objects.exists()

    call_command("arena_restore", str(archive), "--yes")
    after = _pages(client, run, episode)
    assert after.keys() == before.keys()
    for url in before:
        assert after[url] == before[url], url


@pytest.mark.django_db(transaction=True)
def test_back_up_wipe_and_restore_gives_identical_pages_on_sqlite(client, tmp_path, baseline, play, settings):
    run, episode = _scene(baseline, play)
    _back_up_wipe_restore(client, tmp_path, run, episode, settings)


@pytest.mark.django_db
def test_a_file_that_is_not_a_backup_changes_nothing(tmp_path, baseline):
    baseline("expert")
    bogus = tmp_path / "bogus.tar.gz"
    bogus.write_bytes(b"not an archive")
    with pytest.raises(CommandError, match="not an arena backup archive"):
        call_command("arena_restore", str(bogus), "--yes")
    assert Submission.objects.count() == 1
    with pytest.raises(CommandError, match="exists"):
        call_command("arena_backup", str(bogus))


# The same on PostgreSQL, in a process of its own whose settings name the server: play,
# read the pages, back up, wipe, restore, read them again.
ON_POSTGRES = """
import django, shutil, sys
from pathlib import Path
django.setup()
from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission
from arena.play.runner import EpisodeRunner
from tests.arena.storage.test_backup import _pages

submission = baseline_submission("expert", "Expert")
run = run_create(submission, RunSpec(task="lmact/gridworld", format="rgb", num_episodes=2, first_seed=0))
for episode_id in run.episodes.values_list("id", flat=True):
    async_to_sync(EpisodeRunner("w").run)(episode_id)
episode = run.episodes.first()
before = _pages(Client(), run, episode)
call_command("arena_backup", sys.argv[1])
call_command("flush", interactive=False)
shutil.rmtree(Path(settings.MEDIA_ROOT) / "images")
assert Client().get(f"/runs/{run.pk}/").status_code == 404
call_command("arena_restore", sys.argv[1], "--yes")
after = _pages(Client(), run, episode)
different = [url for url in before if after.get(url) != before[url]]
print(f"{len(before)} pages, {len(different)} different: {different}")
"""


def test_back_up_wipe_and_restore_gives_identical_pages_on_postgres(tmp_path):
    from tests.arena.test_postgres_scaled_mode import ROOT, environment_of, manage
    from tests.support.postgres import PostgresServer, PostgresUnavailable

    try:
        server = PostgresServer.start()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        environment = environment_of(server.create_database("backup"), tmp_path / "var", ARENA_QUEUE="sqlite")
        manage(environment, "migrate", "-v0")
        result = subprocess.run(
            [sys.executable, "-c", ON_POSTGRES, str(tmp_path / "arena.tar.gz")],
            cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "11 pages, 0 different: []" in result.stdout, result.stdout
