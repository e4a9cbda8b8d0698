"""Folding per-episode metrics into a run's running sums.

A run keeps, for every metric its episodes report, what is needed for the mean and the
standard error without reading the episodes again: numbers (and booleans as 0/1) as
count, sum and sum of squares; `None` as a count of episodes that had no value (e.g.
"never reached sufficient information" — reported, not dropped); lists of numbers
(curves such as the exploitation curve) element by element.
"""

from __future__ import annotations

import math


def fold(sums: dict, metrics: dict) -> dict:
    sums = dict(sums)
    for key, value in metrics.items():
        entry = dict(sums.get(key, {}))
        if value is None:
            entry["missing"] = entry.get("missing", 0) + 1
        elif isinstance(value, bool | int | float):
            x = float(value)
            entry["n"] = entry.get("n", 0) + 1
            entry["sum"] = entry.get("sum", 0.0) + x
            entry["sumsq"] = entry.get("sumsq", 0.0) + x * x
        elif isinstance(value, list) and all(isinstance(v, bool | int | float) for v in value):
            curve_sum = list(entry.get("curve_sum", []))
            curve_n = list(entry.get("curve_n", []))
            for i, v in enumerate(value):
                if i >= len(curve_sum):
                    curve_sum.append(0.0)
                    curve_n.append(0)
                curve_sum[i] += float(v)
                curve_n[i] += 1
            entry["curve_sum"], entry["curve_n"] = curve_sum, curve_n
        else:
            continue  # strings and structures are kept on the episode only
        sums[key] = entry
    return sums


def summary(entry: dict) -> dict:
    """mean, stderr, n, missing (and the mean curve) of one folded metric."""
    n = entry.get("n", 0)
    result = {"n": n, "missing": entry.get("missing", 0), "mean": None, "stderr": None}
    if n:
        mean = entry["sum"] / n
        result["mean"] = mean
        if n > 1:
            variance = max(0.0, (entry["sumsq"] - n * mean * mean) / (n - 1))
            result["stderr"] = math.sqrt(variance / n)
    if "curve_sum" in entry:
        result["curve"] = [s / c for s, c in zip(entry["curve_sum"], entry["curve_n"])]
        result["curve_n"] = entry["curve_n"]
    return result
