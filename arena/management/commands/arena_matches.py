import asyncio
import signal

from django.core.management.base import BaseCommand, CommandError

from arena.matches.games import GAMES
from arena.matches.player import MatchWorker
from arena.matches.scheduler import schedule_round


class Command(BaseCommand):
    help = (
        "Head-to-head matches: `round` queues the next round of a game between the opted-in "
        "submissions and the anchors; `play` plays queued matches (until none is left with --until-idle)."
    )

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        round_parser = sub.add_parser("round", help="queue the next round of a game")
        round_parser.add_argument("game", choices=sorted(GAMES))
        round_parser.add_argument("--openings", type=int, default=1, help="openings per pair (each played twice)")
        round_parser.add_argument(
            "--per-player", type=int, default=1, help="opponents per player in the round (passes of the pair choice)"
        )
        play_parser = sub.add_parser("play", help="play queued matches")
        play_parser.add_argument("--concurrency", type=int, default=4)
        play_parser.add_argument("--until-idle", action="store_true")

    def handle(self, *args, action, **options):
        if action == "round":
            if options["openings"] < 1 or options["per_player"] < 1:
                raise CommandError("--openings and --per-player must be at least 1")
            queued = schedule_round(options["game"], openings_per_pair=options["openings"], per_player=options["per_player"])
            self.stdout.write(f"queued {len(queued)} {options['game']} matches")
            return
        if options["concurrency"] < 1:
            raise CommandError("--concurrency must be at least 1")
        worker = MatchWorker(concurrency=options["concurrency"])

        async def main():
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, worker.stop)
            return await worker.serve(until_idle=options["until_idle"])

        played = asyncio.run(main())
        self.stdout.write(f"played {played} matches")
