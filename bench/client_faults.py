"""Client fault table: every model client against its fake server, one fault at a time.

For the OpenAI-compatible, Anthropic, Gemini and agent-endpoint clients, each fault is
scripted on the client's fake (real HTTP on 127.0.0.1) and one call is made. The table
shows how many HTTP attempts the client made, how long the call took, and what the arena
would record: the reply (with the retry note), an illegal action (agent replies that are
not a move), or the ModelCallError that ends the episode, with its error kind.

    .venv/bin/python bench/client_faults.py [--width 110]

Backoffs and timeouts are scaled down so the whole table takes well under a minute;
the settings used are printed first.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.clients.base import ModelCallError  # noqa: E402
from tests.support.clients import CLIENTS_UNDER_TEST, ClientUnderTest  # noqa: E402
from tests.support.fake_openai import FakeOpenAIServer, Fault  # noqa: E402

KEY = "sk-bench-CANARY-0123456789"
WRONG_KEY = "sk-bench-wrong-key-000000"

SETTINGS = dict(
    timeout_seconds=0.3,
    total_timeout_seconds=0.6,
    max_retries=3,
    backoff_base_seconds=0.05,
    max_wait_seconds=2.0,
)
MALFORMED_RETRIES = 1
MAX_RESPONSE_BYTES = 64 * 1024
RETRY_AFTER = "0.2"
DRIP_INTERVAL = 0.05
DELAY = 1.0
OVERSIZED = 1_000_000


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    faults: tuple[Fault, ...] = ()
    wrong_credentials: bool = False


def scenarios(attempts: int) -> list[Scenario]:
    return [
        Scenario("none (baseline)"),
        Scenario(f"timeout (answers after {DELAY:g} s)", (Fault.delay(DELAY),)),
        Scenario("connection reset", (Fault.reset(),)),
        Scenario(f"429, Retry-After: {RETRY_AFTER}", (Fault.status(429, retry_after=RETRY_AFTER),)),
        Scenario("500 once", (Fault.status(500),)),
        Scenario("500 every time", (Fault.status(500),) * attempts),
        Scenario("malformed JSON once", (Fault.malformed_json(),)),
        Scenario("malformed JSON every time", (Fault.malformed_json(),) * attempts),
        Scenario("empty choices/candidates/content", (Fault.empty_choices(),)),
        Scenario(f"oversized body ({OVERSIZED:,} B)", (Fault.oversized(OVERSIZED),)),
        Scenario(f"slow drip (1 B / {DRIP_INTERVAL * 1000:g} ms)", (Fault.slow_drip(DRIP_INTERVAL),)),
        Scenario("wrong key / secret", wrong_credentials=True),
    ]


@dataclasses.dataclass
class Target:
    label: str
    server: FakeOpenAIServer
    call: Callable[[bool], object]  # wrong_credentials -> coroutine giving a ModelReply


def common_options(seed: int) -> dict:
    return dict(
        **SETTINGS,
        allow_loopback=True,
        max_response_bytes=MAX_RESPONSE_BYTES,
        rng=random.Random(seed),
    )


def make_targets(servers: dict[str, FakeOpenAIServer]) -> list[Target]:
    """Each client against its fake, which refuses every key but KEY."""

    def caller(under_test: ClientUnderTest, seed: int):
        async def call(wrong: bool):
            options = common_options(seed)
            if under_test.chat:  # agent replies are never retried, so they have no such setting
                options["malformed_retries"] = MALFORMED_RETRIES
            key = WRONG_KEY if wrong else KEY
            async with under_test.client(servers[under_test.name].base_url, key, **options) as client:
                return await under_test.ask(client)

        return call

    return [
        Target(under_test.name, servers[under_test.name], caller(under_test, seed))
        for seed, under_test in enumerate(CLIENTS_UNDER_TEST, 1)
    ]


def shorten(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


async def run_one(target: Target, scenario: Scenario) -> tuple[str, float, str]:
    target.server.clear()
    target.server.enqueue(*scenario.faults)
    started = time.perf_counter()
    try:
        reply = await target.call(scenario.wrong_credentials)
    except ModelCallError as error:
        elapsed = time.perf_counter() - started
        assert KEY not in str(error) and WRONG_KEY not in str(error), "a secret leaked into an error"
        how = "retries exhausted" if error.retryable else "not retried"
        return str(error.attempts), elapsed, f"FAILED ({how}; {error.kind}): {error}"
    elapsed = time.perf_counter() - started
    if not reply.text and reply.error:
        return str(reply.attempts), elapsed, f"illegal action: {reply.error}"
    outcome = f"ok {reply.text.splitlines()[-1]!r}"
    if reply.error:
        outcome += f"; note: {reply.error}"
    return str(reply.attempts), elapsed, outcome


def print_settings() -> None:
    print("Settings (scaled down for the bench; production defaults are 60 s / 1 s / 60 s):")
    for name, value in SETTINGS.items():
        print(f"  {name:<24} {value}")
    print(f"  {'malformed_retries':<24} {MALFORMED_RETRIES} (model clients; agent replies are never retried)")
    print(f"  {'max_response_bytes':<24} {MAX_RESPONSE_BYTES:,}")
    print(f"  {'fault: Retry-After':<24} {RETRY_AFTER} s")
    print(f"  {'fault: delay':<24} {DELAY:g} s (> timeout_seconds)")
    print(f"  {'fault: drip':<24} 1 byte every {DRIP_INTERVAL:g} s (each read < timeout, the whole > total)")
    print()


async def main(width: int) -> None:
    print_settings()
    attempts = SETTINGS["max_retries"] + 1
    servers = {under_test.name: under_test.fake(KEY) for under_test in CLIENTS_UNDER_TEST}
    for server in servers.values():
        server.start()
    started = time.perf_counter()
    try:
        for target in make_targets(servers):
            print(f"== {target.label}")
            print(f"{'fault':<34} {'attempts':>8} {'time':>8}  outcome / what would be recorded")
            for scenario in scenarios(attempts):
                tries, elapsed, outcome = await run_one(target, scenario)
                print(f"{scenario.name:<34} {tries:>8} {elapsed:>7.2f}s  {shorten(outcome, width)}")
            print()
    finally:
        for server in servers.values():
            server.stop()
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=110, help="truncate the outcome column to this many characters")
    args = parser.parse_args()
    asyncio.run(main(args.width))
