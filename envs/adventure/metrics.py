"""Scores (AdventureGame §3.2, §4.2).

Per episode (`episode_metrics`):

- outcome: "success" (done with every goal fact true), "lost" (done otherwise) or
  "aborted" (a reply without ">" or the turn limit);
- played: not aborted; quality: 100 for a success, else 0;
- code_score: clembench's per-episode main score, the share of goal facts that hold
  at the end × 100 for a played episode (a lost one gets partial credit), None for an
  aborted one;
- goal_success_rate: goal facts true when the episode ended / goal facts × 100 —
  at "done", or in the final state of an aborted episode; never intermediate ones;
- turns (the model's turns, pre-exploration excluded, "done" included) and
  optimal_turns (the instance's reference, "done" not counted, as clembench counts it);
- epistemic_actions / pragmatic_actions: successful actions so labelled (Table 5;
  an action may be both), epistemic_gain: newly observed facts over the episode;
- failed_actions and failures by kind.

Per submission (`aggregate`), two scores, each labelled as what it is:

- the paper's (AdventureGame §4.2, Tables 1–2): per experiment, quality = successes
  over *all* its episodes × 100 and % played = played episodes over all × 100 (so an
  aborted episode costs in both); then macro-averages over the experiments and
  clemscore = macro quality × macro % played / 100;
- clembench's code (its scorer and clemeval): the per-episode code_score averaged over
  the played episodes of all experiments pooled (quality), % played pooled likewise,
  and their product / 100 — partial goal credit, one figure per game.

The goal success rate is averaged over all episodes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from envs.adventure.engine import Game
from envs.adventure.generator import EXPERIMENTS


def episode_metrics(game: Game, experiment: str, index: int, optimal_turns: int) -> dict:
    goals_total = len(game.world.goals)
    finished = game.finished
    achieved = len(game.goals_achieved) if finished else 0
    outcome = game.outcome if finished else "unfinished"
    failures = Counter(t.failure for t in game.turns if t.failure)
    succeeded = [t for t in game.turns if t.success]
    return {
        "experiment": experiment,
        "instance": index,
        "outcome": outcome,
        "end_reason": game.end_reason or "",
        "success": outcome == "success",
        "played": finished and outcome != "aborted",
        "quality": 100.0 if outcome == "success" else 0.0,
        "code_score": (100.0 * achieved / goals_total if goals_total else 0.0) if finished and outcome != "aborted" else None,
        "goals_total": goals_total,
        "goals_achieved": achieved,
        "goal_success_rate": 100.0 * achieved / goals_total if goals_total else 0.0,
        "turns": len(game.turns),
        "optimal_turns": optimal_turns,
        "epistemic_actions": sum(1 for t in succeeded if t.epistemic),
        "pragmatic_actions": sum(1 for t in succeeded if t.pragmatic),
        "epistemic_gain": sum(t.epistemic_gain for t in game.turns),
        "failed_actions": sum(1 for t in game.turns if not t.success),
        "failures": dict(sorted(failures.items())),
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def aggregate(episodes: Iterable[dict]) -> dict:
    """Per-experiment and macro-averaged played / quality / goal rate and the paper's
    clemscore; clembench's code score under "code"."""
    groups: dict[str, list[dict]] = {}
    for metrics in episodes:
        groups.setdefault(metrics["experiment"], []).append(metrics)
    order = [e for e in EXPERIMENTS if e in groups] + sorted(e for e in groups if e not in EXPERIMENTS)
    per_experiment = {}
    for experiment in order:
        group = groups[experiment]
        played = [m for m in group if m["played"]]
        per_experiment[experiment] = {
            "episodes": len(group),
            "played": 100.0 * len(played) / len(group),
            # the paper's tables: successes over all the experiment's episodes
            "quality": _mean([m["quality"] for m in group]),
            "goal_success_rate": _mean([m["goal_success_rate"] for m in group]),
            "turns": _mean([m["turns"] for m in group]),
            "optimal_turns": _mean([m["optimal_turns"] for m in group]),
        }
    played = _mean([e["played"] for e in per_experiment.values()])
    quality = _mean([e["quality"] for e in per_experiment.values()])
    pooled = [m for group in groups.values() for m in group]
    pooled_played = [m for m in pooled if m["played"]]
    code_quality = _mean([m.get("code_score") or 0.0 for m in pooled_played])
    code_played = 100.0 * len(pooled_played) / len(pooled) if pooled else 0.0
    return {
        "experiments": per_experiment,
        "played": played,
        "quality": quality,
        "goal_success_rate": _mean([e["goal_success_rate"] for e in per_experiment.values()]),
        "clemscore": quality * played / 100.0,
        "code": {"quality": code_quality, "played": code_played, "clemscore": code_quality * code_played / 100.0},
    }
