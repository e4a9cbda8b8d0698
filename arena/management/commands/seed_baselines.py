from django.conf import settings
from django.core.management.base import BaseCommand

from arena.services import baseline_figures
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission
from arena.services.submissions import option_combinations
from arena.models import Run
from envs.core import baselines_of
from envs.registry import all_tasks, get_suite


class Command(BaseCommand):
    help = (
        "Create the built-in baseline submissions and their runs (safe to re-run): from the "
        "figures shipped with the arena where they match, played here otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument("--episodes", type=int, default=None, help="episodes per task, format and option")
        parser.add_argument("--task", action="append", default=None, help="only these task ids (repeatable)")
        parser.add_argument("--live", action="store_true", help="play every run here, shipped figures or not")
        parser.add_argument(
            "--replays", type=int, default=None,
            help="episodes played for their replays in a run of shipped figures (ARENA_BASELINE_REPLAYS)",
        )

    def handle(self, *args, episodes=None, task=None, live=False, replays=None, **options):
        explicit = episodes is not None
        episodes = episodes or settings.ARENA_BASELINE_EPISODES
        replays = settings.ARENA_BASELINE_REPLAYS if replays is None else replays
        # An episode count someone chose is played as chosen; the default takes shipped
        # figures of whatever count they have.
        exact = explicit or settings.ARENA_BASELINE_EPISODES_CHOSEN
        created = from_figures = 0
        # Baseline runs take turns in the queue (arena.queue), one episode each; in this
        # order within a turn: quick tasks before tasks with engines and planners, and
        # among them the suites in their order.
        def order(item):
            task_id, cls = item
            return (cls.blocking, get_suite(cls.suite).order, task_id)

        for task_id, cls in sorted(all_tasks().items(), key=order):
            if task and task_id not in task:
                continue
            count = episodes if explicit else min(episodes, cls.baseline_episodes or episodes)
            for policy, policy_cls in baselines_of(cls).items():
                submission = baseline_submission(policy, policy_cls.title)
                for fmt in cls.formats:
                    for combo in option_combinations(cls, for_models=False):
                        entry = None if live else baseline_figures.shipped_entry(
                            task_id, policy, fmt, combo, count, exact=exact
                        )
                        existing = Run.objects.filter(
                            submission=submission, task=task_id, variant__format=fmt,
                            num_episodes=entry["episodes"] if entry else count,
                        )
                        if any(run.options == combo for run in existing):
                            continue
                        spec = RunSpec(task=task_id, format=fmt, num_episodes=count, options=combo)
                        if entry is not None:
                            baseline_figures.run_from_figures(submission, spec, entry, replays)
                            from_figures += 1
                        else:
                            run_create(submission, spec)
                        created += 1
        self.stdout.write(
            f"baseline runs: {created} new, {from_figures} of them from shipped figures "
            f"(the other {created - from_figures} are played here, after every user's episode)"
        )
