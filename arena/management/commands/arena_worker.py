import asyncio
import signal

from django.core.management.base import BaseCommand

from arena.play.worker import Worker


class Command(BaseCommand):
    help = "Play queued episodes: one process, many episodes in flight (asyncio)."

    def add_arguments(self, parser):
        parser.add_argument("--concurrency", type=int, default=None, help="episodes in flight at once")
        parser.add_argument("--until-idle", action="store_true", help="exit when the queue is empty")

    def handle(self, *args, concurrency=None, until_idle=False, **options):
        worker = Worker(concurrency=concurrency)
        self.stdout.write(f"worker {worker.name} playing up to {worker.concurrency} episodes at once")

        async def main():
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, worker.stop)
            await worker.serve(until_idle=until_idle)

        asyncio.run(main())
