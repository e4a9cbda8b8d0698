"""What the replay scrubber draws for a whole episode, without its steps.

A player of a 100,000-step episode loads only a window of steps around the one shown,
yet its scrubber spans the episode and marks every error, illegal action, non-zero
reward and the final step. This module reads those flags for every step in one pass
over the step rows (no texts) and encodes each kind compactly: a list of step indices
when the kind is rare, else a bitmap over the indices (base64, bit i of byte i // 8 set
for step i, least significant bit first), whichever is smaller. It also gives the
reward gathered before each window of the player's size (aligned on multiples of it),
so the player can show the cumulative reward of a step from its window alone.

A finished episode never changes: its marks are cached, keyed by what would change if
it were ever played again (status, step count, finish time), and served with an ETag.
"""

from __future__ import annotations

import base64

from django.core.cache import cache

from arena.models import Episode
from leaderboard.selectors.episodes import step_flags

MARK_KINDS = ("error", "illegal", "reward", "done")
# Steps per window of `reward_before` unless the request names another size.
WINDOW_STEPS = 100
MIN_WINDOW_STEPS = 10
MAX_WINDOW_STEPS = 10_000
MARKS_CACHE_SECONDS = 7 * 24 * 3600
_READ_CHUNK = 5_000


def marks_etag(episode: Episode, window: int = WINDOW_STEPS) -> str | None:
    """The ETag of a finished episode's marks; None while it may still gain steps."""
    if episode.status not in Episode.TERMINAL:
        return None
    finished = episode.finished_at.timestamp() if episode.finished_at else 0
    return f'"marks-{episode.pk}-{window}-{episode.status}-{episode.num_steps}-{finished:.6f}"'


def episode_marks(episode: Episode, window: int = WINDOW_STEPS) -> dict:
    """The scrubber marks of `episode` (see the module's docstring), from the cache when
    it has ended."""
    etag = marks_etag(episode, window)
    if etag is None:
        return step_marks(episode.pk, window)
    key = f"step-marks:{etag.strip(chr(34))}"
    return cache.get_or_set(key, lambda: step_marks(episode.pk, window), MARKS_CACHE_SECONDS)


def step_marks(episode_id: int, window_steps: int = WINDOW_STEPS) -> dict:
    """Read every step's flags (index order, through the (episode, index) index) and
    encode them."""
    found: dict[str, list[int]] = {kind: [] for kind in MARK_KINDS}
    window_rewards: list[float] = []
    count = 0
    last_index = -1
    for index, legal, cut_off, reward, done, has_error in step_flags(episode_id, chunk=_READ_CHUNK):
        count += 1
        last_index = index
        if has_error:
            found["error"].append(index)
        if legal is False and not cut_off:  # an answer cut off is counted apart
            found["illegal"].append(index)
        if reward:
            found["reward"].append(index)
            window = index // window_steps
            if window >= len(window_rewards):
                window_rewards.extend([0.0] * (window + 1 - len(window_rewards)))
            window_rewards[window] += reward
        if done:
            found["done"].append(index)
    length = last_index + 1
    return {
        "count": count,
        "last_index": last_index,
        "window": window_steps,
        "reward_before": _reward_before_windows(window_rewards, -(-length // window_steps)),
        "marks": {kind: _encode(indices, length) for kind, indices in found.items()},
    }


def _reward_before_windows(window_rewards: list[float], windows: int) -> list[float]:
    """The reward summed over every step before the start of each window."""
    before = []
    total = 0.0
    for window in range(windows):
        before.append(total)
        total += window_rewards[window] if window < len(window_rewards) else 0.0
    return before


def _encode(indices: list[int], length: int) -> dict:
    bitmap_bytes = (length + 7) // 8
    bitmap_chars = 4 * -(-bitmap_bytes // 3)  # base64
    list_chars = sum(len(str(index)) + 1 for index in indices)
    if list_chars <= bitmap_chars:
        return {"indices": indices}
    bits = bytearray(bitmap_bytes)
    for index in indices:
        bits[index >> 3] |= 1 << (index & 7)
    return {"bitmap": base64.b64encode(bytes(bits)).decode("ascii")}

