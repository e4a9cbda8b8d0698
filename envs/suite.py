"""What a suite is, declared once next to its tasks (docs/design.md §2: "suite").

Each suite package (`envs/lmact`, `envs/infogather`, `envs/adventure`, …) declares one
`Suite` as SUITE, beside its spec table (`specs.py`, envs.spec); envs.registry reads
both. The arena and the
leaderboard ask the descriptor — how the suite is prompted, which metric ranks its
leaderboards, which replay renderer draws its observations — instead of testing task
ids. Plain Python, no Django: the read side turns a `Metric` into numbers from a
run's aggregates (leaderboard.selectors.ranking.metric_value).
"""

from __future__ import annotations

import dataclasses

# -- how a suite is prompted ---------------------------------------------------------
# LMAct's protocol (LMAct §2.3): a preamble and the expert demonstrations form a prefix
# frozen for the whole episode, followed by the growing trajectory; one completion per
# step (arena.strategies.lmact).
FROZEN_PREFIX = "frozen-prefix"
# A conversation: the suite's instructions, then one user turn per observation and one
# assistant turn per reply, in a history window (arena.strategies.chat).
CHAT = "chat"
# BALROG §3: the instruction prompt is the first user message, then the last N
# observations ("Observation:") with the replies that followed them; the latest turn is
# "Current Observation:" with the short-term context, and the agent's answer convention
# (naive, chain of thought, robust markers) closes it (arena.strategies.history).
OBSERVATION_HISTORY = "observation-history"
PROMPT_PROTOCOLS = (FROZEN_PREFIX, CHAT, OBSERVATION_HISTORY)

# -- how a run folds a metric over its finished episodes ------------------------------
# The mean over episodes of the episode's summed reward (the run's score_mean/stderr).
MEAN_SUMMED_REWARD = "mean summed reward"
# The mean of one per-episode metric (`Task.episode_metrics`) over the episodes that
# report a value; an episode that reports None is counted as missing, not averaged in.
MEAN_OF_EPISODE_METRIC = "mean of an episode metric"
# The mean of a per-episode metric over the episodes where another per-episode metric
# (`over`) is true. Only for metrics that are 0 on every other episode, so that the
# run's sums over all episodes are the sums over the selected ones (AdventureGame's
# quality is 0 for an episode that was not played).
MEAN_OF_EPISODE_METRIC_OVER = "mean of an episode metric over the episodes where another holds"
FOLDS = (MEAN_SUMMED_REWARD, MEAN_OF_EPISODE_METRIC, MEAN_OF_EPISODE_METRIC_OVER)


@dataclasses.dataclass(frozen=True)
class Metric:
    """One number of a run on a suite's leaderboard, with how it is computed.

    Ranking by a metric: runs are ordered by their share of episodes without a value
    (fewest first: an episode that never got a value is worse than any value), then by
    the mean in the metric's direction.
    """

    name: str  # its key in the API, e.g. "steps_to_sufficient_information"
    label: str  # its column header, e.g. "Steps to sufficient information"
    higher_is_better: bool
    fold: str  # one of FOLDS
    # The per-episode metric folded (a key of Task.episode_metrics); empty for the
    # summed reward.
    episode_metric: str = ""
    # For MEAN_OF_EPISODE_METRIC_OVER: the per-episode boolean selecting the episodes.
    over: str = ""
    # Shown = scale × folded mean: 100 turns a 0/1 episode value into a percentage.
    scale: float = 1.0
    unit: str = ""
    digits: int = 2
    # One sentence for the page: what the number is, citing the paper.
    description: str = ""
    # For a metric an episode may lack (it reports None): what that means, in words,
    # e.g. "never reached sufficient information". Shown with the ranking rule.
    missing_means: str = ""

    def __post_init__(self):
        if self.fold not in FOLDS:
            raise ValueError(f"metric {self.name}: unknown fold {self.fold!r}; choose one of {', '.join(FOLDS)}")
        if (self.fold == MEAN_SUMMED_REWARD) == bool(self.episode_metric):
            raise ValueError(f"metric {self.name}: the summed reward has no episode metric; every other fold needs one")
        if (self.fold == MEAN_OF_EPISODE_METRIC_OVER) != bool(self.over):
            raise ValueError(f"metric {self.name}: `over` goes with the fold {MEAN_OF_EPISODE_METRIC_OVER!r} only")

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def is_summed_reward(self) -> bool:
        return self.fold == MEAN_SUMMED_REWARD


