from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.static import serve
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.settings import api_settings
from rest_framework.routers import DefaultRouter

from arena.web import api as write_api
from arena.web.harness_views import submission_rerun_older_api
from arena.web.views import LoginView, healthz
from leaderboard.compare import views as comparison_views
from leaderboard.downloads.ratings import ratings_api
from leaderboard.reported import api as reported_api
from leaderboard.web import api

router = DefaultRouter()
router.register("tasks", api.TaskViewSet, basename="task")
router.register("submissions", write_api.SubmissionViewSet, basename="submission")
router.register("runs", api.RunViewSet, basename="run")
router.register("episodes", api.EpisodeViewSet, basename="episode")
router.register("experiments", write_api.ExperimentViewSet, basename="experiment")

api_patterns = [
    path("leaderboard/", api.leaderboard, name="leaderboard"),
    path("leaderboard/overall/", api.overall_leaderboard, name="leaderboard-overall"),
    path("compare/", comparison_views.compare, name="compare"),
    path("ratings/", ratings_api, name="ratings"),
    path("leaderboard/reported/", reported_api.reported, name="leaderboard-reported"),
    path("agent-protocol/", write_api.agent_protocol, name="agent-protocol"),
    path("runs/<int:pk>/requeue/", write_api.run_requeue, name="run-requeue"),
    path("runs/<int:pk>/cancel/", write_api.run_cancel, name="run-cancel"),
    path("submissions/<int:pk>/rerun-older/", submission_rerun_older_api, name="submission-rerun-older"),
    # The token view names its own parsers; it gets the API's (bounded JSON depth).
    path("token/", write_api.TokenView.as_view(parser_classes=api_settings.DEFAULT_PARSER_CLASSES), name="token"),
    path("", include(router.urls)),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz", healthz, name="healthz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include((api_patterns, "api"))),
    # Stored images are content-addressed files; served by Django here (and by any
    # static file server in front of it in production).
    re_path(r"^media/(?P<path>images/[0-9a-f]{2}/[0-9a-f]{64}\.png)$", serve, {"document_root": settings.MEDIA_ROOT}),
    path("", include("arena.web.urls")),
    path("", include("leaderboard.web.urls")),
]
