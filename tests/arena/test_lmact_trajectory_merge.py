"""LMAct's per-step prompt extends the previous step's merged trajectory instead of
merging the whole trajectory again: the parts are the same as merging from scratch,
whatever steps are added and dropped between calls (pictures included)."""

from __future__ import annotations

import random

from arena.strategies.lmact import LMActStrategy
from arena.strategies.lmact_prompt import SEPARATOR, merge_text, omitted_steps_part


class _Converter:
    def convert(self, parts):
        return [dict(part) for part in parts]


def _from_scratch(steps, dropped):
    trajectory = []
    if dropped:
        trajectory.append({"type": "text", "text": SEPARATOR})
        trajectory.extend(_Converter().convert([omitted_steps_part(dropped)]))
    for content, _ in steps[dropped:]:
        trajectory.extend(content)
    return merge_text(trajectory)


def test_the_extended_merge_equals_merging_everything_again():
    rng = random.Random(7)
    for _ in range(50):
        strategy = LMActStrategy.__new__(LMActStrategy)
        strategy._steps, strategy._merged_trajectory, strategy._converter = [], None, _Converter()
        dropped = 0
        for index in range(40):
            content = [{"type": "text", "text": f" Action: a{index}\n"}, {"type": "text", "text": f"Observation: o{index}"}]
            if rng.random() < 0.2:
                content.insert(1, {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{index}"}})
            strategy._steps.append((content, 10))
            if rng.random() < 0.3:
                dropped = min(len(strategy._steps) - 1, dropped + rng.randint(1, 3))
            for _ in range(rng.randint(1, 2)):  # a context retry asks again at the same step
                assert strategy._trajectory(dropped) == _from_scratch(strategy._steps, dropped)
