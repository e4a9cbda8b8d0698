"""Per-run figures of played runs, for the real-server tests and benches: steps,
legal-action rate, median model latency, and prompt tokens read afresh per step (the
prompt tokens the server did not serve from its cache)."""

from __future__ import annotations

import dataclasses
import statistics


@dataclasses.dataclass
class RunFigures:
    label: str
    status: str
    episodes: int
    steps: int
    legal_rate: float | None
    median_latency_ms: float | None
    reread_per_step: float | None  # prompt tokens not served from the server's cache, per call

    def line(self) -> str:
        legal = f"{self.legal_rate:.0%}" if self.legal_rate is not None else "—"
        latency = f"{self.median_latency_ms:,.0f} ms" if self.median_latency_ms is not None else "—"
        reread = f"{self.reread_per_step:,.0f}" if self.reread_per_step is not None else "—"
        return (f"{self.label:<44} {self.status:<9} {self.steps:>5} steps  legal {legal:>5}  "
                f"median {latency:>9}  re-read/step {reread:>6}")


def run_label(run) -> str:
    variant = run.variant or {}
    extra = ", ".join(f"{k}={v}" for k, v in sorted((run.options or {}).items()))
    demos = variant.get("num_demonstrations")
    parts = [f"{run.task}:{run.format}"]
    if run.task.startswith("lmact/"):
        parts.append(f"{demos} demos")
    if extra:
        parts.append(extra)
    return " ".join(parts)


def figures_of(run) -> RunFigures:
    steps = [s for episode in run.episodes.all() for s in episode.steps.all()]
    model_steps = [s for s in steps if s.tokens_in is not None]
    latencies = [s.latency_ms for s in model_steps if s.latency_ms is not None]
    reread = [s.tokens_in - (s.cached_tokens_in or 0) for s in model_steps if s.cached_tokens_in is not None]
    return RunFigures(
        label=run_label(run),
        status=run.status,
        episodes=run.episodes.count(),
        steps=len(steps),
        legal_rate=(sum(1 for s in steps if s.legal) / len(steps)) if steps else None,
        median_latency_ms=statistics.median(latencies) if latencies else None,
        reread_per_step=(sum(reread) / len(reread)) if reread else None,
    )
