"""The LMAct suite's descriptor; its tasks are the rows of envs.lmact.specs."""

from envs.suite import BEST_RUN, FROZEN_PREFIX, SUMMED_REWARD, Overall, PaperPreset, Suite

SUITE = Suite(
    protocol_version=1,
    engine_packages=("ale-py", "chess", "dm-control", "mujoco", "numpy", "pillow"),
    id="lmact",
    title="LMAct",
    description="In-context imitation of expert demonstrations in six games and control tasks.",
    paper="LMAct: A Benchmark for In-Context Imitation Learning with Long Multimodal Demonstrations",
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
    # What the paper fixes for every model and task: 100 evaluation episodes (§2.4),
    # one demonstration episode, the setting of its ablations (§3, App. C.4), and the
    # legal actions listed. The number of demonstrations is what its figures vary:
    # that sweep is an experiment (arena.services.submissions.experiment_create), not a preset.
    paper_preset=PaperPreset(
        summary=(
            "100 episodes per task and format (§2.4), one demonstration episode, legal actions shown and the "
            "action alone, as in the paper's per-model ablations (§3, App. C.4). The sweep over 0–512 "
            "demonstrations is an experiment you start from the submission's page."
        ),
        episodes=100,
        strategy={
            "num_demonstrations": 1, "show_legal_actions": True, "chain_of_thought": False,
            "answer_markers": False, "self_correction": False,
        },
    ),
    # LMAct reports no figure across its tasks: their scores are on scales of their
    # own (a win is 1 in tic-tac-toe, a cheetah's reward runs to hundreds), so each
    # task keeps its column, holding the best run as Fig. 2 does.
    overall=Overall(
        cell=BEST_RUN,
        note=(
            "LMAct: per task, the submission's best run (format, demonstrations, prompt settings) by the mean "
            "summed reward ± s.e., as Fig. 2 reports it; each task on its own scale, never averaged."
        ),
    ),
)
