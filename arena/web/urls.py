from django.urls import path

from arena.web import harness_views, moderation_views
from arena.web import views

app_name = "arena"
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("submit/", views.submit, name="submit"),
    path("submissions/mine/", views.my_submissions, name="my_submissions"),
    path("submissions/<int:pk>/endpoint/", views.submission_endpoint, name="submission-endpoint"),
    path("submissions/<int:pk>/probe/", views.submission_probe, name="submission-probe"),
    path("submissions/<int:pk>/cancel/", views.submission_cancel, name="submission-cancel"),
    path("submissions/<int:pk>/rerun-older/", harness_views.submission_rerun_older, name="submission-rerun-older"),
    path("submissions/<int:pk>/balrog.tgz", views.submission_balrog_export, name="submission-balrog-export"),
    path("runs/<int:pk>/requeue/", views.run_requeue, name="run-requeue"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="run-cancel"),
    path("moderation/", moderation_views.moderation_page, name="moderation"),
]
