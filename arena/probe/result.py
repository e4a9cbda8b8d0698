"""What a probe found out about an endpoint, in a form that can be stored and shown."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Any

# The context window assumed when neither the server nor the submitter gives one. Small
# local set-ups often run with 4,096 tokens or less; assuming little only drops
# demonstrations that might have fitted, while assuming too much gets HTTP 400s (or,
# with Ollama, prompts silently cut at the front) in the middle of episodes.
DEFAULT_CONTEXT_WINDOW = 4096

# The submission fields a failed probe can blame.
FIELDS = ("base_url", "api_key", "model")
CONTEXT_SOURCES = ("server", "stated", "default")
MAX_MODELS_LISTED = 20


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclasses.dataclass
class ProbeResult:
    """The outcome of `probe_endpoint`.

    `ok` is True when nothing stands in the way of playing: no field errors.
    `model_found` is None when the endpoint lists no models. `accepts_images` is None
    when the probe could not tell. `latency_ms` is the wall time of the one-token
    completion; `tokens_per_second` the generation speed measured with a second,
    16-token completion (see arena.probe.run). `field_errors` maps a submission field
    ("base_url", "api_key", "model") to a message for the person who filled it in;
    `notes` are plain-language findings for the submission page.
    """

    ok: bool = False
    checked_at: str = dataclasses.field(default_factory=now_iso)
    provider: str = ""
    model_found: bool | None = None
    models_listed: list[str] = dataclasses.field(default_factory=list)
    context_window: int = DEFAULT_CONTEXT_WINDOW
    context_window_source: str = "default"
    context_window_server: int | None = None
    # Where the server's figure was read ("llama.cpp /props", "Ollama /api/ps"...).
    context_window_where: str = ""
    # The local server that answered its own metadata route (arena.probe.lookups
    # LOCAL_SERVERS), and its slots where it says (llama.cpp): an episode's calls are
    # kept on one slot of such a server, so its prompt cache survives.
    server_kind: str | None = None
    server_slots: int | None = None
    accepts_images: bool | None = None
    latency_ms: float | None = None
    tokens_per_second: float | None = None
    # How fast it reads a prompt it has not cached (tokens per second), measured with a
    # one-token answer to a longer fresh prompt; play's call timeouts follow it.
    prompt_tokens_per_second: float | None = None
    # Which message shapes the endpoint accepts (arena.strategies.shape.MessageShape):
    # content parts, a system message, two consecutive messages of one role; each
    # True, False or None (not known). None as a whole: not asked (other providers,
    # results stored before the probe asked).
    message_shape: dict | None = None
    field_errors: dict[str, str] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict (for a JSONField on the submission)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ProbeResult:
        """The result stored by `to_json`. Unknown keys are ignored and missing ones
        take their defaults, so results stored by older versions still load."""
        data = data or {}
        known = {field.name for field in dataclasses.fields(cls)}
        result = cls(**{key: value for key, value in data.items() if key in known})
        result.models_listed = list(result.models_listed or [])
        result.field_errors = dict(result.field_errors or {})
        result.notes = list(result.notes or [])
        return result
