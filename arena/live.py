"""Websocket pushes. Called only from `transaction.on_commit` callbacks, so a pushed step
is always readable by the consumer that receives the notification (DESIGN §3).

The message carries only the step index: consumers read the step from the database and
track the last index they sent, which is what makes "nothing missed, nothing twice" hold
whatever order notifications and catch-up queries interleave in.
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def episode_group(episode_id: int) -> str:
    return f"episode-{episode_id}"


def _send(episode_id: int, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(episode_group(episode_id), message)
    except Exception:  # a broken channel layer must not fail the step that was saved
        logger.exception("could not publish to episode %s", episode_id)


def publish_step(episode_id: int, index: int) -> None:
    _send(episode_id, {"type": "step.committed", "index": index})


def publish_end(episode_id: int) -> None:
    _send(episode_id, {"type": "episode.ended"})
