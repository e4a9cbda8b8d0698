"""Crafter's worlds come from compiled noise (envs.balrog.crafter_noise) that gives the
interpreter's values to the last bit, and a process that never generates a world does
not load the compiler."""

import json
import subprocess
import sys

import numpy as np
import opensimplex

from envs.balrog import crafter_env, crafter_noise
from tests.support.worker_process import ROOT


def _interpreted_noise3(x, y, z, perm, perm_grad_index3) -> float:
    """opensimplex's 3D noise (the arguments of opensimplex.api._noise3) run by the
    interpreter, whatever numba made of it."""
    internals = opensimplex.internals
    noise3 = getattr(internals._noise3, "py_func", internals._noise3)
    extrapolate3 = internals._extrapolate3
    internals._extrapolate3 = getattr(extrapolate3, "py_func", extrapolate3)
    try:
        return noise3(x, y, z, perm, perm_grad_index3)
    finally:
        internals._extrapolate3 = extrapolate3


def test_the_compiled_noise_is_the_interpreters_to_the_last_bit():
    crafter_noise.compile_noise()
    assert type(opensimplex.api._noise3).__module__.startswith("numba")
    rng = np.random.default_rng(0)
    simplex = opensimplex.OpenSimplex(seed=int(rng.integers(2**31 - 1)))
    # The points crafter asks for (cells over a size, its integer layers 0–8, the tunnels'
    # stretched cells) and arbitrary ones.
    cells = [(x / size, y / size, z) for x, y in rng.integers(0, 64, (60, 2)).tolist()
             for size, z in ((8, 3), (15, 3), (5, 0), (3, 7), (1, 8))]
    tunnels = [(2 * x / 3, y / 5 / 3, 7) for x, y in rng.integers(0, 64, (40, 2)).tolist()]
    arbitrary = [tuple(point) for point in rng.uniform(-50, 50, (200, 3)).tolist()]
    for x, y, z in cells + tunnels + arbitrary:
        interpreted = _interpreted_noise3(x, y, z, simplex._perm, simplex._perm_grad_index3)
        assert simplex.noise3(x, y, z) == interpreted, (x, y, z)


def test_a_world_generated_with_compiled_noise_is_the_interpreters_world(monkeypatch):
    compiled = crafter_env.started_env(5)._world
    monkeypatch.setattr(opensimplex.api, "_noise3", _interpreted_noise3)
    interpreted = crafter_env.started_env(5)._world
    assert np.array_equal(compiled._mat_map, interpreted._mat_map)
    assert [(type(o).__name__, tuple(o.pos)) for o in compiled.objects] == [
        (type(o).__name__, tuple(o.pos)) for o in interpreted.objects]
    assert compiled.random.get_state()[1].tolist() == interpreted.random.get_state()[1].tolist()


def test_loading_the_games_does_not_load_the_compiler_until_a_world_is_generated():
    script = (
        "import json, sys\n"
        "from envs.registry import all_tasks\n"
        "all_tasks()\n"
        "loaded = 'numba' in sys.modules\n"
        "from envs.balrog.crafter_env import started_env\n"
        "started_env(0)\n"
        "print(json.dumps([loaded, 'numba' in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, True]
