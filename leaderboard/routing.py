from django.urls import path

from leaderboard.consumers import EpisodeConsumer
from leaderboard.match_consumer import MatchConsumer

websocket_urlpatterns = [
    path("ws/episodes/<int:episode_id>/", EpisodeConsumer.as_asgi()),
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
]
