"""Bradley–Terry strengths fitted by penalised maximum likelihood (docs/ratings.md).

A player's strength r is a log-odds: the first of two players scores against the second
with probability σ(r_a − r_b), σ the logistic function. A draw counts as half a win for
each side (the convention of Elo and of LMArena's Bradley–Terry fit): a game's score s
(1, ½, 0) contributes s·log σ(d) + (1 − s)·log σ(−d) to the log-likelihood.

A player who won (or lost) every game has no finite maximum-likelihood strength; a weak
Gaussian prior on every strength, N(0, PRIOR_SD²), keeps it finite (the maximum is then
a posterior mode, as ridge-penalised logistic regression). The prior is worth far less
than a handful of games once a player has mixed results.

Everything here works on many resamples at once (the bootstrap): strengths are an array
of shape (resamples, players) and one Newton iteration solves every resample's system.
"""

from __future__ import annotations

import math

import numpy as np

# Elo's scale: 400 points are a factor of ten in the odds.
ELO_PER_NATURAL_UNIT = 400 / math.log(10)
# The prior's standard deviation, in log-odds: 400 Elo points. A player who beat the
# anchor in all of 20 games (and played no one else) lands about 690 points above it,
# not at infinity.
PRIOR_SD = 400 / ELO_PER_NATURAL_UNIT
# Newton's method stops when no strength moves by more than this (log-odds) …
TOLERANCE = 1e-10
# … or after this many iterations (it converges in under ten on every case tested).
MAX_ITERATIONS = 100
# A Newton step is cut to this length (log-odds) at most, so that a start far from the
# maximum cannot overshoot into a region where the logistic function is flat.
MAX_STEP = 2.0


def sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def fit_strengths(
    n_players: int,
    low: np.ndarray,
    high: np.ndarray,
    games: np.ndarray,
    points: np.ndarray,
    prior_sd: float = PRIOR_SD,
) -> np.ndarray:
    """Posterior-mode strengths of `n_players` players, for each resample.

    The games are aggregated by unordered pair: pair k is players low[k] < high[k], who
    played games[..., k] games in which low[k] scored points[..., k] points. `games` and
    `points` have shape (pairs,) for one data set or (resamples, pairs) for many; the
    answer has shape (players,) or (resamples, players)."""
    single = np.ndim(games) == 1
    games = np.atleast_2d(np.asarray(games, dtype=float))
    points = np.atleast_2d(np.asarray(points, dtype=float))
    resamples = games.shape[0]
    strengths = np.zeros((resamples, n_players))
    precision = 1.0 / prior_sd**2
    for _ in range(MAX_ITERATIONS):
        gradient, negative_hessian = _derivatives(strengths, low, high, games, points, precision)
        step = np.linalg.solve(negative_hessian, gradient[..., None])[..., 0]
        largest = np.max(np.abs(step), axis=1, keepdims=True)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(largest, 1e-300))
        strengths += step
        if np.max(largest) < TOLERANCE:
            break
    return strengths[0] if single else strengths


def _derivatives(strengths, low, high, games, points, precision):
    """The gradient and the negated Hessian of the log-posterior, per resample. Each
    unordered pair appears once, so its off-diagonal entries are set, not summed; the
    diagonal and the gradient are sums over the pairs, taken as products with the
    pairs' incidence matrix."""
    resamples, n_players = strengths.shape
    difference = strengths[:, low] - strengths[:, high]
    expected = sigmoid(difference)
    residual = points - games * expected  # per pair: low's points above expectation
    weight = games * expected * (1.0 - expected)
    incidence = np.zeros((len(low), n_players))  # +1 for the lower-index player, −1 for the other
    incidence[np.arange(len(low)), low] = 1.0
    incidence[np.arange(len(low)), high] = -1.0
    gradient = residual @ incidence - precision * strengths
    negative_hessian = np.zeros((resamples, n_players, n_players))
    negative_hessian[:, low, high] = -weight
    negative_hessian[:, high, low] = -weight
    diagonal = np.arange(n_players)
    negative_hessian[:, diagonal, diagonal] = weight @ np.abs(incidence) + precision
    return gradient, negative_hessian


def strength_covariance(
    strengths: np.ndarray, low: np.ndarray, high: np.ndarray, games: np.ndarray, points: np.ndarray,
    prior_sd: float = PRIOR_SD,
) -> np.ndarray:
    """The Laplace approximation of the strengths' posterior covariance at the mode: the
    inverse of the negated Hessian of the log-posterior."""
    _, negative_hessian = _derivatives(
        strengths[None, :], low, high, np.atleast_2d(games), np.atleast_2d(points), 1.0 / prior_sd**2
    )
    return np.linalg.inv(negative_hessian[0])
