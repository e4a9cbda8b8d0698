from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from arena.web.launcher import Launcher, listening_sockets


class Command(BaseCommand):
    help = "Serve the site (HTTP and websockets) with several Daphne processes on one address."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="an IPv4 address (0.0.0.0 for all)")
        parser.add_argument("--port", type=int, default=8000, help="0 picks a free port (printed)")
        parser.add_argument("--processes", type=int, default=None,
                            help="Daphne processes (default: ARENA_WEB_PROCESSES, else one per core)")

    def handle(self, *args, host, port, processes=None, **options):
        processes = settings.ARENA_WEB_PROCESSES if processes is None else processes
        if processes < 1:
            raise CommandError("--processes must be at least 1")
        try:
            sockets = listening_sockets(host, port, processes)
        except OSError as error:
            raise CommandError(f"cannot listen on {host}:{port}: {error}") from None
        bound_host, bound_port = sockets[0].getsockname()
        self.stdout.write(f"listening on http://{bound_host}:{bound_port}/ with {processes} web processes")
        self.stdout.flush()
        Launcher(sockets).run()
