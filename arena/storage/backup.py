"""Back up and restore what the arena stores: the database and the stored images.

One archive (.tar.gz) holds `manifest.json` (format, database engine, when, the latest
migration of each app), the database (`database.sqlite3`, a consistent copy made with
SQLite's online backup while the site runs; or `database.pgdump`, pg_dump's custom
format) and `media/` (the content-addressed PNGs under MEDIA_ROOT/images).

Not in it, on purpose: the secrets in the var folder (SECRET_KEY, ARENA_ENCRYPTION_KEY).
Without the encryption key the submitters' stored API keys cannot be read, so it is
kept apart from the archives, as docs/deployment.md explains. Nor the task queue: a
restored queued episode whose queue message is missing is queued again (arena.play.requeue).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from arena import page_generation

ARCHIVE_FORMAT = 1
SQLITE_FILE, POSTGRES_FILE, MANIFEST, MEDIA = "database.sqlite3", "database.pgdump", "manifest.json", "media"
IMAGES = "images"  # under MEDIA_ROOT: arena.models.StoredImage.relative_path_of


class BackupError(Exception):
    """An archive that cannot be made or restored here; the message says why."""


def _engine() -> str:
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        raise BackupError(f"backups know SQLite and PostgreSQL, not {vendor}")
    return vendor


def _latest_migrations() -> dict[str, str]:
    latest: dict[str, str] = {}
    for app, name in MigrationRecorder(connection).migration_qs.order_by("app", "name").values_list("app", "name"):
        latest[app] = name
    return latest


def _postgres_env() -> tuple[list[str], dict[str, str]]:
    """pg_dump / pg_restore connection options, the password passed in the environment
    (never on a command line other users can read)."""
    db = connection.settings_dict
    args = ["--dbname", db["NAME"]]
    if db.get("HOST"):
        args += ["--host", db["HOST"]]
    if db.get("PORT"):
        args += ["--port", str(db["PORT"])]
    if db.get("USER"):
        args += ["--username", db["USER"]]
    env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
    return args, env


def _run(command: list[str], env: dict[str, str]) -> None:
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    except FileNotFoundError:
        raise BackupError(f"{command[0]} is not installed (Debian: apt-get install postgresql-client)") from None
    if done.returncode != 0:
        raise BackupError(f"{command[0]} failed: {done.stderr.strip()[-500:]}")


def backup(archive_path: Path) -> dict:
    """Write the archive; return its manifest."""
    engine = _engine()
    manifest = {
        "format": ARCHIVE_FORMAT, "engine": engine, "created_at": datetime.now(timezone.utc).isoformat(),
        "migrations": _latest_migrations(),
    }
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        if engine == "sqlite":
            connection.ensure_connection()
            copy = sqlite3.connect(scratch / SQLITE_FILE)
            try:
                connection.connection.backup(copy)
            finally:
                copy.close()
            database = scratch / SQLITE_FILE
        else:
            args, env = _postgres_env()
            database = scratch / POSTGRES_FILE
            _run(["pg_dump", "--format=custom", "--no-owner", "--no-privileges", "--file", str(database), *args], env)
        (scratch / MANIFEST).write_text(json.dumps(manifest, indent=2))
        with tarfile.open(archive_path, "w:gz") as archive:
            archive.add(scratch / MANIFEST, arcname=MANIFEST)
            archive.add(database, arcname=database.name)
            images = Path(settings.MEDIA_ROOT) / IMAGES
            if images.is_dir():
                archive.add(images, arcname=f"{MEDIA}/{IMAGES}")
    return manifest


def _safe_members(archive: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """The archive's files and folders, refusing links and paths that leave the folder."""
    members = []
    for member in archive.getmembers():
        path = Path(member.name)
        if path.is_absolute() or ".." in path.parts or not (member.isfile() or member.isdir()):
            raise BackupError(f"the archive holds an unsafe entry: {member.name!r}")
        members.append(member)
    return members


def restore(archive_path: Path) -> dict:
    """Replace the database and the stored images with the archive's; return its
    manifest. Stop the web and worker processes first (docs/deployment.md)."""
    engine = _engine()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        try:
            with tarfile.open(archive_path, "r:gz") as archive:
                archive.extractall(scratch, members=_safe_members(archive))
            manifest = json.loads((scratch / MANIFEST).read_text())
        except (OSError, tarfile.TarError, ValueError) as exc:
            raise BackupError(f"not an arena backup archive: {exc}") from None
        if manifest.get("format") != ARCHIVE_FORMAT:
            raise BackupError(f"archive format {manifest.get('format')!r}, this arena reads {ARCHIVE_FORMAT}")
        if manifest.get("engine") != engine:
            raise BackupError(
                f"the archive holds a {manifest.get('engine')} database and this arena runs on {engine}; "
                "move between them with manage.py dumpdata / loaddata"
            )
        if engine == "sqlite":
            connection.ensure_connection()
            source = sqlite3.connect(scratch / SQLITE_FILE)
            try:
                source.backup(connection.connection)
            finally:
                source.close()
        else:
            args, env = _postgres_env()
            connection.close()  # pg_restore --clean drops tables this connection may hold
            _run(["pg_restore", "--clean", "--if-exists", "--no-owner", "--no-privileges", *args,
                  str(scratch / POSTGRES_FILE)], env)
        images = Path(settings.MEDIA_ROOT) / IMAGES
        if images.exists():
            shutil.rmtree(images)
        saved = scratch / MEDIA / IMAGES
        if saved.is_dir():
            shutil.copytree(saved, images)
    ContentType.objects.clear_cache()  # ids may differ from the ones cached before
    page_generation.bump()  # every process's page cache drops what it rendered before
    return manifest
