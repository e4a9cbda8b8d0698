"""Closed-loop HTTP load for bench/http_load.py: each of `clients` keep-alive
connections sends its next request as soon as the previous one is answered, for a fixed
time, cycling through the given paths. wrk (a C load generator) when installed, since
it takes far less CPU from the server it shares the machine with; else asyncio + httpx.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import httpx


@dataclass
class Result:
    generator: str
    requests: int
    seconds: float
    errors: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    # Set by bench/http_load.py: the server's CPU time per answered request.
    server_cpu_ms: float = 0.0

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


# wrk counts requests answered with a status of 400 or more, refused or broken
# connections and timeouts as errors; its latencies are in microseconds.
WRK_SCRIPT = """
local paths = {%s}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n %% #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %%d %%d %%d %%.0f %%.0f %%.0f\\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99)))
end
"""


def closed_loop(base_url: str, paths, *, clients: int, seconds: float, quiet: bool = False) -> Result:
    if shutil.which("wrk"):
        return _wrk(base_url, paths, clients, seconds, quiet)
    return asyncio.run(_python(base_url, paths, clients, seconds))


def _wrk(base_url: str, paths, clients: int, seconds: float, quiet: bool) -> Result:
    script = WRK_SCRIPT % ", ".join(f'"{path}"' for path in paths)
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as lua:
        lua.write(script)
        lua.flush()
        # Two threads: enough to keep 200 connections busy without taking a core away.
        done = subprocess.run(
            ["wrk", "-t2", f"-c{clients}", f"-d{max(1, round(seconds))}s", "--timeout", "60s", "-s", lua.name,
             base_url + "/"],
            capture_output=True, text=True, check=True,
        )
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    requests, duration_us, errors, p50, p95, p99 = (int(float(x)) for x in line.split()[1:])
    if not requests and not quiet:  # say why rather than print a row of zeros
        print("wrk completed no request:", done.stdout, done.stderr, sep="\n", file=sys.stderr)
    return Result("wrk, 2 threads", requests, duration_us / 1e6, errors, p50 / 1e3, p95 / 1e3, p99 / 1e3)


async def _python(base_url: str, paths, clients: int, seconds: float) -> Result:
    latencies: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60, trust_env=False) as client:
        stop_at = time.monotonic() + seconds

        async def one_client(number: int) -> None:
            nonlocal errors
            turn = number
            while time.monotonic() < stop_at:
                started = time.monotonic()
                try:
                    response = await client.get(paths[turn % len(paths)])
                    await response.aread()
                    ok = response.status_code < 400
                except httpx.HTTPError:
                    ok = False
                latencies.append(time.monotonic() - started)
                errors += not ok
                turn += 1

        began = time.monotonic()
        await asyncio.gather(*(one_client(n) for n in range(clients)))
        elapsed = time.monotonic() - began
    if not latencies:
        return Result("Python (asyncio + httpx)", 0, elapsed, errors, 0.0, 0.0, 0.0)
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return Result("Python (asyncio + httpx)", len(latencies), elapsed, errors,
                  cuts[49] * 1e3, cuts[94] * 1e3, cuts[98] * 1e3)
