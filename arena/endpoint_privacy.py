"""A submission's endpoint address is private to its owner (and the operators).

An endpoint URL carries internal host names, ports, tenant paths and sometimes a
credential in its query string; a researcher who submits a private vLLM box does not
want it published. Readers get the provider, the model name and the generation
settings; the owner sees the address on their own pages; text that others can read (an
episode's or a step's error, which may quote the URL or the host a connection failed
to reach) has it replaced by ENDPOINT_HIDDEN when it is stored.
"""

from __future__ import annotations

from urllib.parse import urlsplit

ENDPOINT_HIDDEN = "[endpoint]"
# A host name or path shorter than this is too common a string to replace in prose
# ("api", "/v1") and too short to identify anyone's machine.
_SHORTEST_HIDDEN_PART = 4


def can_see_endpoint(user, submission) -> bool:
    """The submission's owner and staff see its endpoint address; nobody else does."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return submission.owner_id is not None and submission.owner_id == user.pk


def endpoint_parts(base_url: str) -> list[str]:
    """The strings of `base_url` that would give it away, longest first: the URL as
    written and without its trailing slash, its host with the port, its host, and its
    path with the query (tenant paths, a credential in the query string)."""
    url = (base_url or "").strip()
    if not url:
        return []
    parts = {url, url.rstrip("/")}
    try:
        split = urlsplit(url)
        hostname = split.hostname or ""
    except ValueError:  # a malformed stored URL: hide it as written
        return sorted((part for part in parts if part), key=len, reverse=True)
    parts.update({split.netloc, hostname})
    path = split.path.rstrip("/") + (f"?{split.query}" if split.query else "")
    if path.count("/") > 1 or split.query:  # "/v1" alone names nobody; "/tenant/acme/v1" does
        parts.add(path)
    return sorted((part for part in parts if len(part) >= _SHORTEST_HIDDEN_PART), key=len, reverse=True)


def hide_endpoint(text: str | None, base_url: str) -> str | None:
    """`text` with every part of the endpoint address replaced by ENDPOINT_HIDDEN."""
    if not text:
        return text
    for part in endpoint_parts(base_url):
        text = text.replace(part, ENDPOINT_HIDDEN)
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
