from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from arena.storage.backup import BackupError, backup


class Command(BaseCommand):
    help = "Write the database and the stored images to one .tar.gz (safe while the site runs)."

    def add_arguments(self, parser):
        parser.add_argument("archive", help="where to write the archive, e.g. backups/arena-2026-01-31.tar.gz")

    def handle(self, *args, archive, **options):
        path = Path(archive)
        if path.exists():
            raise CommandError(f"{path} exists; the backup would overwrite it")
        try:
            manifest = backup(path)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        size = path.stat().st_size
        self.stdout.write(f"wrote {path} ({size / 1e6:.1f} MB, {manifest['engine']} database and stored images)")
