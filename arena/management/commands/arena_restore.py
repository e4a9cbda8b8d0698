from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from arena.storage.backup import BackupError, restore


class Command(BaseCommand):
    help = (
        "Replace the database and the stored images with those of an archive written by arena_backup. "
        "Stop the web and worker processes first."
    )

    def add_arguments(self, parser):
        parser.add_argument("archive")
        parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")

    def handle(self, *args, archive, yes=False, **options):
        path = Path(archive)
        if not path.is_file():
            raise CommandError(f"no archive at {path}")
        if not yes and input("Everything stored now is replaced by the archive's. Type 'restore' to go on: ") != "restore":
            raise CommandError("nothing restored")
        try:
            manifest = restore(path)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"restored the backup of {manifest['created_at']}; run manage.py migrate if this code is newer")
