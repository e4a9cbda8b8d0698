"""Reads of submissions, their runs and experiments for the model page, the paired
comparison, the experiment page and the run page's queue note."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count
from django.shortcuts import get_object_or_404

from arena.models import Episode, Experiment, Run, Submission, Worker
from arena.moderation import not_found, ranked, taken_down_for
from arena.selectors import older_runs, runs_shown_to
from arena.endpoints.tenancy import submission_endpoint_key
from leaderboard.selectors.lean_runs import lean_runs, with_submissions


def submissions_by_id(ids: list[int]) -> dict[int, Submission]:
    return Submission.objects.in_bulk(ids)


def runs_with_results(submission: Submission) -> list[Run]:
    """The submission's runs that have finished episodes, but those the operators took
    down: what the comparison of two submissions reads, a board as the rankings are."""
    runs = submission.runs.select_related("submission").filter(episodes_done__gt=0)
    return list(runs.exclude(moderation=Run.HIDDEN))


def runs_of_submission(submission: Submission, viewer) -> list[Run]:
    """Every run of the submission (its own and its experiments') `viewer` may read, by task then age."""
    return list(runs_shown_to(viewer, submission.runs.select_related("submission")).order_by("task", "id"))


def older_runs_shown_to(submission: Submission, viewer) -> list[Run]:
    """arena.selectors.older_runs among the runs `viewer` may read: the model page's note counts them."""
    return older_runs(submission, runs=runs_shown_to(viewer, submission.runs.all()))


def ranked_runs_of_tasks(tasks: set[str]) -> list[Run]:
    """Every submission's runs of these tasks that have finished episodes, but those the
    operators hid (arena.moderation). Read lean (leaderboard.selectors.lean_runs.lean_runs):
    a model page that played every task reads every run of the arena, a thousand at 10^5
    episodes, and the ORM's instances were a third of the page's CPU."""
    return with_submissions(lean_runs(ranked(Run.objects.filter(task__in=tasks, episodes_done__gt=0)).order_by("id")))


def every_ranked_run() -> list[Run]:
    """`ranked_runs_of_tasks` of every task, by id: a model page that played every task
    and draws the cost charts (the whole arena's boards) reads them once for both."""
    return with_submissions(lean_runs(ranked(Run.objects.filter(episodes_done__gt=0)).order_by("id")))


def sweeps_with_results(submission: Submission, viewer) -> list[Experiment]:
    """The submission's demonstration sweeps with at least one run that has results and
    that `viewer` may read."""
    with_results = runs_shown_to(viewer, submission.runs.filter(episodes_done__gt=0))
    sweeps = submission.experiments.filter(kind=Experiment.SWEEP, pk__in=with_results.values("experiment_id"))
    return list(sweeps.order_by("id"))


def submissions_sharing_tasks(submission: Submission) -> list[Submission]:
    """Other submissions, not hidden, with finished episodes on a task this one has
    finished episodes on."""
    # Taken-down runs left out on both sides, for everyone: the comparison leaves them out
    # too (runs_with_results), and a choice there only because of one would tell of it.
    tasks = ranked(submission.runs.filter(episodes_done__gt=0)).values("task")
    sharing = ranked(Run.objects.filter(task__in=tasks, episodes_done__gt=0)).values("submission_id")
    others = Submission.objects.filter(pk__in=sharing).exclude(pk=submission.pk).exclude(moderation=Submission.HIDDEN)
    return list(others)


def submission_or_404(pk: int, viewer=None, *, owner_reads: bool = False) -> Submission:
    """A 404 too when moderation took the submission down for `viewer`
    (arena.moderation.taken_down_for, which says what `owner_reads` lets through)."""
    submission = get_object_or_404(Submission, pk=pk)
    if viewer is not None and taken_down_for(viewer, submission, owner_reads=owner_reads):
        raise not_found(Submission)
    return submission


def experiments_of(submission: Submission, viewer) -> list[Experiment]:
    """The submission's experiments, as the model page lists them, each with `shown_runs`:
    how many of its runs `viewer` may read."""
    experiments = list(submission.experiments.all())
    shown = runs_shown_to(viewer, Run.objects.filter(experiment__in=experiments))
    counts = dict(shown.values("experiment_id").annotate(n=Count("id")).values_list("experiment_id", "n"))
    for experiment in experiments:
        experiment.shown_runs = counts.get(experiment.pk, 0)
    return experiments


def experiment_run_count(experiment: Experiment) -> int:
    return experiment.runs.count()


def experiment_or_404(pk: int, viewer=None, *, owner_reads: bool = False) -> Experiment:
    experiment = get_object_or_404(Experiment.objects.select_related("submission"), pk=pk)
    if viewer is not None and taken_down_for(viewer, experiment.submission, owner_reads=owner_reads):
        raise not_found(Experiment)
    return experiment


def runs_of_experiment(experiment: Experiment, viewer) -> list[Run]:
    return list(runs_shown_to(viewer, experiment.runs.select_related("submission")).order_by("id"))


def experiment_runs(experiment: Experiment, viewer) -> list[Run]:
    """The experiment's runs `viewer` may read, in the model's default order."""
    return list(runs_shown_to(viewer, experiment.runs.all()))


def fresh_workers(since: datetime) -> list[Worker]:
    """Workers whose heartbeat is newer than `since`."""
    return list(Worker.objects.filter(heartbeat_at__gte=since))


def episodes_playing_through(submission: Submission) -> int:
    """Running episodes of the submission's tenant of its endpoint (arena.endpoints.tenancy): its
    owner's submissions to the same URL share its turns; nobody else's count."""
    key = submission_endpoint_key(submission)
    if submission.owner_id is None:
        return Episode.objects.filter(status=Episode.RUNNING, run__submission=submission).count()
    # Grouped by URL in Python: a URL with a query is stored encrypted (arena.endpoints.url).
    counts = (
        Episode.objects.filter(status=Episode.RUNNING, run__submission__owner_id=submission.owner_id)
        .values("run__submission_id").annotate(playing=Count("id")).values_list("run__submission_id", "playing")
    )
    by_submission = dict(counts)
    if not by_submission:
        return 0
    shares = Submission.objects.filter(pk__in=by_submission).only("pk", "owner_id", "base_url")
    return sum(by_submission[other.pk] for other in shares if submission_endpoint_key(other) == key)


def figures_only_submissions(mode: str) -> list[Submission]:
    """The visible imported submissions of figures only filed under this mode."""
    found = Submission.objects.filter(kind=Submission.KIND_IMPORTED, balrog_figures_only=True).exclude(
        moderation=Submission.HIDDEN
    )
    return [submission for submission in found.order_by("id") if submission.balrog_reported.get("mode") == mode]
