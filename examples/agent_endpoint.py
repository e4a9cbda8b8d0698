"""A minimal agent endpoint for the arena (standard library only).

Run it, then submit its URL with the provider "Agent endpoint" and put the signing
secret the arena shows you in ARENA_AGENT_SECRET:

    ARENA_AGENT_SECRET=... python examples/agent_endpoint.py --port 9000

It checks every request's signature (HMAC-SHA256 of "<timestamp>.<body>" in the
X-Arena-Signature header, timestamp at most 5 minutes old), then answers with the
first legal action — replace `choose` with your agent.
"""

import argparse
import hashlib
import hmac
import json
import os
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_AGE_SECONDS = 300


def signature_ok(secret: bytes, timestamp: str, body: bytes, signature: str) -> bool:
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > MAX_AGE_SECONDS:
        return False
    expected = "sha256=" + hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def choose(request: dict) -> dict:
    """Your agent goes here: the request has the observation, legal actions, history."""
    legal = request.get("legal_actions") or ["up"]
    return {"action": legal[0], "reasoning": "first legal action"}


class Handler(BaseHTTPRequestHandler):
    secret = b""

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length)
        if not signature_ok(
            self.secret, self.headers.get("X-Arena-Timestamp", ""), body, self.headers.get("X-Arena-Signature", "")
        ):
            self._answer(401, {"error": "bad signature"})
            return
        self._answer(200, choose(json.loads(body)))

    def _answer(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        return


def main() -> None:
    parser = argparse.ArgumentParser(description="A minimal arena agent endpoint.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000)
    args = parser.parse_args()
    Handler.secret = os.environ["ARENA_AGENT_SECRET"].encode()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    print(f"agent listening on http://{args.host}:{server.server_port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
