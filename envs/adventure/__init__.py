"""The AdventureGame suite: importing this package registers its
descriptor and its nine experiments as tasks (`adventure/basic-easy`, …,
`adventure/synthetic-hard`)."""

from envs.registry import register_suite
from envs.suite import CHAT, MEAN_OF_EPISODE_METRIC, MEAN_OF_EPISODE_METRIC_OVER, POOL_EPISODES, Metric, Overall, PaperPreset, Suite

# AdventureGame §4.2 and envs.adventure.metrics. One task is one experiment, so its
# clemscore is quality × % played / 100 of that experiment, which is the mean quality
# over all its episodes: quality is 100 for a success and 0 otherwise, and an episode
# not played is never a success.
CLEMSCORE = Metric(
    name="clemscore",
    label="clemscore",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC,
    episode_metric="quality",
    digits=1,
    description="Quality × % played / 100 (AdventureGame §4.2): the share of episodes solved, in percent.",
)
QUALITY = Metric(
    name="quality",
    label="Quality",
    higher_is_better=True,
    fold=MEAN_OF_EPISODE_METRIC_OVER,
    episode_metric="quality",
    over="played",
    digits=1,
    description="100 for a successful episode, else 0, averaged over the played episodes (AdventureGame §4.2).",
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

SUITE = register_suite(
    Suite(
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
                "Each experiment's 16 instances once (§4.1.5), the whole conversation with the game, replies kept as "
                "given, no chain-of-thought request, self-correction or reflection."
            ),
            episodes=16,
            strategy={
                "chain_of_thought": False, "keep_reasoning": True, "self_correction": False, "num_demonstrations": 0,
                "reflection": "none",
            },
        ),
        # One column: clemscore is already the suite's figure over its experiments.
        overall=Overall(
            cell=POOL_EPISODES,
            note=(
                "AdventureGame: clemscore, quality × % played / 100 on 0–100 (§4.2), over the pooled episodes of "
                "the experiments the submission played."
            ),
            columns=(("clemscore", "clemscore"),),
            column_of=lambda task_id, options: "clemscore",
            shared_scale=True,
        ),
    )
)

from envs.adventure import tasks  # noqa: E402, F401
