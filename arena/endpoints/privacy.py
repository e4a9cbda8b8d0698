"""A submission's endpoint address is private to its owner (and the operators).

An endpoint URL carries internal host names, ports, tenant paths and sometimes a
credential in its query string; a researcher who submits a private vLLM box does not
want it published. Readers get the provider, the model name and the generation
settings; the owner sees the address on their own pages; text that others can read (an
episode's, a step's or a match's error, a probe's notes) has it replaced by
ENDPOINT_HIDDEN when it is stored or shown.

Servers quote what they were asked in pieces and in their own spelling: Express and
most gateways answer 404 "Cannot POST /tenant/acme/v1/chat/completions" and, apart,
the query they were given; others echo the host in lower case, percent-encode the
path, or name the address they listen on. So every piece is hidden on its own, in any
letter case, as written, percent-encoded and percent-decoded: the host (and its first
label), the port, each path segment that is not a protocol word ("v1", "chat"), the
path, the query, each query value. And whatever the arena's own networking says about
where it connected (`Connect call failed ('10.0.0.7', 8443)`, "Timed out connecting
to 10.0.0.7:8443") carries the resolved address, which is in no part of the URL: every
IP address literal, with its port, is replaced by ADDRESS_HIDDEN whatever endpoint it
belongs to — an error read by the public never needs one.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from arena.clients.errors import describe

ENDPOINT_HIDDEN = "[endpoint]"
ADDRESS_HIDDEN = "[address]"
# A piece shorter than this is too common a string to replace in prose and too short
# to identify anyone's machine ("v1", "ab").
_SHORTEST_HIDDEN_PART = 3
# Path segments and host labels that every provider's URL has: hiding them would
# garble the server's message ("POST /v1/chat/completions") and tell nobody anything.
_PROTOCOL_WORDS = frozenset(
    {
        "api", "apis", "v1", "v1beta", "v1alpha", "v2", "v3", "chat", "completions", "messages", "models",
        "responses", "openai", "anthropic", "generate", "generatecontent", "embeddings", "inference",
        "www", "localhost", "http", "https", "act", "agent", "model", "llm", "llms", "serve", "serving",
    }
)
# Default ports name nobody.
_DEFAULT_PORTS = frozenset({80, 443})

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_H16 = r"[0-9a-f]{1,4}"
# An IPv6 literal with "::" or all eight groups (a time of day "12:30:45" has neither).
_IPV6 = rf"(?:(?:{_H16}:){{7}}{_H16}|(?:{_H16}(?::{_H16}){{0,6}})?::(?:{_H16}(?::{_H16}){{0,6}})?)"
_ADDRESS = re.compile(
    "|".join(
        (
            # Python's socket errors: ('10.0.0.7', 8443) and ('::1', 8443, 0, 0)
            r"\(\s*['\"][0-9a-f:.%\w]*['\"]\s*,\s*\d+(?:\s*,\s*\d+)*\s*\)",
            rf"\[{_IPV6}(?:%\w+)?\](?::\d+)?",  # [fe80::1]:8443
            rf"(?<![\w.]){_IPV4}(?::\d+)?(?!\w|\.\d)",  # 10.0.0.7 and 10.0.0.7:8443
            rf"(?<![\w:.]){_IPV6}(?![\w:]|\.\d)",
        )
    ),
    re.IGNORECASE,
)


def can_see_endpoint(user, submission) -> bool:
    """The submission's owner and staff see its endpoint address; nobody else does."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return submission.owner_id is not None and submission.owner_id == user.pk


def public_error(error: str, kind: str) -> str:
    """What readers other than the owner and staff are told of an episode's failure
    through an endpoint: the kind's summary in the arena's words, not the endpoint's
    message — a second wall behind the hiding of addresses, should a server find a
    spelling it misses. An error of no endpoint kind (a stopped worker) is the arena's
    own and is shown as stored."""
    info = describe(kind) if error else None
    if info is None:
        return error
    prefix = "not played: " if error.startswith("not played: ") else ""
    return f"{prefix}the endpoint failed: {info.summary}"


def error_for(user, episode) -> str:
    """The episode's error as `user` may read it (the run's submission loaded)."""
    if can_see_endpoint(user, episode.run.submission):
        return episode.error
    return public_error(episode.error, episode.error_kind)


