"""The model page (`/submissions/<id>/`): the submission as the public and its owner see
it, with its results among the other submissions' (leaderboard.model_page); its owner
also gets the form that queues an experiment, a write of the arena's
(arena.services.submissions.experiment_create). Taken down, it is a 404 but to staff and
its owner, who reads why under a banner and gets no form (arena.moderation)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize

from arena.balrog_results.exporter import has_balrog_runs
from arena.endpoints.privacy import can_see_endpoint, hide_endpoint_in
from arena.models import Submission
from arena.moderation import TakenDown
from arena.play.pace import endpoint_pace
from arena.selectors import endpoint_speed, owners_takedown_notice, runs_exported_for
from arena.services.queued_cap import QueuedCapReached
from arena.services.submissions import experiment_create
from arena.web.forms import ExperimentForm
from arena.web.throttles import ExperimentThrottle, form_refusal
from leaderboard.model_page import model_page_context
from leaderboard.selectors.submissions import experiment_run_count, experiments_of, submission_or_404


def is_owner(request, submission: Submission) -> bool:
    """Whether the user submitted this model: baselines and imported results belong to
    no one who could change or re-play them."""
    return (
        submission.kind == Submission.KIND_MODEL
        and request.user.is_authenticated
        and submission.owner_id == request.user.pk
    )


def submission_detail(request, pk):
    # Reading a taken-down submission is its owner's right, posting its form is a write: 404.
    submission = submission_or_404(pk, request.user, owner_reads=request.method != "POST")
    takedown = owners_takedown_notice(request.user, submission)
    show_endpoint = can_see_endpoint(request.user, submission)
    if not show_endpoint:  # shown, never saved: the probe's notes may quote the address
        submission.endpoint_probe = hide_endpoint_in(submission.endpoint_probe, submission.base_url)
    can_experiment = is_owner(request, submission) and takedown is None  # a takedown takes no writes
    form = None
    if can_experiment:
        refusal = form_refusal(ExperimentThrottle, request) if request.method == "POST" else None
        form = ExperimentForm(request.POST or None, refusal=refusal, owner=request.user)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            task_id, fmt = data["task"]
            try:
                experiment = experiment_create(
                    submission, kind=data["kind"], task=task_id, format=fmt, num_episodes=data["episodes"],
                    max_demonstrations=data["max_demonstrations"] or 0,
                )
            except QueuedCapReached as exc:  # a submission sent at the same time took the room
                form.add_error("episodes", exc)
            except TakenDown as refusal:  # taken down since the page was read
                form.add_error(None, str(refusal))
            else:
                runs = experiment_run_count(experiment)
                messages.success(request, f"{experiment.get_kind_display()} queued: {runs} run{pluralize(runs)}.")
                return redirect(experiment)
    return render(
        request,
        "arena/submission.html",
        {
            "submission": submission, "experiments": experiments_of(submission, request.user),
            "experiment_form": form, "is_owner": can_experiment, "speed": endpoint_speed(submission, request.user),
            "show_endpoint": show_endpoint,
            "pace": endpoint_pace(submission) if submission.kind == Submission.KIND_MODEL else None,
            "balrog_export": has_balrog_runs(submission, runs_exported_for(request.user, submission)) and takedown is None, "takedown": takedown,
            **model_page_context(submission, request.user),
        },
        status=429 if form is not None and form.refusal else 200,
    )
