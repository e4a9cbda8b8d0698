"""The preview's probe, kept for the "Create" that follows it.

"Preview the runs" probes the endpoint (seven short calls or so: a minute on a slow CPU
server, tokens paid on a hosted API); "Create" used to probe it all over again. The
preview's result is kept in the user's session (stored server-side) under a keyed digest
of what the probe depends on — provider, base URL, model, key, stated window — never the
key itself, and "Create" uses it when those are unchanged and it is at most
PREVIEW_PROBE_SECONDS old. A result with a field error is never kept: such a preview
cannot be created from.
"""

from __future__ import annotations

import json
import time

from django.utils.crypto import salted_hmac

from arena.probe import ProbeResult

SESSION_KEY = "submission_preview_probe"
PREVIEW_PROBE_SECONDS = 600
PROBED_FIELDS = ("provider", "base_url", "model", "api_key", "context_window")


def now() -> float:
    return time.time()


def _endpoint_digest(cleaned: dict) -> str:
    what = json.dumps([cleaned.get(name) for name in PROBED_FIELDS], default=str)
    return salted_hmac("arena.preview-probe", what, algorithm="sha256").hexdigest()


def remember(session, cleaned: dict, probe: ProbeResult | None) -> None:
    if probe is None or probe.field_errors:
        session.pop(SESSION_KEY, None)
        return
    session[SESSION_KEY] = {"endpoint": _endpoint_digest(cleaned), "probe": probe.to_json(), "at": now()}


def recall(session, cleaned: dict) -> ProbeResult | None:
    """The kept result, if it was made for this endpoint in the last PREVIEW_PROBE_SECONDS."""
    kept = session.get(SESSION_KEY)
    if not isinstance(kept, dict) or kept.get("endpoint") != _endpoint_digest(cleaned):
        return None
    if not 0 <= now() - float(kept.get("at", 0)) <= PREVIEW_PROBE_SECONDS:
        return None
    return ProbeResult.from_json(kept.get("probe"))


def forget(session) -> None:
    session.pop(SESSION_KEY, None)
