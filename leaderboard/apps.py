from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard"

    def ready(self):
        # The write side publishes each committed step as viewers receive it; how a
        # step looks to them is the read side's to say (arena never imports leaderboard).
        from arena import live, submission_page
        from leaderboard.consumers import step_frame
        from leaderboard.model_page import model_page_context

        live.render_steps_with(step_frame)
        # The same for the model page's results (arena.submission_page).
        submission_page.show_results_with(model_page_context)
