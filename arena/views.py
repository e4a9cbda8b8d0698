from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from rest_framework.authtoken.models import Token

from arena import services
from arena.forms import ExperimentForm, SignUpForm, SubmissionForm
from arena.models import Submission, Worker

WORKER_FRESH_SECONDS = 60
SUBMISSION_FIELDS = (
    "name", "provider", "base_url", "model", "temperature", "max_tokens", "num_demonstrations",
    "show_legal_actions", "chain_of_thought", "context_window", "history_window", "keep_reasoning",
    "self_correction", "reflection", "price_input_per_mtok", "price_output_per_mtok",
    "budget_tokens_per_run", "budget_usd_per_run",
)


def signup(request):
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user)
            messages.success(request, "Welcome! You can now submit a model.")
            return redirect("arena:submit")
    else:
        form = SignUpForm()
    return render(request, "arena/signup.html", {"form": form})


@login_required
def submit(request):
    if request.method == "POST":
        form = SubmissionForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            fields = {key: data[key] for key in SUBMISSION_FIELDS}
            runs = services.run_specs(data["tasks"], data["episodes_per_task"])
            submission = services.submission_create(
                owner=request.user, fields=fields, api_key=data["api_key"], runs=runs
            )
            if submission.new_agent_secret:
                # Shown in this response only: never stored in plain text, never in a cookie.
                return render(
                    request, "arena/agent_secret.html", {"submission": submission, "secret": submission.new_agent_secret}
                )
            messages.success(request, f"Submission “{submission.name}” created; {len(runs)} run(s) queued.")
            return redirect(submission)
    else:
        form = SubmissionForm()
    return render(request, "arena/submit.html", {"form": form})


def submission_detail(request, pk):
    submission = get_object_or_404(Submission, pk=pk)
    can_experiment = not submission.is_baseline and request.user.is_authenticated and submission.owner_id == request.user.pk
    form = None
    if can_experiment:
        form = ExperimentForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            task_id, fmt = data["task"]
            experiment = services.experiment_create(
                submission, kind=data["kind"], task=task_id, format=fmt, num_episodes=data["episodes"],
                max_demonstrations=data["max_demonstrations"] or 0,
            )
            messages.success(request, f"{experiment.get_kind_display()} queued: {experiment.runs.count()} run(s).")
            return redirect(experiment)
    runs = submission.runs.filter(experiment__isnull=True).order_by("task", "id")
    return render(
        request,
        "arena/submission.html",
        {"submission": submission, "runs": runs, "experiments": submission.experiments.all(), "experiment_form": form},
    )


@login_required
def my_submissions(request):
    submissions = Submission.objects.filter(owner=request.user).prefetch_related("runs")
    token, _ = Token.objects.get_or_create(user=request.user)
    return render(request, "arena/my_submissions.html", {"submissions": submissions, "api_token": token.key})


def healthz(request):
    """Database and worker status, for operators and load balancers."""
    body = {"database": "ok", "workers": []}
    status = 200
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        now = timezone.now()
        for worker in Worker.objects.order_by("name"):
            age = (now - worker.heartbeat_at).total_seconds()
            body["workers"].append(
                {
                    "name": worker.name,
                    "alive": age < WORKER_FRESH_SECONDS,
                    "seconds_since_heartbeat": round(age, 1),
                    "episodes_in_flight": worker.episodes_in_flight,
                }
            )
    except Exception as exc:
        body["database"] = f"error: {type(exc).__name__}"
        status = 503
    body["worker"] = "ok" if any(w["alive"] for w in body["workers"]) else "no live worker"
    return JsonResponse(body, status=status)
