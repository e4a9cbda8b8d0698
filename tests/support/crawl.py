"""Crawling the site as a reader would: every page route, every API GET in the schema,
with each route's parameters filled from a scene's objects; response bodies read whole
(streamed, zipped, gzipped or tarred downloads included)."""

import gzip
import io
import re
import tarfile
import zipfile

from asgiref.sync import async_to_sync
from django.urls import URLPattern, URLResolver


def page_routes(patterns, prefix=""):
    """Every route of the site's own pages (the API is read from its schema; the admin is
    staff's), as route strings with their <converter:name> parameters."""
    for pattern in patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if route in ("api/", "admin/"):
                continue
            yield from page_routes(pattern.url_patterns, prefix + route)
        elif isinstance(pattern, URLPattern) and not route.startswith("^"):
            yield prefix + route


def fill(route: str, ids: dict) -> str:
    """The route with each parameter filled with an object of the scene: the object kind
    is the path segment before the parameter ("runs/<int:pk>" → the run)."""
    def value(match):
        name = match.group(2)
        before = route[: match.start()].rstrip("/").rsplit("/", 1)[-1].strip("{}")
        return str(ids.get((before, name), ids.get(name, ids.get(before, "1"))))

    return "/" + re.sub(r"[<{](?:(\w+):)?(\w+)[>}]", value, route.lstrip("/"))


async def _gathered(chunks) -> bytes:
    return b"".join([chunk async for chunk in chunks])


def body(response) -> str:
    if not response.streaming:
        raw = response.content
    elif response.is_async:
        raw = async_to_sync(_gathered)(response.streaming_content)
    else:
        raw = b"".join(response.streaming_content)
    kind = response.get("Content-Type", "")
    if "zip" in kind:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    if "gzip" in kind:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as archive:
            return "\n".join(
                archive.extractfile(member).read().decode("utf-8", "replace")
                for member in archive.getmembers() if member.isfile()
            )
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", "replace")


def every_url(client, ids: dict) -> list[str]:
    """Every page route and every API GET of the schema, filled from `ids`."""
    from django.urls import get_resolver

    page_urls = [fill(route, ids) for route in page_routes(get_resolver().url_patterns)]
    schema = client.get("/api/schema/", {"format": "json"}).json()
    api_urls = [fill(path, ids) for path, ops in schema["paths"].items() if "get" in ops]
    assert len(page_urls) >= 20 and len(api_urls) >= 10, (page_urls, api_urls)
    return [*page_urls, *api_urls]
