"""Regenerate the AdventureGame instances from their fixed seeds.

    python -m envs.adventure.generate           # write fixtures/adventure/instances.json
    python -m envs.adventure.generate --check   # rebuild in memory, compare byte for byte

`--check` exits 0 when the file equals what the generator produces, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys

from envs.adventure.fixture import FIXTURE_PATH
from envs.adventure.fixture_json import dumps
from envs.adventure.generator import generate_all


def render() -> bytes:
    return (dumps(generate_all()) + "\n").encode("utf-8")


def check() -> bool:
    return FIXTURE_PATH.exists() and FIXTURE_PATH.read_bytes() == render()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the fixture instead of writing it")
    args = parser.parse_args(argv)
    if args.check:
        if check():
            print(f"{FIXTURE_PATH} is up to date")
            return 0
        print(f"{FIXTURE_PATH} differs from what the generator produces; run python -m envs.adventure.generate")
        return 1
    FIXTURE_PATH.parent.mkdir(parents=True, exist_ok=True)
    data = render()
    FIXTURE_PATH.write_bytes(data)
    print(f"wrote {FIXTURE_PATH} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
