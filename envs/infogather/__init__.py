"""The infogather suite (infogather.txt): importing this package registers its tasks.

`infogather/single-feature` and `infogather/conjunction` (envs.infogather.tasks); the
suite's baseline policies are in `envs.infogather.baselines.BASELINES`.
"""

from envs.infogather import tasks  # noqa: F401
from envs.infogather.baselines import BASELINES  # noqa: F401
from envs.infogather.tasks import Conjunction, InfoGatherTask, SingleFeature  # noqa: F401

# What the arena reads to run and seed these tasks: the number of colours the paper
# sweeps (§4.4, Figs. 3–4) and the suite's own baselines (§4).
InfoGatherTask.variant_options = {"num_colours": tuple(range(3, 11)), "guided_reasoning": (False, True)}
# Guided reasoning changes only the prompt, so baselines play it once (not per value).
InfoGatherTask.prompt_options = ("guided_reasoning",)
InfoGatherTask.baselines = BASELINES
