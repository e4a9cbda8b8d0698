"""Every door's limit holds under bursts against the shipped two web processes (issue 41,
finding 3): 200 requests, 16 at a time, from one client address, pass exactly the limit —
in the scaled mode (counts in a real Redis server) and in the embedded mode (counts in
the database cache table, arena.web.shared_cache).

The site runs as `manage.py arena_web --processes 2` behind one trusted proxy
(ARENA_NUM_PROXIES=1), so each door's burst names its own client address in
X-Forwarded-For. The limits are the shipped defaults (docs/deployment.md, checked by
tests/test_deployment_doc.py), except API reads (600 a minute by default, more than a
burst could pass) and the doors that call the submitter's endpoint, lowered to keep the
test short: each request they let through probes the fake model.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.db import connection
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.arena.test_scaled_mode import redis_url  # noqa: F401  (a real Redis server)
from tests.arena.web.test_web_launcher import Site, wait_until
from tests.support.fake_openai import FakeOpenAIServer
from tests.support.worker_process import Arena

pytestmark = pytest.mark.django_db(transaction=True)

BURST, AT_ONCE = 200, 16
API_READS_PER_MINUTE = 50
CSRF = "b" * 32  # a well-formed CSRF secret, sent as the cookie and as the form field

SETUP = """
import json
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission
users = [User.objects.create_user("user0", password="the right pass phrase 42")]
users += [User.objects.create_user(f"user{n}") for n in range(1, 24)]
run = run_create(baseline_submission("random", "Random"), RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1))
print(json.dumps({"tokens": [Token.objects.create(user=u).key for u in users], "episode": run.episodes.get().pk}))
"""


@pytest.fixture(params=["scaled", "embedded"])
def site(request):
    """Two web processes on a throw-away arena, counting in Redis or in the database."""
    redis = request.getfixturevalue("redis_url") if request.param == "scaled" else None
    arena = Arena(
        redis_url=redis, ARENA_NUM_PROXIES="1", ARENA_ALLOW_LOOPBACK="1",
        ARENA_API_READS_PER_MINUTE_PER_ADDRESS=str(API_READS_PER_MINUTE),
        ARENA_SUBMISSIONS_PER_HOUR="5", ARENA_ENDPOINT_PROBES_PER_HOUR="5", ARENA_ENDPOINT_PROBES_PER_HOUR_PER_ADDRESS="8",
    )
    arena.copy_database(connection.settings_dict["NAME"])  # with the cache table the embedded mode counts in
    site = Site(arena, processes=2)
    try:
        assert wait_until(lambda: len(site.children()) == 2)
        site.data = json.loads(arena.shell(SETUP).strip().splitlines()[-1])
        site.arena = arena
        yield site
    finally:
        site.stop()
        arena.close()


def _burst(send, count: int = BURST) -> Counter:
    """Status codes of `count` calls of send(n), AT_ONCE at a time."""
    with ThreadPoolExecutor(AT_ONCE) as pool:
        return Counter(pool.map(send, range(count)))


def _client(site) -> httpx.Client:
    limits = httpx.Limits(max_connections=AT_ONCE)
    return httpx.Client(base_url=site.url, timeout=60, trust_env=False, limits=limits)


def _from(address: str, token: str | None = None) -> dict:
    headers = {"X-Forwarded-For": address}
    if token:
        headers["Authorization"] = f"Token {token}"
    return headers


def test_bursts_never_pass_a_limit(site):
    tokens, episode = site.data["tokens"], site.data["episode"]
    with _client(site) as http, FakeOpenAIServer() as model:
        # Sign-up: 5 accounts an hour per address.
        signed_up = _burst(lambda n: http.post(
            "/signup/", headers={**_from("198.51.100.1"), "Cookie": f"csrftoken={CSRF}"},
            data={"username": f"new{n}", "password1": "a sturdy pass phrase 42", "password2": "a sturdy pass phrase 42",
                  "csrfmiddlewaretoken": CSRF},
        ).status_code)
        assert signed_up == {302: 5, 429: BURST - 5}
        assert site.arena.query("select count(*) from auth_user where username like 'new%'") == [(5,)]
        http.cookies.clear()  # signed in as the last account made: the API would ask for a CSRF token

        # Sign-in: 5 password checks per (account, address); 20 per address over all accounts.
        guessed = _burst(lambda n: http.post(
            "/api/token/", headers=_from("198.51.100.2"), json={"username": "user0", "password": f"guess{n}"},
        ).status_code)
        assert guessed == {400: 5, 429: BURST - 5}
        owner = http.post("/api/token/", headers=_from("203.0.113.9"),
                          json={"username": "user0", "password": "the right pass phrase 42"})
        assert owner.status_code == 200  # the owner, from her own address, is not locked out
        sprayed = _burst(lambda n: http.post(
            "/api/token/", headers=_from("198.51.100.3"), json={"username": f"someone{n}", "password": "guess"},
        ).status_code)
        assert sprayed == {400: 20, 429: BURST - 20}

        # Submissions: 5 an hour per user here (each probes the endpoint and queues its episode).
        body = {"name": "burst", "base_url": model.base_url, "model": "fake-model", "tasks": ["lmact/gridworld:ascii"],
                "episodes_per_task": 1}
        submitted = _burst(lambda n: http.post(
            "/api/submissions/", headers=_from(f"192.0.2.{n}", tokens[1]), json=body,
        ).status_code)
        assert submitted == {201: 5, 429: BURST - 5}

        # Endpoint tests (dry runs): 5 an hour per user, 8 per address here. The address's
        # burst goes round 20 accounts, so that no account's own limit is reached first.
        per_user = _burst(lambda n: http.post(
            "/api/submissions/?dry_run=1", headers=_from(f"192.0.2.{n}", tokens[2]), json=body,
        ).status_code)
        assert per_user == {200: 5, 429: BURST - 5}
        per_address = _burst(lambda n: http.post(
            "/api/submissions/?dry_run=1", headers=_from("198.51.100.4", tokens[3 + n % 20]), json=body,
        ).status_code)
        assert per_address == {200: 8, 429: BURST - 8}

        # Downloads: 120 an hour per address.
        downloaded = _burst(lambda n: http.get(
            f"/episodes/{episode}/steps.jsonl", headers=_from("198.51.100.5"),
        ).status_code)
        assert downloaded == {200: 120, 429: BURST - 120}

        # API reads, answered by Django or from the page cache alike: 50 a minute here.
        read = _burst(lambda n: http.get(
            "/api/tasks/" if n % 2 else "/api/runs/", headers=_from("198.51.100.6"),
        ).status_code)
        assert read == {200: API_READS_PER_MINUTE, 429: BURST - API_READS_PER_MINUTE}

    # Websockets: 20 open at once per address; a closed one frees its place.
    with contextlib.ExitStack() as opened:
        holding = threading.Lock()

        def open_socket(n):
            url = f"ws://127.0.0.1:{site.port}/ws/episodes/{episode}/"
            try:
                websocket = connect(url, origin=site.url, additional_headers=_from("198.51.100.7"), open_timeout=60)
            except InvalidStatus as refused:
                return refused.response.status_code
            with holding:
                held.append(opened.enter_context(websocket))
            return "open"

        held = []
        assert _burst(open_socket) == {"open": 20, 403: BURST - 20}
        held.pop().close()
        assert wait_until(lambda: open_socket(0) == "open", seconds=10)

