"""The LMAct suite (lmact.txt): importing this package registers its descriptor and
its tasks."""

from envs.registry import register_suite
from envs.suite import FROZEN_PREFIX, SUMMED_REWARD, Suite

SUITE = register_suite(
    Suite(
        id="lmact",
        title="LMAct",
        description="In-context imitation of expert demonstrations in six games and control tasks.",
        paper="LMAct (lmact.txt)",
        order=1,
        prompt_protocol=FROZEN_PREFIX,
        illegal_actions=(
            "A completion that is not a legal action is replaced by a uniformly random legal action and "
            "counted as illegal (LMAct §2.4); in the crossword a malformed or wrong-length word ends the "
            "episode with -1."
        ),
        # LMAct §2.4: the score of an episode is its cumulative reward, and the paper
        # reports the average over the evaluation episodes.
        primary_metric=SUMMED_REWARD,
        # The protocol has no reflection between episodes (LMAct §2.3).
        reflection=False,
        experiments=True,
        demonstrations=True,
        renderer="text",
        page="best-score-per-task",
        page_summary="best score per model and task (Fig. 2)",
    )
)

from envs.lmact import chess, crossword, gridworld, tictactoe  # noqa: E402, F401
from envs.lmact import cheetah, phoenix  # noqa: E402, F401
