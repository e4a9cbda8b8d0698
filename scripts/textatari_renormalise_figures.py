#!/usr/bin/env python
"""Brings the shipped TextAtari baseline figures (fixtures/baseline_figures/textatari.json)
onto the current random anchors without playing them again.

The arena's normalised TextAtari score is an affine function of the game score once the
game and the step limit are fixed: n = (s − random) / (human − random)
(envs.textatari.scores). So the folded sums of the episodes' normalised scores follow
exactly from the folded sums of their game scores, which every entry carries:

    Σ n  = (Σ s − k·random) / gap
    Σ n² = (Σ s² − 2·random·Σ s + k·random²) / gap²

over the k episodes. The game scores themselves, and everything else in an entry, do
not depend on the anchors and are left as played. Each entry rewritten records this
command and the date in its made_by, beside the command that played it.

    .venv/bin/python scripts/textatari_renormalise_figures.py [--check]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.textatari.scores import anchors  # noqa: E402

FIGURES = ROOT / "fixtures" / "baseline_figures" / "textatari.json"
DEFAULT_STEPS = 1000  # TextAtariTask.max_steps: the limit of a run that does not set it


def renormalised(game_score: dict, game: str, max_steps: int) -> dict:
    """The normalised score's folded sums {n, sum, sumsq} from the game score's."""
    figures = anchors(game, max_steps)
    count, total, squares = int(game_score["n"]), float(game_score["sum"]), float(game_score["sumsq"])
    random, gap = figures.random, figures.gap
    return {
        "n": count,
        "sum": (total - count * random) / gap,
        "sumsq": (squares - 2 * random * total + count * random * random) / (gap * gap),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which entries are not on the current anchors")
    args = parser.parse_args()
    document = json.loads(FIGURES.read_text(encoding="utf-8"))
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    stale = 0
    for run in document["runs"]:
        game = run["task"].split("/", 1)[1]
        max_steps = int(run["options"].get("max_steps", DEFAULT_STEPS))
        sums = run["figures"]["metric_sums"]
        fresh = renormalised(sums["game_score"], game, max_steps)
        old = sums.get("normalised_score", {})
        if all(math.isclose(old.get(key, math.nan), fresh[key], rel_tol=1e-9, abs_tol=1e-12) for key in fresh):
            continue
        stale += 1
        print(f"{run['task']:28} {run['policy']:7} mean {100 * old.get('sum', 0) / max(old.get('n', 1), 1):8.2f} % "
              f"-> {100 * fresh['sum'] / fresh['n']:8.2f} %")
        if not args.check:
            sums["normalised_score"] = fresh
            run["made_by"]["renormalised"] = {
                "command": "scripts/textatari_renormalise_figures.py",
                "generated": stamp,
                "why": "the normalised score's sums recomputed from the game scores' under the current random anchors",
            }
    if not args.check and stale:
        FIGURES.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")  # as scripts/baseline_figures.py writes it
    print(f"{stale} of {len(document['runs'])} entries {'stale' if args.check else 'rewritten'}")
    if args.check and stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
