from django.apps import AppConfig


def _refresh_compared(sender=None, **kwargs):
    # Imported at the first episode's end, not at start-up: most processes end none.
    from leaderboard.compare.refresh import refresh_compared

    return refresh_compared(sender, **kwargs)


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard"

    def ready(self):
        # The read side's kept figures follow the write side's announcements (the write
        # side never imports the read side: tests/test_import_boundaries.py).
        from arena.models import Run
        from arena.services.episodes import run_results_changed

        run_results_changed.connect(_refresh_compared, sender=Run, dispatch_uid="leaderboard.compare.refresh")
