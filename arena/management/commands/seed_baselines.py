from django.conf import settings
from django.core.management.base import BaseCommand

from arena import services
from arena.models import Run
from envs.registry import all_tasks

BASELINES = [("expert", "Expert"), ("random", "Random legal actions")]


class Command(BaseCommand):
    help = "Create the built-in baseline submissions and queue their runs (safe to re-run)."

    def add_arguments(self, parser):
        parser.add_argument("--episodes", type=int, default=None, help="episodes per task and format")

    def handle(self, *args, episodes=None, **options):
        episodes = episodes or settings.ARENA_BASELINE_EPISODES
        created = 0
        for policy, name in BASELINES:
            submission = services.baseline_submission(policy, name)
            for task_id, cls in sorted(all_tasks().items()):
                for fmt in cls.formats:
                    if Run.objects.filter(submission=submission, task=task_id, variant__format=fmt).exists():
                        continue
                    services.run_create(submission, services.RunSpec(task=task_id, format=fmt, num_episodes=episodes))
                    created += 1
        self.stdout.write(f"baseline runs queued: {created} new")
