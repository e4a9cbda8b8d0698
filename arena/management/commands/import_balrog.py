from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from arena.balrog_results.files import SUMMARY, MalformedSubmission, read_submission
from arena.balrog_results.importer import ImportResult, balrog_submission_import
from arena.balrog_results.repository import import_folders


class Command(BaseCommand):
    help = (
        "Import BALROG leaderboard submissions as submissions of kind 'imported': a checkout of "
        "balrog-ai/experiments (or any folder holding submission folders), one submission's folder, or a .tgz "
        "of one. A folder with trajectories brings every episode; one with summary.json and metadata.yaml only "
        "brings its reported figures. Importing the same files again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "source", type=Path,
            help="a checkout of the repository, a folder of submissions, one submission's folder, or an archive of one",
        )

    def handle(self, *args, source: Path, **options):
        if source.is_dir() and not (source / SUMMARY).is_file():
            self._import_many(source)
            return
        try:
            result = balrog_submission_import(read_submission(source))
        except MalformedSubmission as exc:
            raise CommandError(f"nothing imported: {exc}") from None
        self._report(result)

    def _import_many(self, root: Path) -> None:
        outcomes = import_folders(root)
        if not outcomes:
            raise CommandError(f"nothing imported: no folder under {root.name} holds a {SUMMARY}")
        counts = {"figures only": 0, "with trajectories": 0, "already imported": 0, "refused": 0}
        for outcome in outcomes:
            label = outcome.folder.relative_to(root).as_posix()
            if outcome.result is None:
                counts["refused"] += 1
                self.stderr.write(f"{label}: refused: {outcome.refusal}")
                continue
            self.stdout.write(f"{label}: ", ending="")
            self._report(outcome.result)
            if not outcome.result.created:
                counts["already imported"] += 1
            elif outcome.result.submission.balrog_figures_only:
                counts["figures only"] += 1
            else:
                counts["with trajectories"] += 1
        imported = counts["figures only"] + counts["with trajectories"]
        self.stdout.write(
            f"{len(outcomes)} submission folders: {imported} imported ({counts['with trajectories']} with trajectories, "
            f"{counts['figures only']} figures only), {counts['already imported']} already imported, "
            f"{counts['refused']} refused"
        )
        if counts["refused"]:
            raise CommandError(f"{counts['refused']} of {len(outcomes)} submission folders refused (see above)")

    def _report(self, result: ImportResult) -> None:
        submission = result.submission
        if not result.created:
            self.stdout.write(f"already imported as submission {submission.pk} ({submission.name}); nothing changed")
        elif submission.balrog_figures_only:
            environments = len(submission.balrog_reported.get("environments", {}))
            self.stdout.write(
                f"imported submission {submission.pk} ({submission.name}): its reported figures only "
                f"(average and {environments} environments; no trajectories to replay)"
            )
        else:
            self.stdout.write(
                f"imported submission {submission.pk} ({submission.name}): {result.runs} runs, "
                f"{result.episodes} episodes, {result.steps} steps"
            )
        for gap, episodes in sorted(result.gaps.items()):
            self.stdout.write(f"{episodes} episodes imported with a gap: {gap}")
