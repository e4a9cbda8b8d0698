"""Crafter's world noise, compiled: crafter 1.8.3 draws every 64×64 world from OpenSimplex
noise (the opensimplex package), some 27,000 noise values a world. In the interpreter
they took about 0.9 s of a quiet core a world, most of a random episode's CPU; compiled
by numba they take about 20 ms with the calls (a whole world about 0.2 s on the loaded
2-core machine, crafter's Python around the noise), and the world is the same cell for cell:
numba compiles opensimplex's own functions (no fast-math), so every value is the same
IEEE double the interpreter computes (tests/envs/balrog/test_crafter_noise.py holds it).

opensimplex compiles itself when numba is importable at the time it is first imported,
and importing numba costs some 0.4 s. Every process that loads the task catalogue
imports crafter — the web processes too, which never generate a world — so opensimplex
is imported here with numba hidden, and its noise is compiled by the first world
generation of a process (`compile_noise`), from numba's cache on disk after the first
time on a machine.
"""

from __future__ import annotations

import sys
import threading

_compiled = False
_lock = threading.Lock()


def _import_opensimplex_uncompiled() -> None:
    if "opensimplex" in sys.modules:
        return
    hidden = sys.modules.get("numba")
    # None in sys.modules makes `import numba` raise ImportError: opensimplex's fallback.
    sys.modules["numba"] = None
    try:
        import opensimplex  # noqa: F401
    finally:
        if hidden is None:
            del sys.modules["numba"]
        else:
            sys.modules["numba"] = hidden


_import_opensimplex_uncompiled()

import opensimplex  # noqa: E402
import opensimplex.internals  # noqa: E402


def compile_noise() -> None:
    """Make opensimplex's 3D noise, the one crafter's world generation calls, the
    numba-compiled version of itself (once a process; the next calls return at once)."""
    global _compiled
    if _compiled:
        return
    with _lock:
        if _compiled:
            return
        from numba import njit
        from numba.core.registry import CPUDispatcher

        internals = opensimplex.internals
        if not isinstance(opensimplex.api._noise3, CPUDispatcher):
            # _noise3 calls _extrapolate3 by its module-level name: compiled first, so
            # that numba compiles the call into _noise3.
            if not isinstance(internals._extrapolate3, CPUDispatcher):
                internals._extrapolate3 = njit(cache=True)(internals._extrapolate3)
            opensimplex.api._noise3 = njit(cache=True)(internals._noise3)
        _compiled = True
