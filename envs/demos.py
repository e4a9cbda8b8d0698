"""Expert demonstration pools (lmact.txt §2.4).

A pool is a list of expert episodes in one observation format, generated from seeds in
a range that evaluation never uses, deterministic and cached in-process. For each
evaluation episode, k demonstrations are drawn uniformly without replacement, never
one whose initial state equals the evaluation episode's.
"""

from __future__ import annotations

import dataclasses
import functools
import random

from envs.core import ExpertPolicy, Observation
from envs.registry import make

# Evaluation seeds are small (runs start at 0); demonstrations come from far above.
DEMONSTRATION_SEED_BASE = 1_000_000_000


@dataclasses.dataclass(frozen=True)
class Demonstration:
    seed: int
    initial_state_key: str
    steps: list[tuple[Observation, str]]
    total_reward: float


def play_expert_episode(task_id: str, format: str, seed: int) -> Demonstration:
    task = make(task_id, format)
    observation = task.reset(seed)
    key = task.initial_state_key()
    expert = ExpertPolicy(seed)
    steps: list[tuple[Observation, str]] = []
    total = 0.0
    for _ in range(task.max_steps):
        action = expert.act(task)
        steps.append((observation, action))
        result = task.step(action)
        total += result.reward
        observation = result.observation
        if result.done:
            break
    return Demonstration(seed=seed, initial_state_key=key, steps=steps, total_reward=total)


@functools.lru_cache(maxsize=32)
def demonstration_pool(task_id: str, format: str, size: int = 1000) -> tuple[Demonstration, ...]:
    """`size` expert episodes with distinct initial states (fewer if the task has fewer)."""
    pool: list[Demonstration] = []
    seen: set[str] = set()
    seed = DEMONSTRATION_SEED_BASE
    # A task with few distinct initial states cannot fill a large pool; stop looking
    # after a generous number of seeds.
    budget = size * 20
    while len(pool) < size and seed < DEMONSTRATION_SEED_BASE + budget:
        task = make(task_id, format)
        task.reset(seed)
        key = task.initial_state_key()
        if key not in seen:
            seen.add(key)
            pool.append(play_expert_episode(task_id, format, seed))
        seed += 1
    return tuple(pool)


def sample_demonstrations(pool, k: int, episode_seed: int, exclude_key: str) -> list[Demonstration]:
    """k demonstrations drawn without replacement, none sharing the excluded initial state."""
    candidates = [d for d in pool if d.initial_state_key != exclude_key]
    if k > len(candidates):
        raise ValueError(
            f"asked for {k} demonstrations but only {len(candidates)} distinct ones are available for this episode"
        )
    rng = random.Random(f"demonstrations:{episode_seed}")
    return rng.sample(candidates, k)