# The run settings a paper preset may fix: the fields of a run's variant that say how the
# model is asked (arena.variant.Variant), besides the observation format and the task's
# own options.
PRESET_STRATEGY_FIELDS = (
    "num_demonstrations", "show_legal_actions", "chain_of_thought", "answer_markers", "history_window",
    "keep_reasoning", "self_correction", "reflection", "temperature", "max_tokens", "lenient_parsing",
)


@dataclasses.dataclass(frozen=True)
class PaperPreset:
    """How the suite's paper evaluated a model, as far as one submission can reproduce
    it: the prompt settings the paper fixes and the episodes it played per run. A
    researcher who picks the preset gets the paper's protocol (and numbers comparable
    with every other submission that picked it) without knowing every knob; how far
    they can stand beside the paper's own numbers is each suite's fidelity page
    (docs/fidelity/<suite>.md), element by element. What the paper
    varied across runs stays with the task (`Task.variant_options`, swept) or is an
    experiment of its own (LMAct's demonstration sweep)."""

    # One line for the form: what the preset plays and where each number comes from.
    summary: str
    # Episodes per run, unless a task says otherwise (`Task.paper_episodes`).
    episodes: int
    # Values for PRESET_STRATEGY_FIELDS; a field left out keeps the submission's value.
    strategy: dict = dataclasses.field(default_factory=dict)
    # Values that replace `strategy`'s for a submission that reasons before answering,
    # where the paper's agents differ by more than the request (TextAtari §3.2: only the
    # chain-of-thought agents keep a short-term memory).
    chain_of_thought_strategy: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        unknown = sorted((set(self.strategy) | set(self.chain_of_thought_strategy)) - set(PRESET_STRATEGY_FIELDS))
        if unknown:
            raise ValueError(f"a paper preset fixes run settings only; unknown: {', '.join(unknown)}")
        if self.episodes < 1:
            raise ValueError("a paper preset plays at least one episode per run")

    def episodes_of(self, task_cls) -> int:
        """Episodes per run of this task under the preset."""
        return task_cls.paper_episodes or self.episodes


# -- how the overall leaderboard shows a suite ---------------------------------------
# How one cell of the overall leaderboard (one submission, one column of a suite) is
# made from the submission's runs whose tasks fall in that column:
# the primary metric over the runs' pooled episodes (BALROG §3 pools a task's and an
# environment's episodes);
POOL_EPISODES = "pooled episodes"
# each task's pooled figure, then the mean of those with the standard error
# √(Σ SE²) / n (TextAtari's means over games);
MEAN_OVER_TASKS = "mean over tasks"
# the run that ranks first by the primary metric, as LMAct's Fig. 2 keeps the best
# setting per model and task.
BEST_RUN = "best run"
# clembench's clemscore (clemcore's clemeval; AdventureGame §4.2, Table 1): per task
# the mean of the primary metric (quality) and the share of episodes played
# (`Overall.played_metric`, 0/1 per episode); their macro means over the tasks; the cell
# is macro quality × macro % played / 100.
CLEMSCORE = "clemscore"
OVERALL_CELLS = (POOL_EPISODES, MEAN_OVER_TASKS, BEST_RUN, CLEMSCORE)


