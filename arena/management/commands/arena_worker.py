import asyncio
import signal

from django.conf import settings
from django.core.management.base import BaseCommand

from arena.matches.player import MatchWorker
from arena.play.worker import Worker


class Command(BaseCommand):
    help = "Play queued episodes: one process, many episodes in flight (asyncio)."

    def add_arguments(self, parser):
        parser.add_argument("--concurrency", type=int, default=None, help="episodes in flight at once")
        parser.add_argument("--until-idle", action="store_true", help="exit when the queue is empty")
        parser.add_argument(
            "--matches", type=int, default=0,
            help="also play up to this many head-to-head matches at once, on the same loop, and queue them as they "
                 "are due (ARENA_H2H_SCHEDULE_SECONDS; default: no matches)",
        )

    def handle(self, *args, concurrency=None, until_idle=False, matches=0, **options):
        worker = Worker(concurrency=concurrency)
        self.stdout.write(f"worker {worker.name} playing up to {worker.concurrency} episodes at once")
        match_worker = None
        if matches > 0:
            # Draining the queue (--until-idle) plays what is queued and schedules nothing.
            schedule_seconds = 0.0 if until_idle else settings.ARENA_H2H_SCHEDULE_SECONDS
            match_worker = MatchWorker(
                concurrency=matches, name=f"{worker.name}-matches",
                schedule_seconds=schedule_seconds,
                baselines_may_play=lambda: not worker.users_busy(),
            )
            scheduling = f", queueing the next ones every {schedule_seconds:g} s" if schedule_seconds else ""
            self.stdout.write(f"and up to {matches} head-to-head matches{scheduling}")

        def stop():
            worker.stop()
            if match_worker is not None:
                match_worker.stop()

        async def main():
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop)
            if match_worker is None:
                await worker.serve(until_idle=until_idle)
            else:
                await asyncio.gather(worker.serve(until_idle=until_idle), match_worker.serve(until_idle=until_idle))

        asyncio.run(main())
