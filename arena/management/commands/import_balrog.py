from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from arena.balrog_results.files import MalformedSubmission, read_submission
from arena.balrog_results.importer import balrog_submission_import


class Command(BaseCommand):
    help = (
        "Import a BALROG leaderboard submission (its folder, or a .tgz of it) with every trajectory, as a "
        "submission of kind 'imported'. Importing the same files again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", type=Path, help="the folder holding summary.json, or an archive of it")

    def handle(self, *args, source: Path, **options):
        try:
            result = balrog_submission_import(read_submission(source))
        except MalformedSubmission as exc:
            raise CommandError(f"nothing imported: {exc}") from None
        submission = result.submission
        if not result.created:
            self.stdout.write(f"already imported as submission {submission.pk} ({submission.name}); nothing changed")
            return
        self.stdout.write(
            f"imported submission {submission.pk} ({submission.name}): {result.runs} runs, "
            f"{result.episodes} episodes, {result.steps} steps"
        )
        for gap, episodes in sorted(result.gaps.items()):
            self.stdout.write(f"{episodes} episodes imported with a gap: {gap}")
