"""The AdventureGame suite's descriptor; its nine experiments are the tasks of
envs.adventure.specs (`adventure/basic-easy`, …, `adventure/synthetic-hard`)."""

from envs.suite import CHAT, CLEMSCORE as CLEMSCORE_CELL, MEAN_OF_EPISODE_METRIC, Metric, Overall, PaperPreset, Suite

# AdventureGame §4.2 and envs.adventure.metrics. One task is one experiment. Per run the
# figure is the paper's quality of that experiment: successes over all its episodes × 100
# (Tables 2-3 count an aborted episode as a failure too). The suite's clemscore — macro
# quality × macro % played / 100 over the experiments (Table 1) — is on the suite page.
CLEMSCORE = Metric(
    name="clemscore",
    label="clemscore",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC,
    episode_metric="quality",
    digits=1,
    description=(
        "Per experiment: the share of all its episodes solved, in percent — the paper's quality (AdventureGame "
        "Tables 2-3); over the suite, macro quality × macro % played / 100 (§4.2, Table 1)."
    ),
)
QUALITY = Metric(
    name="quality",
    label="Quality",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC,
    episode_metric="quality",
    digits=1,
    description="100 for a successful episode, else 0, over all episodes as the paper's tables count it (AdventureGame §4.2).",
)
PLAYED = Metric(
    name="played",
    label="% played",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC,
    episode_metric="played",
    scale=100.0,
    digits=1,
    description="Episodes not aborted by a reply without '>' or by the 50-turn limit (AdventureGame §4.2).",
)
GOAL_SUCCESS_RATE = Metric(
    name="goal_success_rate",
    label="Goal rate",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC,
    episode_metric="goal_success_rate",
    digits=1,
    description="Goal facts achieved at the end over all goal facts × 100 (AdventureGame §4.2).",
)

SUITE = Suite(
    protocol_version=1,
    engine_packages=("lark",),
    id="adventure",
    title="AdventureGame",
    description="A text adventure: deliver objects around a home in at most 50 turns, replies start with '>'.",
    paper="AdventureGame: Jordan et al., Benchmarking Incremental Learning of Situation and Language Model using a Text-Simulated Situated Environment",
    order=5,
    prompt_protocol=CHAT,
    illegal_actions=(
        "A reply whose first line does not start with '>' aborts the episode, which then counts as "
        "not played (AdventureGame §3.2); a command the game cannot carry out is recorded as illegal "
        "and the game goes on with its feedback."
    ),
    primary_metric=CLEMSCORE,
    secondary_metrics=(QUALITY, PLAYED, GOAL_SUCCESS_RATE),
    renderer="adventure",
    page="clemscore-tables",
    page_summary="clemscore, quality, % played and goal rate (Tables 1–2)",
    # AdventureGame §4.1.5: every experiment has 16 instances, each played once; the
    # conversation is clembench's, replies kept as the model gave them. The turn
    # window and the absence of an action list are the task's own (chat_* ClassVars).
    paper_preset=PaperPreset(
        summary=(
            "clembench's 16 paper instances of each experiment once (§4.1.5), played by clembench's rules, the whole "
            "conversation with the game, replies kept as given, no chain-of-thought request, self-correction or "
            "reflection."
        ),
        episodes=16,
        strategy={
            "chain_of_thought": False, "keep_reasoning": True, "self_correction": False, "num_demonstrations": 0,
            "reflection": "none",
        },
    ),
    # One column: clemscore is already the suite's figure over its experiments.
    overall=Overall(
        cell=CLEMSCORE_CELL,
        note=(
            "AdventureGame: clemscore on 0–100, macro quality × macro % played / 100 over the experiments the "
            "submission played (§4.2, Table 1; clembench's clemscore), quality being the share of all an "
            "experiment's episodes solved; its s.e. is the macro quality's with % played held fixed."
        ),
        columns=(("clemscore", "clemscore"),),
        column_of=lambda task_id, options: "clemscore",
        shared_scale=True,
        played_metric="played",
    ),
)
