import sys
import time

from django.core.management.base import BaseCommand, CommandError

from envs import demos
from envs.registry import all_tasks, get_suite


class Command(BaseCommand):
    help = "Build (and cache in var/demos/) the expert demonstration pools of the tasks of suites that use them (LMAct)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--task", action="append", help="task id (repeatable); default: every task of a suite with demonstrations"
        )
        parser.add_argument("--format", action="append", help="observation format (repeatable); default: all")
        parser.add_argument("--size", type=int, default=None, help="pool size (default: the task's)")

    def handle(self, *args, task=None, format=None, size=None, **options):
        tasks = all_tasks()
        wanted = task or [t for t, cls in sorted(tasks.items()) if get_suite(cls.suite).demonstrations]
        for task_id in wanted:
            if task_id not in tasks:
                raise CommandError(f"unknown task {task_id}")
            for fmt in format or tasks[task_id].formats:
                if fmt not in tasks[task_id].formats:
                    continue
                pool_size = size or tasks[task_id].demonstration_pool_size
                path = demos.pool_file(task_id, fmt, pool_size)
                if path is not None and path.exists():
                    self.stdout.write(f"{task_id} {fmt}: cached ({path.name})")
                    continue
                started = time.monotonic()
                pool = demos.build_pool(task_id, fmt, pool_size, progress=self._bar(f"{task_id} {fmt}"))
                demos.save_pool(task_id, fmt, pool_size, pool)
                sys.stdout.write("\n")
                mean = sum(d.total_reward for d in pool) / max(1, len(pool))
                self.stdout.write(
                    f"{task_id} {fmt}: {len(pool)} demonstrations, mean expert return {mean:.2f}, "
                    f"{time.monotonic() - started:.1f} s"
                )

    @staticmethod
    def _bar(label: str):
        def show(done: int, total: int) -> None:
            width = 30
            filled = int(width * done / max(1, total))
            sys.stdout.write(f"\r{label}: [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
            sys.stdout.flush()

        return show
