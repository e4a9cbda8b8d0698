"""The Content-Security-Policy lets the live pages' websockets reach this site only
(issue 41, finding 6): `connect-src` names the site's own websocket origin, never any
host (`ws: wss:`)."""

import pytest

from arena.web.middleware import content_security_policy


def _connect_src(policy: str) -> list[str]:
    return next(part.split()[1:] for part in policy.split("; ") if part.startswith("connect-src "))


def test_connect_src_names_only_the_sites_own_websocket_origin():
    assert _connect_src(content_security_policy("https://arena.example.org")) == ["'self'", "wss://arena.example.org"]
    assert _connect_src(content_security_policy("http://127.0.0.1:8000")) == ["'self'", "ws://127.0.0.1:8000"]


@pytest.mark.django_db
def test_every_page_carries_it(client):
    policy = client.get("/").headers["Content-Security-Policy"]
    assert _connect_src(policy) == ["'self'", "ws://127.0.0.1:8000"]
    assert "ws: " not in policy and "wss:" not in policy