@dataclasses.dataclass(frozen=True)
class Overall:
    """What a suite contributes to the overall leaderboard: its columns, how a cell is
    made, and whether its figure is on the 0–100 scale the average progress shares."""

    cell: str  # one of OVERALL_CELLS
    # What a cell is and on which scale, in one sentence citing the paper (shown on the
    # page under the table).
    note: str
    # The columns, in order: (key, title). Empty: one column per task of the suite.
    columns: tuple[tuple[str, str], ...] = ()
    # The column a run of (task id, options) counts in; None: the task's own column
    # (key = the task id). A run whose column is unknown is left out.
    column_of: object = None
    # A column of its own with the suite's figure (the mean of its columns, or of its
    # tasks for MEAN_OVER_TASKS, with the √(Σ SE²)/n rule); its header. Empty: none.
    summary_label: str = ""
    # The standard error of pooled episodes: BALROG's population SD / √N, or else the
    # sample SD / √N the arena's task pages show.
    population_stderr: bool = False
    # The suite's figure is on a 0–100 scale where 100 is the task solved and higher is
    # better; such suites make the average progress column (BALROG's way).
    shared_scale: bool = False
    # For the CLEMSCORE cell: the per-episode 0/1 metric saying the episode was played.
    played_metric: str = ""

    def __post_init__(self):
        if self.cell not in OVERALL_CELLS:
            raise ValueError(f"unknown overall cell {self.cell!r}; choose one of {', '.join(OVERALL_CELLS)}")
        if (self.cell == CLEMSCORE) != bool(self.played_metric):
            raise ValueError("the clemscore cell, and it alone, needs the played metric")
        if self.columns and self.column_of is None:
            raise ValueError("named overall columns need a column_of to place runs in them")


SUMMED_REWARD = Metric(
    name="score",
    label="Score",
    higher_is_better=True,
    fold=MEAN_SUMMED_REWARD,
    digits=3,
    description="The summed reward of an episode, averaged over the run's episodes.",
)


@dataclasses.dataclass(frozen=True)
class Suite:
    """One benchmark: its identity, protocol and how its leaderboards are scored."""

    id: str  # "lmact"; the part of its task ids before the "/"
    title: str  # "LMAct"
    description: str  # one line, for the front page
    paper: str  # where the protocol comes from, e.g. "LMAct: A Benchmark for In-Context Imitation Learning with …"
    # Place among the suites: pages list them in this order, and the baselines of
    # earlier suites are queued first.
    order: int
    prompt_protocol: str  # FROZEN_PREFIX or CHAT
    # What happens to a completion that is not a legal action, in words; the task's
    # `step` enforces it.
    illegal_actions: str
    primary_metric: Metric  # ranks every task leaderboard of the suite
    secondary_metrics: tuple[Metric, ...] = ()
    # Reflexion (a reflection after each episode, given at the start of the next) may
    # be chosen for the suite's runs.
    reflection: bool = True
    # LMAct's experiments (demonstration sweep, legal-actions × chain-of-thought
    # ablation, replay control) are defined for its tasks.
    experiments: bool = False
    # Expert demonstration pools are built for its tasks (envs.demos).
    demonstrations: bool = False
    # The replay player's renderer for text observations (static/js/renderers*.js);
    # a task may name its own (Task.renderer), and image formats use "image".
    renderer: str = "text"
    # The suite's own page at /suites/<id>/: which page it is (leaderboard.web.suite_views) and
    # what it shows, in a few words. Empty: the suite has none.
    page: str = ""
    page_summary: str = ""
    # "As in the paper" on the submission form and in the API (None: the suite offers
    # no preset, and its runs play the submission's own settings).
    paper_preset: PaperPreset | None = None
    # Its part of the overall leaderboard (leaderboard.boards.overall); None: not shown there.
    overall: Overall | None = None
    # The harness version (envs.harness): raised by hand whenever the suite's protocol
    # or prompt templates change what a run measures, so older runs are marked.
    protocol_version: int = 1
    # The distributions whose versions make its games what they are (digested into the
    # harness version with the protocol version).
    engine_packages: tuple[str, ...] = ()

    def __post_init__(self):
        if self.prompt_protocol not in PROMPT_PROTOCOLS:
            raise ValueError(f"suite {self.id}: unknown prompt protocol {self.prompt_protocol!r}")
        if "/" in self.id:
            raise ValueError(f"suite {self.id}: a suite id has no '/'")

    @property
    def metrics(self) -> tuple[Metric, ...]:
        """The leaderboard's columns: the primary metric first."""
        return (self.primary_metric, *self.secondary_metrics)

    @property
    def frozen_prefix(self) -> bool:
        return self.prompt_protocol == FROZEN_PREFIX
