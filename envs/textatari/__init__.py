"""The TextAtari suite's descriptor; its tasks, one per game (`textatari/pong`,
`textatari/breakout`, …), are the rows of envs.textatari.specs.

The pieces: the emulator (`emulator`), the verbaliser interface (`verbaliser`) and one
verbaliser per game (`games/`), the scenarios (`scenarios`), answer parsing
(`answers`), the planning expert (`expert`), the paper's agents (`agents`), the arena's
normalised score (`scores`) and the tasks (`tasks`). Element by element, what is the
paper's and what is the arena's: docs/fidelity/textatari.md.
"""

from envs.textatari.agents import SHORT_TERM_MEMORY
from envs.textatari.catalog import CATEGORIES, category_of
from envs.suite import CHAT, MEAN_OF_EPISODE_METRIC, MEAN_OVER_TASKS, SUMMED_REWARD, Metric, Overall, PaperPreset, Suite

# The arena's own metric: TextAtari speaks of performance relative to human play (§3.3)
# but defines no normalised score and no anchors (envs.textatari.scores).
NORMALISED_SCORE = Metric(
    name="normalised_score",
    label="Normalised score (the arena's)",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC,
    episode_metric="normalised_score",
    scale=100.0,
    unit=" %",
    digits=1,
    description=(
        "The arena's own normalised score (TextAtari defines none): an episode's game score as a percentage of "
        "the way from the arena's random policy (0 %), measured over at least 100 episodes under the arena's "
        "protocol at the same step limit, to the human tester of the DQN literature (100 %, whole games under that "
        "literature's protocol); (score − random) / (human − random), averaged over the episodes. Games whose "
        "anchor gap is within random play's spread are flagged: their normalised score is mostly luck."
    ),
)
GAME_SCORE = SUMMED_REWARD



def _category_column(task_id: str, options: dict) -> str | None:
    category = category_of(task_id.split("/", 1)[1])
    return None if category is None else category.name


SUITE = Suite(
    protocol_version=1,
    engine_packages=("ale-py", "numpy", "pillow"),
    id="textatari",
    title="TextAtari",
    description="23 Atari 2600 games played through text descriptions of the console's RAM, 1,000 steps and more.",
    paper="TextAtari: 100K Frames Game Playing with Language Agents",
    order=6,
    prompt_protocol=CHAT,
    illegal_actions=(
        "An answer that names no action of the game's list (by number or name) plays NOOP for that step "
        "and is recorded as illegal; the game goes on."
    ),
    primary_metric=NORMALISED_SCORE,
    secondary_metrics=(GAME_SCORE,),
    # TextAtari App. E: results per game for each scenario and agent, and the
    # relative-performance charts comparing two of them (Figs. 6–39).
    page="textatari-scores",
    page_summary="the arena's normalised score and the game score per game, scenario and agent; relative-performance charts (Figs. 6–39)",
    # §3.1: every scenario (swept by the task), 1,000 steps (the task's default
    # step limit) and five seeds. The agent — Naive, CoT or Reflexion — is the
    # submission's chain-of-thought and reflection choice, since the paper runs all
    # three (§3.2); what they share is fixed: no demonstrations, the legal actions
    # in every turn (App. D.1), plain JSON answers. Memory (§3.2): the Naive agent
    # keeps none (one observation per turn); the CoT agents keep the most recent
    # state–action pairs (envs.textatari.agents.SHORT_TERM_MEMORY, their earlier
    # replies reduced to the action).
    paper_preset=PaperPreset(
        summary=(
            "TextAtari's protocol (§3.1–3.2): the four scenarios, 1,000 steps and five seeds per game; each turn "
            "holds the latest observation with the numbered actions; the agent (Naive, CoT, Reflexion) is your "
            f"chain-of-thought and reflection choice. Naive keeps no memory; CoT and Reflexion keep the last "
            f"{SHORT_TERM_MEMORY} state–action pairs; Reflexion reflects over the whole episode and carries up "
            "to 3 recent plans."
        ),
        episodes=5,
        strategy={
            "num_demonstrations": 0, "show_legal_actions": True, "answer_markers": False, "history_window": 1,
            "keep_reasoning": False, "self_correction": False,
        },
        chain_of_thought_strategy={"history_window": SHORT_TERM_MEMORY + 1},
    ),
    # A column per game category (App. C); the normalised score has no ceiling
    # (100 % is a human tester, not a solved game), so it stays out of the average
    # progress.
    overall=Overall(
        cell=MEAN_OVER_TASKS,
        note=(
            "TextAtari: the arena's normalised score in % (0 = the arena's random policy at the run's step "
            "limit, 100 = the DQN literature's human tester; the paper defines none), per game over every "
            "scenario played, then the mean over the category's games (App. C) with s.e. √(Σ SE²)/n; Mean is "
            "over all games played."
        ),
        columns=tuple((category.name, category.title) for category in CATEGORIES),
        column_of=_category_column,
        summary_label="Mean",
    ),
)
