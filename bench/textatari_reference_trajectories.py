"""Plays the expert episode behind each game's reference block (TextAtari §2.2: one full
episode of the expert, every 10th state–action pair kept) and ships it as
envs/textatari/data/reference_trajectories.json: per game the seed, the episode's
length and game score (the expert's score the suite page publishes) and every 10th
pair (state text, action). The block itself is chosen from those pairs at run time
(envs.textatari.scenarios.reference_pairs). Games are written as they finish.

    nice .venv/bin/python bench/textatari_reference_trajectories.py [--workers 1] [--game pong ...]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import envs.textatari  # noqa: E402, F401  (registers the tasks)
from envs.textatari.scenarios import REFERENCE_PATH, play_reference_episode  # noqa: E402


def _play(game: str) -> tuple[str, dict, float]:
    started = time.perf_counter()
    return game, play_reference_episode(game), time.perf_counter() - started


def main() -> None:
    from envs.textatari.games import VERBALISERS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--game", action="append")
    args = parser.parse_args()
    games = args.game or sorted(verbaliser.game for verbaliser in VERBALISERS)
    data = json.loads(REFERENCE_PATH.read_text(encoding="utf-8")) if REFERENCE_PATH.exists() else {"games": {}}
    data.setdefault("commands", []).append(
        "nice .venv/bin/python bench/textatari_reference_trajectories.py " + " ".join(sys.argv[1:])
    )
    with multiprocessing.Pool(args.workers) as pool:
        for game, episode, seconds in pool.imap_unordered(_play, games):
            data["games"][game] = episode
            data["games"] = dict(sorted(data["games"].items()))
            REFERENCE_PATH.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            print(f"{game:16} {seconds:6.0f} s  score {episode['score']:g} in {episode['steps']} steps", flush=True)


if __name__ == "__main__":
    main()
