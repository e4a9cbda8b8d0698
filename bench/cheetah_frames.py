"""What the cheetah's replay pictures cost: steps per second with and without drawing
the body at every step, their ratio, and the bytes a stored picture takes.

Plays a few 100-step episodes of lmact/cheetah with uniformly random actions, once
stepping only and once stepping and drawing (envs.lmact.cheetah_frames), and prints the
figures. The drawing runs on whichever OpenGL backend the process finds (EGL, OSMesa).

    .venv/bin/python bench/cheetah_frames.py [--episodes 3]
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.registry import get_task_class  # noqa: E402

CheetahRun = get_task_class("lmact/cheetah")


def play(episodes: int, draw: bool) -> tuple[float, list[int]]:
    """Steps per second over `episodes` episodes, and the sizes of the pictures drawn."""
    task = CheetahRun()
    sizes: list[int] = []
    steps, elapsed = 0, 0.0
    for seed in range(episodes):
        task.reset(seed)
        if draw:
            task.viewer_png()  # the first picture makes the OpenGL context: not a step's cost
        rng = random.Random(seed)
        started = time.perf_counter()
        while not task.done:
            task.step(task.random_action(rng))
            if draw:
                picture = task.viewer_png()
                if picture is None:
                    sys.exit("no OpenGL backend: the cheetah cannot be drawn on this machine")
                sizes.append(len(picture))
            steps += 1
        elapsed += time.perf_counter() - started
    task.close()
    return steps / elapsed, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    plain, _ = play(args.episodes, draw=False)
    drawn, sizes = play(args.episodes, draw=True)
    print(f"steps/s without pictures: {plain:8.1f}")
    print(f"steps/s with a picture each step: {drawn:8.1f}")
    print(f"ratio (with / without): {drawn / plain:.3f}; drawing costs {1000 / drawn - 1000 / plain:.1f} ms a step")
    print(f"bytes per picture: mean {statistics.mean(sizes):.0f}, max {max(sizes)}; "
          f"a 100-step episode: {sum(sizes) / args.episodes / 1024:.0f} kB")


if __name__ == "__main__":
    main()
