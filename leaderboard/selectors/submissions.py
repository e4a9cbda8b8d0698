"""Reads of submissions, their runs and experiments for the model page, the paired
comparison, the experiment page and the run page's queue note."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count
from django.http import Http404
from django.shortcuts import get_object_or_404

from arena.models import Episode, Experiment, Run, Submission, Worker
from arena.moderation import ranked, taken_down_for
from arena.endpoints.tenancy import submission_endpoint_key
from leaderboard.selectors.lean_runs import lean_runs, with_submissions


def submissions_by_id(ids: list[int]) -> dict[int, Submission]:
    return Submission.objects.in_bulk(ids)


def runs_with_results(submission: Submission) -> list[Run]:
    """The submission's runs that have finished episodes, but those the operators took
    down: what the comparison of two submissions reads, a board as the rankings are."""
    runs = submission.runs.select_related("submission").filter(episodes_done__gt=0)
    return list(runs.exclude(moderation=Run.HIDDEN))


def runs_of_submission(submission: Submission) -> list[Run]:
    """Every run of the submission (its own and its experiments'), by task then age."""
    return list(submission.runs.select_related("submission").order_by("task", "id"))


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


def sweeps_with_results(submission: Submission) -> list[Experiment]:
    """The submission's demonstration sweeps with at least one run that has results."""
    sweeps = submission.experiments.filter(kind=Experiment.SWEEP, runs__episodes_done__gt=0)
    return list(sweeps.distinct().order_by("id"))


def submissions_sharing_tasks(submission: Submission) -> list[Submission]:
    """Other submissions, not hidden, with finished episodes on a task this one has
    finished episodes on."""
    tasks = submission.runs.filter(episodes_done__gt=0).values("task")
    others = (
        Submission.objects.filter(runs__task__in=tasks, runs__episodes_done__gt=0)
        .exclude(pk=submission.pk).exclude(moderation=Submission.HIDDEN)
    )
    return list(others.distinct())


def submission_or_404(pk: int, viewer=None, *, owner_reads: bool = False) -> Submission:
    """A 404 too when moderation took the submission down for `viewer`
    (arena.moderation.taken_down_for, which says what `owner_reads` lets through)."""
    submission = get_object_or_404(Submission, pk=pk)
    if viewer is not None and taken_down_for(viewer, submission, owner_reads=owner_reads):
        raise Http404("no such submission")
    return submission


def experiments_of(submission: Submission) -> list[Experiment]:
    """The submission's experiments, as the model page lists them."""
    return list(submission.experiments.all())


def experiment_run_count(experiment: Experiment) -> int:
    return experiment.runs.count()


def experiment_or_404(pk: int, viewer=None, *, owner_reads: bool = False) -> Experiment:
    experiment = get_object_or_404(Experiment.objects.select_related("submission"), pk=pk)
    if viewer is not None and taken_down_for(viewer, experiment.submission, owner_reads=owner_reads):
        raise Http404("no such experiment")
    return experiment


def runs_of_experiment(experiment: Experiment) -> list[Run]:
    return list(experiment.runs.select_related("submission").order_by("id"))


def experiment_runs(experiment: Experiment) -> list[Run]:
    """The experiment's runs in the model's default order."""
    return list(experiment.runs.all())


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
