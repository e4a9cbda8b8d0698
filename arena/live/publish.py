"""Websocket pushes. Sent only from `transaction.on_commit` callbacks
(`publish_step_on_commit`, `publish_steps_on_commit`, `publish_end_on_commit`), so a pushed step is always
readable by the consumer that receives the notification (docs/design.md §3).

A step's message carries its index and, when it is small enough, the step itself as the
viewers receive it (`frame`: the client message, rendered once here by arena.live.frame).
A consumer that expects exactly that index sends the frame on without reading the
database; any other index (a gap, a repeat, no frame) sends it back to reading the steps after the last one it sent, which
is what makes "nothing missed, nothing twice" hold whatever order messages and
catch-up reads interleave in.

Inside a worker the commit happens on the database thread while the worker's event
loop runs; the push is handed to that loop without waiting for it, which keeps the
per-step cost of publishing small. Elsewhere (a web request, a management command) it
falls back to `async_to_sync`.

With the in-memory channel layer (embedded mode) the message also goes to every other
process on the machine that serves live websockets (arena.live.signal).
"""

import asyncio
import logging
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction

from arena.live import signal as livesignal
from arena.live.frame import step_frame

logger = logging.getLogger(__name__)

# A step's frame travels in its message only up to this size; a larger step is read
# from the database by each consumer (it is rare: previews cut long texts).
FRAME_MAX_BYTES = 48_000

_worker_loop: asyncio.AbstractEventLoop | None = None


def bind_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Publish through this running loop from now on (called by the runner)."""
    global _worker_loop
    _worker_loop = loop


def episode_group(episode_id: int) -> str:
    return f"episode-{episode_id}"


def listen() -> None:
    """Receive in this process (its running loop) the messages other processes publish;
    a no-op unless the channel layer is in memory."""
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):
        livesignal.listener.listen(layer.group_send)


async def _send_async(layer, group: str, message: dict) -> None:
    try:
        await layer.group_send(group, message)
    except Exception:  # a broken channel layer must not fail the step that was saved
        logger.exception("could not publish to %s", group)


def match_group(match_id: int) -> str:
    return f"match-{match_id}"


def _send(episode_id: int, message: dict) -> None:
    _send_to_group(episode_group(episode_id), message)


def _send_to_group(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _worker_loop
    usable = loop is not None and loop.is_running() and not loop.is_closed()
    if isinstance(layer, InMemoryChannelLayer):
        try:
            livesignal.outbox.post(group, message, loop if usable else None)
        except Exception:  # as above: publishing never fails a stored step
            logger.exception("could not signal %s to other processes", group)
        if not layer.groups.get(group):
            return  # nobody watches in this process
    if usable:
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


def _watched(episode_id: int) -> bool:
    """Whether anyone may receive the episode's steps (always true with a shared layer)."""
    layer = get_channel_layer()
    if not isinstance(layer, InMemoryChannelLayer):
        return layer is not None
    return bool(layer.groups.get(episode_group(episode_id))) or livesignal.outbox.has_peers()


def _frame(step) -> str | None:
    try:
        frame = step_frame(step)
    except Exception:  # the consumers can still read the stored step
        logger.exception("could not render step %s of episode %s for the live channel", step.index, step.episode_id)
        return None
    return frame if len(frame.encode()) <= FRAME_MAX_BYTES else None


def publish_step(episode_id: int, index: int, step=None) -> None:
    """Announce a committed step; `step` is the Step as stored (unsaved instance), or
    a function that builds it, called only when someone may receive the step."""
    message = {"type": "step.committed", "index": index}
    if step is not None and _watched(episode_id):
        frame = _frame(step() if callable(step) else step)
        if frame is not None:
            message["frame"] = frame
    _send(episode_id, message)


def publish_steps(steps) -> None:
    """Announce committed steps, each (episode id, index, step or its builder) as
    `publish_step` does. Whether any other process listens is found once for them all:
    when none does, a step nobody watches in this process has nowhere to go, and is
    skipped here rather than asked about one by one (the test and the directory scan
    were most of what announcing cost a worker nobody watches)."""
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer) and not livesignal.outbox.heard():
        groups = layer.groups
        steps = [step for step in steps if groups.get(episode_group(step[0]))]
    for episode_id, index, step in steps:
        publish_step(episode_id, index, step)


def publish_end(episode_id: int) -> None:
    _send(episode_id, {"type": "episode.ended"})


def publish_step_on_commit(episode_id: int, index: int, step=None) -> None:
    """Announce the step once the transaction that stores it commits."""
    transaction.on_commit(partial(publish_step, episode_id, index, step))


def publish_steps_on_commit(steps: list) -> None:
    """Announce the steps (see `publish_steps`) once the transaction that stores them commits."""
    transaction.on_commit(partial(publish_steps, steps))


def publish_end_on_commit(episode_id: int) -> None:
    """Announce the episode's end once the transaction that ends it commits."""
    transaction.on_commit(partial(publish_end, episode_id))


def publish_match_move(match_id: int, index: int) -> None:
    """Announce a committed move of a head-to-head match; its viewers read it (a move
    carries two prompts and answers, more than a frame is worth)."""
    _send_to_group(match_group(match_id), {"type": "match.move", "index": index})


def publish_match_end(match_id: int) -> None:
    _send_to_group(match_group(match_id), {"type": "match.ended"})


def publish_match_move_on_commit(match_id: int, index: int) -> None:
    transaction.on_commit(partial(publish_match_move, match_id, index))


def publish_match_end_on_commit(match_id: int) -> None:
    transaction.on_commit(partial(publish_match_end, match_id))