def endpoint_parts(base_url: str) -> list[str]:
    """The strings of `base_url` that would give it away, longest first: the URL as
    written and without its trailing slash, its host with the port, its host, its
    first label, its explicit port, its path with the query and without, each path
    segment that is not a protocol word, its query, each query value."""
    url = (base_url or "").strip()
    if not url:
        return []
    parts = {url, url.rstrip("/")}
    try:
        split = urlsplit(url)
        hostname = split.hostname or ""
        port = split.port
    except ValueError:  # a malformed stored URL: hide it as written
        return _longest_first(parts)
    parts.update({split.netloc, hostname, hostname.split(".")[0]})
    if split.username or split.password:
        parts.update({split.username or "", split.password or ""})
    if port is not None and port not in _DEFAULT_PORTS:
        parts.add(str(port))
    path = split.path.rstrip("/")
    segments = [segment for segment in path.split("/") if segment]
    if any(segment.lower() not in _PROTOCOL_WORDS for segment in segments) or split.query:
        parts.add(path + (f"?{split.query}" if split.query else ""))
        parts.add(path)
    parts.update(segment for segment in segments if segment.lower() not in _PROTOCOL_WORDS)
    if split.query:
        parts.add(split.query)
        for name, value in parse_qsl(split.query, keep_blank_values=True):
            parts.update({value, f"{name}={value}"})
    if split.fragment:
        parts.add(split.fragment)
    return _longest_first(part for part in parts if part.lower() not in _PROTOCOL_WORDS)


def _longest_first(parts) -> list[str]:
    return sorted({part for part in parts if len(part) >= _SHORTEST_HIDDEN_PART}, key=len, reverse=True)


def _spellings(part: str) -> set[str]:
    """`part` as a server may write it back: as given, percent-decoded, percent-encoded
    (all reserved characters, or all but "/"), with "+" for spaces."""
    decoded = unquote(part.replace("+", " ")) if "%" in part or "+" in part else part
    forms = {part, decoded, unquote(part)}
    for form in list(forms):
        forms.update({quote(form, safe=""), quote(form, safe="/"), quote(form, safe="/:?=&"), form.replace(" ", "+")})
    return {form for form in forms if len(form) >= _SHORTEST_HIDDEN_PART}


@functools.lru_cache(maxsize=256)
def _endpoint_pattern(base_url: str) -> re.Pattern | None:
    forms = set()
    for part in endpoint_parts(base_url):
        forms.update(_spellings(part))
    if not forms:
        return None
    # Longest first, so a URL goes as one piece before its host does; a piece is taken
    # only as a whole word ("acme" hides "acme" and "ACME", not "acmecorp" nor "preacme").
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


def hide_addresses(text: str | None) -> str | None:
    """`text` with every IP address literal (and the port beside it) replaced."""
    if not text:
        return text
    return _ADDRESS.sub(ADDRESS_HIDDEN, text)


def hide_endpoint(text: str | None, *base_urls: str) -> str | None:
    """`text` with every part of the endpoint addresses replaced by ENDPOINT_HIDDEN, in
    any letter case and percent-encoding, and every IP address literal by ADDRESS_HIDDEN."""
    if not text:
        return text
    # Addresses first: "('10.0.0.7', 8443)" goes whole, before its port is a piece.
    text = hide_addresses(text)
    for base_url in base_urls:
        pattern = _endpoint_pattern((base_url or "").strip())
        if pattern is not None:
            # Twice: hiding one piece may leave a neighbouring one a whole word.
            text = pattern.sub(ENDPOINT_HIDDEN, pattern.sub(ENDPOINT_HIDDEN, text))
            text = _hidden_when_decoded(text, pattern)
    return text


def _hidden_when_decoded(text: str, pattern: re.Pattern) -> str:
    """A text that still spells a piece once percent-decoded ("%61cme", or encoded
    twice) is given decoded, with the piece hidden."""
    decoded = text
    for _ in range(2):
        decoded = unquote(decoded)
        if pattern.search(decoded) is not None:
            return pattern.sub(ENDPOINT_HIDDEN, decoded)
    return text


def hide_endpoint_in(value, base_url: str):
    """A JSON value (e.g. a stored probe result, whose notes and field errors may quote
    the address) with hide_endpoint applied to every string in it."""
    if isinstance(value, str):
        return hide_endpoint(value, base_url)
    if isinstance(value, list):
        return [hide_endpoint_in(item, base_url) for item in value]
    if isinstance(value, dict):
        return {key: hide_endpoint_in(item, base_url) for key, item in value.items()}
    return value
