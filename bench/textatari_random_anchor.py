"""Measures the random anchor of the arena's normalised TextAtari score under the arena's
own protocol: the uniformly random policy of the baselines (envs.core.RandomLegalPolicy),
on the arena's emulator (12 frames per step, sticky actions 0.25, v5-style driving),
at the suite's step limits, over seeds kept apart from the ones runs play.

TextAtari defines no normalised score and no anchors (its Figs. 6–39 show only
relative bars); the DQN literature's random figures were taken with another protocol
(4 frames per action, no sticky actions, up to 30 no-op starts, whole games), so a
random episode of this arena does not score them. This script measures what a random
episode here does score.

An episode is played once, to the largest step limit asked for: the policy's draws and
the emulator depend only on the seed, so the episode cut at a smaller limit is the
prefix of the longer one (tests/envs/textatari/test_scores.py checks that this
shortcut plays exactly the task's episodes). The game is driven without its text:
the translator changes nothing the console does.

Writes envs/textatari/data/random_anchor.json (per game and limit: episodes, mean,
standard deviation, standard error, how many episodes the limit cut, and every
episode's score), games as they finish, so an interrupted run keeps what it measured.

    nice .venv/bin/python bench/textatari_random_anchor.py [--episodes 100] [--first-seed 1000]
        [--limits 100 1000] [--workers 2] [--game pong ...]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.core import RandomLegalPolicy  # noqa: E402
from envs.textatari.emulator import FRAMES_PER_STEP, STICKY_ACTION_PROBABILITY, AtariEmulator  # noqa: E402
from envs.textatari.scores import ANCHOR_PATH  # noqa: E402


class _Console:
    """What the random policy reads from a task: the legal actions, in the task's order
    (the game's minimal action set, as `TextAtariTask.legal_actions` lists it)."""

    def __init__(self, emulator: AtariEmulator):
        self._legal = list(emulator.action_names)

    def legal_actions(self) -> list[str]:
        return self._legal


def random_episode(game: str, seed: int, limits: tuple[int, ...]) -> dict[int, tuple[float, bool]]:
    """The random policy's episode of `seed`: for each step limit, (the game score when
    the limit or the game's end came, whether the limit cut the episode)."""
    emulator = AtariEmulator(game, seed)
    policy = RandomLegalPolicy(seed)
    console = _Console(emulator)
    score, steps, result = 0.0, 0, {}
    for limit in sorted(limits):
        while steps < limit and not emulator.game_over:
            score += emulator.step(policy.act(console))
            steps += 1
        result[limit] = (score, not emulator.game_over)
    return result


def measure_game(job: tuple[str, list[int], tuple[int, ...]]) -> tuple[str, dict, float]:
    game, seeds, limits = job
    started = time.perf_counter()
    episodes = [random_episode(game, seed, limits) for seed in seeds]
    figures = {}
    for limit in limits:
        scores = [episode[limit][0] for episode in episodes]
        deviation = statistics.stdev(scores) if len(scores) > 1 else 0.0
        figures[str(limit)] = {
            "episodes": len(scores),
            "mean": statistics.fmean(scores),
            "sd": deviation,
            "se": deviation / math.sqrt(len(scores)),
            "cut_by_limit": sum(episode[limit][1] for episode in episodes),
            "seeds": f"{seeds[0]}..{seeds[-1]}",
            "scores": scores,
        }
    return game, figures, time.perf_counter() - started


def main() -> None:
    from envs.textatari.games import VERBALISERS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--limits", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--game", action="append")
    parser.add_argument("--output", type=Path, default=ANCHOR_PATH)
    args = parser.parse_args()
    games = args.game or sorted(verbaliser.game for verbaliser in VERBALISERS)
    seeds = list(range(args.first_seed, args.first_seed + args.episodes))
    limits = tuple(sorted(set(args.limits)))
    data = json.loads(args.output.read_text(encoding="utf-8")) if args.output.exists() else {}
    protocol = data.setdefault("protocol", {})
    protocol.update({
        "policy": "uniformly random over the game's minimal action set (the arena's random baseline)",
        "frames_per_step": FRAMES_PER_STEP,
        "sticky_action_probability": STICKY_ACTION_PROBABILITY,
    })
    # Each invocation adds its command: the figures of a game come from the last one that measured it.
    protocol.setdefault("commands", []).append(
        "nice .venv/bin/python bench/textatari_random_anchor.py " + " ".join(sys.argv[1:])
    )
    data.setdefault("games", {})
    jobs = [(game, seeds, limits) for game in games]
    with multiprocessing.Pool(args.workers) as pool:
        for game, figures, seconds in pool.imap_unordered(measure_game, jobs):
            # Read again before writing: another run may have added games meanwhile.
            if args.output.exists():
                written = json.loads(args.output.read_text(encoding="utf-8"))
                data["games"] = written["games"]
                commands = written["protocol"].get("commands", [])
                protocol["commands"] = commands + [c for c in protocol["commands"] if c not in commands]
            data["games"].setdefault(game, {}).update(figures)
            data["games"] = dict(sorted(data["games"].items()))
            args.output.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            summary = "  ".join(
                f"{limit}: {f['mean']:.1f} ± {f['se']:.1f} (sd {f['sd']:.1f}, cut {f['cut_by_limit']})"
                for limit, f in figures.items()
            )
            print(f"{game:16} {seconds:6.0f} s  {summary}", flush=True)


if __name__ == "__main__":
    main()
