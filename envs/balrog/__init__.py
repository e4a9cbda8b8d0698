"""The BALROG suite's descriptor; its environments' tasks (`balrog/babyai-goto`, …,
`balrog/crafter`, `balrog/textworld-treasure-hunter`, …) are the rows of
envs.balrog.specs.

The protocol every environment shares (instruction prompt, default action for invalid
outputs, short- and long-term observation, progress) is in `envs.balrog.protocol`.
How each element compares with BALROG's own harness — identical and tested, the same
information in the arena's words, or a labelled deviation — is docs/fidelity/balrog.md;
the suite's figures stand beside BALROG's leaderboard only where that page says so.
"""

from envs.balrog.catalog import ENVIRONMENTS, environment_of
from envs.suite import MEAN_OF_EPISODE_METRIC, OBSERVATION_HISTORY, POOL_EPISODES, Metric, Overall, PaperPreset, Suite

# BALROG §3 ("Evaluation"): every episode scores a progress from 0 to 100; a task's or
# an environment's figure is the mean over its episodes, with the standard error
# BALROG reports (population standard deviation / √N).
PROGRESS = Metric(
    name="progress",
    label="Progress",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC,
    episode_metric="progress",
    unit=" %",
    digits=1,
    description=(
        "Progress of an episode from 0 to 100 (BALROG §3): success for BabyAI, Baba Is AI and MiniHack, "
        "achievements unlocked out of 22 for Crafter, the game's score for TextWorld, the win probability of the "
        "deepest dungeon or experience level reached for NetHack (App. F.2); averaged over the episodes."
    ),
)



def _environment_column(task_id: str, options: dict) -> str | None:
    environment = environment_of(task_id, options)
    return None if environment is None else environment.name


SUITE = Suite(
    # 2: Baba Is AI plays baba-is-ai's own levels, moves and BALROG's wrapper text
    # (docs/fidelity/balrog.md), so its scores mean something else than under 1.
    protocol_version=2,
    engine_packages=("crafter", "gymnasium", "minigrid", "minihack", "nle", "numpy", "pillow", "textworld"),
    id="balrog",
    title="BALROG",
    description=(
        "Agentic games in text and images: BabyAI, Crafter, TextWorld, Baba Is AI, MiniHack, NetHack — "
        "progress from 0 to 100."
    ),
    paper="BALROG: Benchmarking Agentic LLM and VLM Reasoning on Games",
    order=2,
    prompt_protocol=OBSERVATION_HISTORY,
    illegal_actions=(
        "An output that is not exactly one of the actions executes the environment's default action, and "
        "the next observation says so (BALROG §3); the step is recorded as illegal."
    ),
    primary_metric=PROGRESS,
    reflection=False,
    # BALROG's own leaderboard (BALROG §3): one column per environment, progress ± SE
    # pooled over its tasks' episodes, the average over environments, LLM and VLM.
    page="balrog-leaderboard",
    page_summary="progress per environment and on average, the way BALROG's leaderboard reports it",
    # BALROG §3–4 as its released harness plays it (its config.yaml): the zero-shot
    # naive agent with a history of 16 observations, read the way BALROG's naive
    # agent reads a reply, sampled at temperature 1.0 with up to 8,192 output tokens.
    # Episodes follow the released config, not the paper's tables (25 per BabyAI
    # task, 20 per TextWorld game, 5 per Baba Is AI family): the leaderboard's
    # submissions are made with the config (the shipped one plays 10 per BabyAI task,
    # 10 Crafter, 10 per TextWorld game, 3 per Baba Is AI family, 5 per MiniHack task,
    # 5 NetHack), and a figure meant to stand beside them should have the same
    # sample size. The tasks that differ from 5 say so in Task.paper_episodes.
    paper_preset=PaperPreset(
        summary=(
            "BALROG's released harness (§3–4, its config): its instruction prompt, the last 16 observations "
            "and the action alone, read as BALROG's naive agent reads it; temperature 1.0 and up to 8,192 "
            "output tokens; as many episodes as BALROG's config and leaderboard (10 per BabyAI task, 10 for "
            "Crafter, 10 per TextWorld game, 3 per Baba Is AI family, 5 per MiniHack task, 5 for NetHack). "
            "LLM and VLM results are separate tables: VLM mode plays both."
        ),
        episodes=5,
        strategy={
            "history_window": 16, "chain_of_thought": False, "answer_markers": False, "keep_reasoning": False,
            "self_correction": False, "num_demonstrations": 0, "temperature": 1.0, "max_tokens": 8192,
            "lenient_parsing": False,
        },
    ),
    # BALROG's leaderboard as its own page draws it: a column per environment, and
    # the average, which is the suite's figure only once all six are played.
    overall=Overall(
        cell=POOL_EPISODES,
        note=(
            "BALROG: progress 0–100 ± s.e. per environment over its tasks' pooled episodes, and the average "
            "over the six environments with s.e. √(Σ SE²)/6 (§3)."
        ),
        columns=tuple((environment.name, environment.title) for environment in ENVIRONMENTS),
        column_of=_environment_column,
        summary_label="Average",
        population_stderr=True,
        shared_scale=True,
    ),
)
