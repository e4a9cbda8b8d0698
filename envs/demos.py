"""Expert demonstration pools (LMAct §2.4).

A pool is a list of expert episodes in one observation format, generated from seeds in
a range that evaluation never uses, deterministic and cached in-process. For each
evaluation episode, k demonstrations are drawn uniformly without replacement, never
one whose initial state equals the evaluation episode's.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import os
import pickle
import random
import threading
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from envs.core import ExpertPolicy, Observation
from envs.render import encode_png
from envs.registry import make

# Evaluation seeds are small (runs start at 0); demonstrations come from far above.
DEMONSTRATION_SEED_BASE = 1_000_000_000


@dataclasses.dataclass(frozen=True)
class PackedObservation:
    """An observation kept in a pool: text as is, an image as PNG bytes.

    A raw frame costs ~110 KB in memory and on disk, its PNG a few KB, so a pool of 1,000
    image episodes stays in the tens of megabytes. `png` is also what the arena stores
    and hashes, so assembling a prompt never re-encodes a demonstration frame. `image`
    decodes on demand for code that wants pixels.
    """

    text: str | None
    png: bytes | None = None
    width: int = 0
    height: int = 0

    @property
    def image(self) -> Image.Image | None:
        if self.png is None:
            return None
        return Image.open(io.BytesIO(self.png)).convert("RGB")

    @classmethod
    def pack(cls, observation: Observation) -> "PackedObservation":
        if observation.image is None:
            return cls(text=observation.text)
        return cls(
            text=observation.text,
            png=encode_png(observation.image),
            width=observation.image.width,
            height=observation.image.height,
        )


@dataclasses.dataclass(frozen=True)
class Demonstration:
    seed: int
    initial_state_key: str
    steps: list[tuple[PackedObservation, str]]
    total_reward: float


def play_expert_episode(task_id: str, format: str, seed: int) -> Demonstration:
    task = make(task_id, format)
    try:
        observation = task.reset(seed)
        key = task.initial_state_key()
        expert = ExpertPolicy(seed)
        steps: list[tuple[PackedObservation, str]] = []
        total = 0.0
        for _ in range(task.max_steps):
            action = expert.act(task)
            steps.append((PackedObservation.pack(observation), action))
            result = task.step(action)
            total += result.reward
            observation = result.observation
            if result.done:
                break
    finally:
        close = getattr(task, "close", None)
        if close:
            close()
    return Demonstration(seed=seed, initial_state_key=key, steps=steps, total_reward=total)


# Where built pools are kept between processes (set by the arena at start-up; None keeps
# pools in memory only). A pool file is named by task, format, size and a fingerprint of
# this module's seed rule, so a changed rule never reads an old file.
_cache_dir: Path | None = None
POOL_VERSION = "3"  # 2: frames kept as PNG bytes; 3: plain LMAct ascii boards, crossword forms


def set_cache_dir(path: str | os.PathLike | None) -> None:
    global _cache_dir
    _cache_dir = Path(path) if path else None
    _pool.cache_clear()


def pool_file(task_id: str, format: str, size: int) -> Path | None:
    if _cache_dir is None:
        return None
    tag = hashlib.sha256(f"{POOL_VERSION}:{DEMONSTRATION_SEED_BASE}".encode()).hexdigest()[:8]
    return _cache_dir / f"{task_id.replace('/', '-')}-{format}-{size}-{tag}.pickle"


def demonstration_pool(task_id: str, format: str, size: int | None = None) -> tuple[Demonstration, ...]:
    """`size` expert episodes (by default the task's pool size) with distinct initial
    states (fewer if the task has fewer), read from the cache directory when built."""
    from envs.registry import get_task_class

    return _pool(task_id, format, size or get_task_class(task_id).demonstration_pool_size)


@functools.lru_cache(maxsize=32)
def _pool(task_id: str, format: str, size: int) -> tuple[Demonstration, ...]:
    path = pool_file(task_id, format, size)
    if path is not None and path.exists():
        with path.open("rb") as handle:
            return pickle.load(handle)
    pool = build_pool(task_id, format, size)
    save_pool(task_id, format, size, pool)
    return pool


def save_pool(task_id: str, format: str, size: int, pool: tuple[Demonstration, ...]) -> None:
    path = pool_file(task_id, format, size)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # Named per thread too: a worker's episodes begin in threads, and several of them may
    # build a cold pool at once (lru_cache does not hold back a second caller).
    tmp = path.with_name(path.name + f".{os.getpid()}.{threading.get_ident()}.tmp")
    with tmp.open("wb") as handle:
        pickle.dump(pool, handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


def build_pool(
    task_id: str, format: str, size: int, progress: Callable[[int, int], None] | None = None
) -> tuple[Demonstration, ...]:
    """Play the expert from the reserved seeds until `size` distinct initial states."""
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
        close = getattr(task, "close", None)
        if close:
            close()
        if key not in seen:
            seen.add(key)
            pool.append(play_expert_episode(task_id, format, seed))
            if progress:
                progress(len(pool), size)
        seed += 1
    return tuple(pool)


@dataclasses.dataclass(frozen=True)
class DemonstrationDraw:
    """The demonstrations drawn for one evaluation episode."""

    demonstrations: list[Demonstration]
    # Set when the pool held fewer usable demonstrations than requested (planning
    # experts build small pools): {"requested", "used", "pool_size"}, stored on the
    # episode and shown on its page.
    capped: dict | None = None


def draw_demonstrations(
    task_id: str, format: str, requested: int, episode_seed: int, exclude_key: str
) -> DemonstrationDraw:
    """`requested` demonstrations from the task's pool for the episode of `episode_seed`,
    none starting where the episode starts (`exclude_key`, its initial state key); all
    the pool can give when that is fewer, saying so in `capped`. Asking for none never
    builds the pool."""
    if requested <= 0:
        return DemonstrationDraw([])
    pool = demonstration_pool(task_id, format)
    available = sum(1 for demonstration in pool if demonstration.initial_state_key != exclude_key)
    used = min(requested, available)
    chosen = sample_demonstrations(pool, used, episode_seed, exclude_key)
    if used == requested:
        return DemonstrationDraw(chosen)
    return DemonstrationDraw(chosen, {"requested": requested, "used": used, "pool_size": len(pool)})


def sample_demonstrations(pool, k: int, episode_seed: int, exclude_key: str) -> list[Demonstration]:
    """k demonstrations drawn without replacement, none sharing the excluded initial state."""
    candidates = [d for d in pool if d.initial_state_key != exclude_key]
    if k > len(candidates):
        raise ValueError(
            f"asked for {k} demonstrations but only {len(candidates)} distinct ones are available for this episode"
        )
    rng = random.Random(f"demonstrations:{episode_seed}")
    return rng.sample(candidates, k)
