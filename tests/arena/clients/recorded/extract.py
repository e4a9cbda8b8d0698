"""Turn one recording of real HTTP exchanges into this folder's replay format.

    git -C <clone> show <commit>:<path> | python tests/arena/clients/recorded/extract.py \
        --repo owner/name --commit <commit> --path <path> [--keep 0,2] > <provider>/<name>.json

Reads the two recording formats the vendors' payloads here come from: a VCR cassette
in YAML whose bodies were stored parsed (``parsed_body``), and an inline-snapshot JSON
list of ``{request, response}`` pairs (the Anthropic SDK's own test snapshots). Writes
``{"source": …, "exchanges": [{"request": …, "response": …}]}``, where

* the response keeps its status, its body as recorded, and its headers except those
  that frame the bytes on the wire (length, chunking, encoding, connection): the replay
  server frames the body itself;
* the request keeps its method, URL, headers (no credential, host or length) and body,
  with any string longer than LONG_STRING characters (a base64 image) replaced by a
  note of its length: the tests compare the shape of the arena's request with it, not
  its bytes.
"""

from __future__ import annotations

import argparse
import json
import sys

import yaml

LONG_STRING = 300
FRAMING = {"content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive"}
NOT_KEPT_IN_REQUESTS = FRAMING | {"host", "authorization", "x-api-key", "x-goog-api-key", "cookie"}


def _cut_long_strings(value):
    if isinstance(value, bytes):
        return f"[{len(value)} bytes cut]"
    if isinstance(value, str) and len(value) > LONG_STRING:
        return f"[{len(value)} characters cut]"
    if isinstance(value, list):
        return [_cut_long_strings(item) for item in value]
    if isinstance(value, dict):
        return {key: _cut_long_strings(item) for key, item in value.items()}
    return value


def _flat_headers(headers: dict, dropped: set[str]) -> dict[str, str]:
    flat = {}
    for name, value in (headers or {}).items():
        if name.lower() in dropped:
            continue
        flat[name.lower()] = ", ".join(value) if isinstance(value, list) else str(value)
    return flat


def _body(recorded: dict):
    if "parsed_body" in recorded:
        return recorded["parsed_body"]
    body = recorded.get("body")
    if isinstance(body, dict) and "string" in body:
        if isinstance(body["string"], bytes):  # a picture the recorder downloaded
            return f"[{len(body['string'])} bytes cut]"
        text = body["string"]
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            return text
    return body


def from_cassette(data: dict) -> list[dict]:
    exchanges = []
    for interaction in data["interactions"]:
        request, response = interaction["request"], interaction["response"]
        exchanges.append({
            "request": {
                "method": request["method"],
                "url": request["uri"],
                "headers": _flat_headers(request.get("headers"), NOT_KEPT_IN_REQUESTS),
                "body": _cut_long_strings(_body(request)),
            },
            "response": {
                "status": response["status"]["code"],
                "headers": _flat_headers(response.get("headers"), FRAMING),
                "body": _body(response),
            },
        })
    return exchanges


def from_snapshot(data: list) -> list[dict]:
    return [
        {
            "request": {
                "method": pair["request"]["method"],
                "url": pair["request"]["url"],
                "headers": _flat_headers(pair["request"].get("headers"), NOT_KEPT_IN_REQUESTS),
                "body": _cut_long_strings(pair["request"].get("body")),
            },
            "response": {
                "status": pair["response"]["status_code"],
                "headers": _flat_headers(pair["response"].get("headers"), FRAMING),
                "body": pair["response"].get("body"),
            },
        }
        for pair in data
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--keep", help="indexes of the exchanges to keep, e.g. 0,2 (default: all)")
    args = parser.parse_args()
    text = sys.stdin.read()
    data = json.loads(text) if text.lstrip().startswith("[") else yaml.safe_load(text)
    exchanges = from_snapshot(data) if isinstance(data, list) else from_cassette(data)
    if args.keep:
        exchanges = [exchanges[int(index)] for index in args.keep.split(",")]
    source = {"repo": args.repo, "commit": args.commit, "path": args.path}
    json.dump({"source": source, "exchanges": exchanges}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
