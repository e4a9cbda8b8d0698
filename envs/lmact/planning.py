"""Planning helpers for the LMAct experts that search a simulator (cheetah, Phoenix).

The paper took these two tasks' demonstrations from the Gato training data (LMAct
App. B.2), which cannot be had here, so their experts plan on the true simulator
instead. Everything here is deterministic: randomness comes from generators seeded
with `stable_seed`, never from global state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np


def stable_seed(*parts: object, bits: int = 63) -> int:
    """A non-negative integer of `bits` bits derived from `parts`, stable across runs
    and machines (unlike `hash()`, which Python salts per process)."""
    text = "|".join(str(part) for part in parts).encode()
    digest = hashlib.sha256(text).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - bits)


def knot_matrix(horizon: int, knots: int) -> np.ndarray:
    """A (horizon × knots) matrix that turns values at `knots` evenly spaced control
    points into a piecewise-linear sequence of `horizon` steps."""
    if knots < 2 or horizon < 2:
        raise ValueError("need at least two knots and two steps")
    at = np.linspace(0.0, horizon - 1.0, knots)
    matrix = np.zeros((horizon, knots))
    for step in range(horizon):
        left = min(int(np.searchsorted(at, step, side="right")) - 1, knots - 2)
        fraction = (step - at[left]) / (at[left + 1] - at[left])
        matrix[step, left] = 1.0 - fraction
        matrix[step, left + 1] = fraction
    return matrix


class SamplingPlanner:
    """Model-predictive path integral control (MPPI) over a box of actions [-1, 1]^d.

    Each call perturbs the current plan (a horizon × d array) with smooth noise, drawn
    at a few control points and interpolated linearly, has the caller score every
    candidate by simulating it, and returns the average of the candidates weighted by
    exp(z / temperature), where z is a candidate's return in standard deviations above
    the best one. Candidate 0 is the unperturbed plan. The caller executes the first
    action and calls `shifted` to warm-start the next step.
    """

    def __init__(self, *, dims: int, horizon: int, samples: int, knots: int, noise: float, temperature: float):
        self.dims = dims
        self.horizon = horizon
        self.samples = samples
        self.noise = noise
        self.temperature = temperature
        self._knots = knot_matrix(horizon, knots)

    def initial_plan(self) -> np.ndarray:
        return np.zeros((self.horizon, self.dims))

    def improve(
        self,
        plan: np.ndarray,
        evaluate: Callable[[np.ndarray], np.ndarray],
        rng: np.random.Generator,
    ) -> np.ndarray:
        """One MPPI update. `evaluate` maps candidates (samples × horizon × d) to returns (samples,)."""
        knot_noise = rng.normal(0.0, self.noise, size=(self.samples, self._knots.shape[1], self.dims))
        noise = self._knots[None] @ knot_noise
        noise[0] = 0.0
        candidates = np.clip(plan[None] + noise, -1.0, 1.0)
        returns = np.asarray(evaluate(candidates), dtype=float)
        spread = returns.std()
        if not np.isfinite(spread) or spread <= 0.0:
            return candidates[int(np.argmax(returns))]
        weights = np.exp((returns - returns.max()) / (spread * self.temperature))
        weights /= weights.sum()
        return np.tensordot(weights, candidates, axes=1)

    @staticmethod
    def shifted(plan: np.ndarray) -> np.ndarray:
        """The plan one step later: drop the executed action, repeat the last one."""
        return np.concatenate([plan[1:], plan[-1:]], axis=0)
