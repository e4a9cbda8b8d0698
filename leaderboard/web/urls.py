from django.urls import path

from leaderboard.compare import views as comparison_views
from leaderboard.downloads import views as export_views
from leaderboard.web import (
    cost_views,
    episode_lists,
    episode_views,
    match_views,
    rating_views,
    submission_views,
    suite_views,
    views,
)

app_name = "leaderboard"
urlpatterns = [
    path("", views.index, name="index"),
    path("tasks/", views.tasks, name="tasks"),
    path("tasks/<slug:suite>/<slug:name>/", views.task_detail, name="task"),
    path("tasks/<slug:suite>/<slug:name>/episodes/", episode_lists.task_episodes, name="task-episodes"),
    path("tasks/<slug:suite>/<slug:name>/picture.png", views.task_picture, name="task-picture"),
    path("suites/<slug:suite>/", suite_views.suite_detail, name="suite"),
    path("suites/<slug:suite>/episodes/", suite_views.suite_episodes, name="suite-episodes"),
    path("suites/<slug:suite>/fidelity/", suite_views.suite_fidelity, name="suite-fidelity"),
    path("submissions/<int:pk>/", submission_views.submission_detail, name="submission"),
    path("experiments/<int:pk>/", views.experiment_detail, name="experiment"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("episodes/<int:pk>/", episode_views.episode_detail, name="episode"),
    path("episodes/<int:pk>/pgn", episode_views.episode_pgn, name="episode-pgn"),
    path("episodes/<int:pk>/steps.jsonl", export_views.episode_jsonl, name="episode-jsonl"),
    path("episodes/<int:pk>/frames.gif", export_views.episode_gif, name="episode-gif"),
    path("runs/<int:pk>/episodes.zip", export_views.run_zip, name="run-zip"),
    path("episodes/<int:pk>/compare/<int:other_pk>/", episode_views.compare, name="compare"),
    path("compare/", comparison_views.compare_page, name="compare-submissions"),
    path("cost/", cost_views.cost_page, name="cost"),
    path("ratings/", rating_views.ratings_overall, name="ratings"),
    path("ratings/method/", rating_views.ratings_method, name="ratings-method"),
    path("ratings/<slug:game>/", rating_views.ratings_game, name="ratings-game"),
    path("matches/", match_views.match_list, name="matches"),
    path("matches/<int:pk>/", match_views.match_detail, name="match"),
    path("matches/<int:pk>/moves.json", match_views.match_moves_json, name="match-moves"),
]
