"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from django.conf import settings  # noqa: E402

from config.pagecache import PageCache  # noqa: E402
from arena.web.websocket_limit import OpenSocketLimit  # noqa: E402
from leaderboard.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Anonymous views of the public pages come from each process's memory.
        "http": PageCache(django_asgi_app) if settings.ARENA_PAGE_CACHE else django_asgi_app,
        # Websockets open at once are limited per client address (across processes).
        "websocket": AllowedHostsOriginValidator(OpenSocketLimit(URLRouter(websocket_urlpatterns))),
    }
)
