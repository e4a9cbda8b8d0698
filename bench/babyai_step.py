"""BabyAI's step as it was before each of its fixes, switched back on a task class for the
length of a bench row (envs.balrog.babyai):

- "bot": minigrid's bot started at every reset and told every executed action, as when
  it followed every episode whoever played it (now: only from the expert's first advice);
- "view": the description and the world picture's highlight worked out from minigrid's
  view again (`gen_obs_grid`), as before they were read from the view its step encodes.
"""

import contextlib
import time

from PIL import Image


@contextlib.contextmanager
def babyai_before(task_cls, *fixes: str):
    """Within the block, `task_cls` (a BabyAI task class) steps without `fixes`."""
    from envs.balrog.babyai import WORLD_TILE_PIXELS, BabyAITask, full_render
    from envs.balrog.babyai_text import describe
    from envs.core import Observation

    unknown = set(fixes) - {"bot", "view"}
    if unknown:
        raise ValueError(f"unknown BabyAI fixes: {', '.join(sorted(unknown))}")
    if not issubclass(task_cls, BabyAITask):
        raise TypeError(f"{task_cls.__name__} is not a BabyAI task")
    replaced = {}

    def start_with_bot(self, seed):
        observation = BabyAITask._start(self, seed)
        self._start_bot()
        return observation

    def observe_from_level(self):
        # The text format only: the bench's runs are text runs.
        return Observation(text="\n".join(describe(self._level)))

    def picture_from_level(self):
        return Image.fromarray(full_render(self._level, WORLD_TILE_PIXELS))

    if "bot" in fixes:
        replaced["_start"] = start_with_bot
    if "view" in fixes:
        replaced["_observe"] = observe_from_level
        replaced["world_picture"] = picture_from_level
    if any(name in vars(task_cls) for name in replaced):
        raise TypeError(f"{task_cls.__name__} defines its own {', '.join(replaced)}")
    for name, function in replaced.items():
        setattr(task_cls, name, function)
    try:
        yield
    finally:
        for name in replaced:
            delattr(task_cls, name)


def babyai_step_costs(task_id: str, episodes: int, rounds: int = 3) -> dict[str, float] | None:
    """CPU milliseconds per step of the raw loop (the task's step, random actions) as
    shipped and with each fix switched off, interleaved over `rounds` so that the
    machine's load falls on every variant alike; None for other tasks."""
    from envs.balrog.babyai import BabyAITask
    from envs.core import RandomLegalPolicy
    from envs.registry import get_task_class, make

    task_cls = get_task_class(task_id)
    if not issubclass(task_cls, BabyAITask):
        return None
    variants = {"as shipped": (), "bot from reset": ("bot",), "view worked out again": ("view",),
                "both (before)": ("bot", "view")}
    spent = dict.fromkeys(variants, 0.0)
    steps = dict.fromkeys(variants, 0)
    for _ in range(rounds):
        for label, fixes in variants.items():
            with babyai_before(task_cls, *fixes):
                started = time.process_time()
                for seed in range(episodes):
                    task, policy = make(task_id, None), RandomLegalPolicy(seed)
                    task.reset(seed)
                    while not task.done:
                        task.step(policy.act(task))
                        steps[label] += 1
                    task.close()
                spent[label] += time.process_time() - started
    return {label: 1000 * spent[label] / steps[label] for label in variants}
