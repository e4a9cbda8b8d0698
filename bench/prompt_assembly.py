"""Per-step prompt assembly with 0 and with 512 demonstrations (LMAct §2.3).

The frozen prefix (preamble + demonstrations) is assembled once per episode; each step
only adds its trajectory part and instructions. This prints the per-step assembly time
(strategy.prepare + strategy.messages) for grid world / ascii with 0 and 512
demonstrations, their ratio (target <= 1.5), the prefix size and peak memory.

    .venv/bin/python bench/prompt_assembly.py
"""

import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TASK, FORMAT, STEPS = "lmact/gridworld", "ascii", 25


def measure(num_demonstrations: int) -> tuple[float, int, float]:
    from arena.play.step_records import ObservationImages
    from arena.strategies.lmact import LMActStrategy
    from envs.core import RandomLegalPolicy
    from envs.registry import make

    run = SimpleNamespace(
        task=TASK, format=FORMAT,
        variant={"format": FORMAT, "num_demonstrations": num_demonstrations, "show_legal_actions": True},
        submission=SimpleNamespace(effective_context_window=None, max_tokens=256, provider="openai"),
    )
    episode = SimpleNamespace(seed=7)
    strategy = LMActStrategy(run, episode)
    task = make(TASK, FORMAT)
    observation = task.reset(episode.seed)
    started = time.perf_counter()
    prefix, _ = strategy.begin(task, observation, ObservationImages())
    begin_seconds = time.perf_counter() - started
    prefix_chars = sum(len(part.get("text", "")) for part in prefix)
    policy = RandomLegalPolicy(episode.seed)
    previous, per_step = None, []
    for index in range(STEPS):
        legal = task.legal_actions()
        started = time.perf_counter()
        added = strategy.prepare(index, observation, previous, legal)
        strategy.messages(added)
        per_step.append(time.perf_counter() - started)
        result = task.step(policy.act(task))
        previous, observation = result.executed_action, result.observation
        if result.done:
            break
    return sum(per_step) / len(per_step), prefix_chars, begin_seconds


def token_estimate_costs() -> tuple[float, float]:
    """Seconds per estimate of a grid-world observation by the two ways arena.strategies.tokens
    counts (the same count; the by-kind scan is what ASCII text without "_" gets)."""
    from arena.strategies.tokens import text_tokens, text_tokens_by_piece
    from envs.core import RandomLegalPolicy
    from envs.registry import make

    task = make(TASK, FORMAT)
    texts = [task.reset(7).text]
    policy = RandomLegalPolicy(7)
    while not task.done:
        texts.append(task.step(policy.act(task)).observation.text)
    costs = []
    for count in (text_tokens, text_tokens_by_piece):
        started = time.process_time()
        for _ in range(20):
            for text in texts:
                count(text)
        costs.append((time.process_time() - started) / (20 * len(texts)))
    return costs[0], costs[1]


def main() -> None:
    tmp = tempfile.mkdtemp(prefix="arena-bench-")
    os.environ.update(ARENA_VAR_DIR=tmp, DJANGO_SETTINGS_MODULE="config.settings", LOG_LEVEL="WARNING")
    import django

    django.setup()
    from envs.demos import demonstration_pool

    started = time.perf_counter()
    demonstration_pool(TASK, FORMAT)
    print(f"pool of {len(demonstration_pool(TASK, FORMAT))} {TASK} ({FORMAT}) demonstrations built in {time.perf_counter() - started:.1f} s")
    zero, zero_prefix, _ = measure(0)
    many, many_prefix, begin = measure(512)
    print(f"per-step assembly,   0 demonstrations: {zero * 1e6:8.1f} µs (prefix {zero_prefix:,} characters)")
    print(f"per-step assembly, 512 demonstrations: {many * 1e6:8.1f} µs (prefix {many_prefix:,} characters, "
          f"~{many_prefix // 4:,} tokens; assembled once in {begin * 1000:.0f} ms)")
    print(f"ratio 512 / 0                        : {many / zero:.2f} (target <= 1.5)")
    by_kind, by_piece = token_estimate_costs()
    print(f"token estimate of one observation    : {by_kind * 1e6:8.1f} µs by kind (ASCII without '_'), "
          f"{by_piece * 1e6:.1f} µs piece by piece (other text): ratio {by_piece / by_kind:.1f}")
    print(f"peak memory (RSS)                    : {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
