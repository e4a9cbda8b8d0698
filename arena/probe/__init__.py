"""The endpoint probe: what an endpoint can do, found out before any episode is played.

    result = probe_endpoint_sync(provider="openai", base_url=url, api_key=key, model=name,
                                 stated_context_window=None, allow_loopback=False)
    if not result.ok:
        for field, message in result.field_errors.items(): form.add_error(field, message)
    submission.probe = result.to_json()

`arena.probe.run` documents the requests made and how each answer is read;
`is_image_refusal` and `is_context_exceeded` classify a server's error message during
play as well.
"""

from arena.clients.errors import is_context_exceeded, is_image_refusal
from arena.probe.result import DEFAULT_CONTEXT_WINDOW, ProbeResult
from arena.probe.run import probe_endpoint
from arena.probe.sync import probe_endpoint_sync

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "ProbeResult",
    "is_context_exceeded",
    "is_image_refusal",
    "probe_endpoint",
    "probe_endpoint_sync",
]
