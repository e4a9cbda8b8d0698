from django.urls import path

from arena import views

app_name = "arena"
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("submit/", views.submit, name="submit"),
    path("submissions/mine/", views.my_submissions, name="my_submissions"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
]
