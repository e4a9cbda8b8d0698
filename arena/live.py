"""Websocket pushes. Called only from `transaction.on_commit` callbacks, so a pushed step
is always readable by the consumer that receives the notification (DESIGN §3).

The message carries only the step index: consumers read the step from the database and
track the last index they sent, which is what makes "nothing missed, nothing twice" hold
whatever order notifications and catch-up reads interleave in.

Inside a worker the commit happens in a thread of `sync_to_async` while the worker's
event loop runs; the push is handed to that loop without waiting for it, which keeps
the per-step cost of publishing in microseconds. Elsewhere (a web request, a management
command) it falls back to `async_to_sync`.
"""

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

_worker_loop: asyncio.AbstractEventLoop | None = None


def bind_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Publish through this running loop from now on (called by the runner)."""
    global _worker_loop
    _worker_loop = loop


def episode_group(episode_id: int) -> str:
    return f"episode-{episode_id}"


async def _send_async(layer, group: str, message: dict) -> None:
    try:
        await layer.group_send(group, message)
    except Exception:  # a broken channel layer must not fail the step that was saved
        logger.exception("could not publish to %s", group)


def _send(episode_id: int, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    group = episode_group(episode_id)
    loop = _worker_loop
    if loop is not None and loop.is_running() and not loop.is_closed():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            loop.create_task(_send_async(layer, group, message))
        else:
            asyncio.run_coroutine_threadsafe(_send_async(layer, group, message), loop)
        return
    async_to_sync(_send_async)(layer, group, message)


def publish_step(episode_id: int, index: int) -> None:
    _send(episode_id, {"type": "step.committed", "index": index})


def publish_end(episode_id: int) -> None:
    _send(episode_id, {"type": "episode.ended"})
