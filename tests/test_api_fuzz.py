"""A bounded schemathesis run over the API's own OpenAPI schema (/api/schema/): every
operation gets requests that follow the schema and requests that break it, through the
WSGI application (no server), and none may be answered with a server error.

Bounded to ARENA_FUZZ_EXAMPLES examples per operation and mode (default 25, about 20
seconds here); the examples are derandomised, so a failure is reproduced by running the
test again. Set ARENA_FUZZ_EXAMPLES higher for a longer local run."""

from __future__ import annotations

import collections
import os
import socket

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.wsgi import get_wsgi_application
import hypothesis
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode

from arena.services.runs import RunSpec
from arena.services.submissions import baseline_submission, submission_create
from tests.conftest import new_run

EXAMPLES = int(os.environ.get("ARENA_FUZZ_EXAMPLES", "25"))
CANARY = "sk-fuzz-canary-0000"


@pytest.fixture
def unreachable_endpoints(monkeypatch, settings):
    """Submissions are probed before they are created, and the fuzzer invents their
    base URLs. Here every host name resolves to loopback, which the operator allows, so
    the URL guard lets the probe go on; and every connection is refused on the spot. The
    probe runs to its "could not reach the endpoint" answer, no request leaves the
    process, nothing waits for a timeout."""
    settings.ARENA_ALLOW_LOOPBACK = True

    def resolve_to_loopback(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port or 0))]

    def refuse(sock, address):
        raise ConnectionRefusedError(f"the API fuzz test makes no connections ({address!r})")

    monkeypatch.setattr(socket, "getaddrinfo", resolve_to_loopback)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def _known_ids(user) -> dict[str, int]:
    """Rows the fuzzer's ids can point at, so detail pages, steps and run actions are
    exercised on real objects too, not only on 404s."""
    baseline = baseline_submission("expert", "Expert")
    episode = new_run(baseline, task="lmact/gridworld", episodes=2).episodes.first()
    mine = submission_create(
        owner=user, fields={"name": "Fuzzed", "base_url": "https://api.example.com/v1", "model": "m"},
        api_key=CANARY, runs=[RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1)],
    )
    return {
        "/api/runs/": mine.runs.get().pk,
        "/api/episodes/": episode.pk,
        "/api/submissions/": mine.pk,
    }


@pytest.mark.django_db(transaction=True)  # the WSGI handler closes connections between requests
def test_no_request_gets_a_server_error(unreachable_endpoints):
    user = User.objects.create_user("fuzzer", password="a-long-enough-password")
    token = Token.objects.create(user=user).key
    known_ids = _known_ids(user)
    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())

    statuses: collections.Counter[int] = collections.Counter()
    server_errors: list[str] = []

    def play(operation, **strategy_options):
        @hypothesis.given(case=operation.as_strategy(**strategy_options))
        @hypothesis.settings(
            max_examples=EXAMPLES, deadline=None, database=None, derandomize=True, phases=[hypothesis.Phase.generate],
            suppress_health_check=list(hypothesis.HealthCheck),
        )
        def send(case):
            response = case.call(headers={"Authorization": f"Token {token}"})
            statuses[response.status_code] += 1
            if response.status_code >= 500:
                server_errors.append(f"{response.status_code} from {case.as_curl_command()}")
            assert CANARY[:8] not in response.text

        try:
            send()
        except Unsatisfiable:
            pass  # an operation without parameters has nothing to break

    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            play(operation, generation_mode=mode)
        for prefix, pk in known_ids.items():
            if operation.path.startswith(prefix + "{id}"):
                play(operation, path_parameters={"id": pk})

    requests = sum(statuses.values())
    print(f"\nschemathesis: {requests} requests, statuses {dict(sorted(statuses.items()))}")
    assert requests > 300, statuses
    assert not server_errors, "\n".join(server_errors[:20])
