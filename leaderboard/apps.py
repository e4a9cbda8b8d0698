from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard"

    def ready(self):
        # The write side publishes each committed step as viewers receive it; how a
        # step looks to them is the read side's to say (arena never imports leaderboard).
        from arena import live
        from leaderboard.consumers import step_frame

        live.render_steps_with(step_frame)
