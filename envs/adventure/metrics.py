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


# The per-episode values the aggregate sums, per experiment.
TOTALS = ("played", "quality", "goal_success_rate", "turns", "optimal_turns", "code_score")


def aggregate(episodes: Iterable[dict]) -> dict:
    """Per-experiment and macro-averaged played / quality / goal rate and the paper's
    clemscore; clembench's code score under "code"."""
    totals: dict[str, dict] = {}
    for metrics in episodes:
        entry = totals.setdefault(metrics["experiment"], {"episodes": 0, **{key: 0.0 for key in TOTALS}})
        entry["episodes"] += 1
        for key in TOTALS:
            # code_score is None exactly for the episodes not played, which it skips.
            entry[key] += float(metrics.get(key) or 0.0)
    return aggregate_totals(totals)


def aggregate_totals(totals: dict[str, dict]) -> dict:
    """`aggregate` from each experiment's episode count and the sums of its episodes'
    TOTALS (what a run's folded metrics hold: the suite page reads no episode)."""
    order = [e for e in EXPERIMENTS if e in totals] + sorted(e for e in totals if e not in EXPERIMENTS)
    per_experiment = {}
    for experiment in order:
        entry = totals[experiment]
        count = entry["episodes"]
        per_experiment[experiment] = {
            "episodes": count,
            "played": 100.0 * entry["played"] / count,
            # the paper's tables: successes over all the experiment's episodes
            "quality": entry["quality"] / count,
            "goal_success_rate": entry["goal_success_rate"] / count,
            "turns": entry["turns"] / count,
            "optimal_turns": entry["optimal_turns"] / count,
        }
    played = _mean([e["played"] for e in per_experiment.values()])
    quality = _mean([e["quality"] for e in per_experiment.values()])
    pooled = sum(entry["episodes"] for entry in totals.values())
    pooled_played = sum(entry["played"] for entry in totals.values())
    code_quality = sum(entry["code_score"] for entry in totals.values()) / pooled_played if pooled_played else 0.0
    code_played = 100.0 * pooled_played / pooled if pooled else 0.0
    return {
        "experiments": per_experiment,
        "played": played,
        "quality": quality,
        "goal_success_rate": _mean([e["goal_success_rate"] for e in per_experiment.values()]),
        "clemscore": quality * played / 100.0,
        "code": {"quality": code_quality, "played": code_played, "clemscore": code_quality * code_played / 100.0},
    }
