from django.urls import path

from leaderboard.consumers import EpisodeConsumer

websocket_urlpatterns = [path("ws/episodes/<int:episode_id>/", EpisodeConsumer.as_asgi())]
