import math
import tempfile
from functools import partial

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.template.defaultfilters import pluralize
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from arena.services.submissions import submission_create
from arena.services import run_actions
from arena.balrog_results.exporter import balrog_submission_export, has_balrog_runs
from arena.endpoints.crypto import decrypt_secret, encrypt_secret
from arena.web.forms import EndpointForm, LoginForm, SignUpForm
from arena.web.submission_form import SubmissionForm
from arena.models import Run, Submission, Worker
from arena.moderation import TakenDown, not_found, taken_down_for
from arena.selectors import runs_exported_for, taken_down_text
from arena.services.queued_cap import QueuedCapReached
from arena.web import preview_probe
from arena.web.preview import submission_preview
from arena.web.throttles import (
    SIGNUPS, EndpointProbeThrottle, SubmissionThrottle, download_limited, form_refusal,
)
from arena.web.validation import probe_submission_endpoint

WORKER_FRESH_SECONDS = 60
SUBMISSION_FIELDS = (
    "name", "provider", "base_url", "model", "temperature", "max_tokens", "reasoning_effort", "thinking_budget_tokens",
    "num_demonstrations",
    "show_legal_actions", "chain_of_thought", "answer_markers", "lenient_parsing", "context_window", "history_window",
    "keep_reasoning", "self_correction", "reflection", "price_input_per_mtok", "price_output_per_mtok",
    "price_cached_input_per_mtok", "head_to_head",
    "budget_tokens_per_run", "budget_usd_per_run", "max_concurrent_requests",
    "model_organisation", "model_release_date", "model_weights", "model_url",
)


def signup(request):
    """Accounts per client address are limited (arena.web.throttles.SIGNUPS): fresh accounts
    would otherwise get around every per-user limit. Only valid forms count, each before
    its account is made, so parallel sign-ups cannot all pass."""
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if form.is_valid():
            wait = SIGNUPS.take(request)
            if wait is not None:
                response = render(
                    request, "arena/signup.html", {"form": SignUpForm(), "refusal": SIGNUPS.refusal(wait)}, status=429
                )
                response["Retry-After"] = str(math.ceil(wait))
                return response
            user = form.save()
            login(request, user)
            messages.success(request, "Welcome! You can now submit a model.")
            return redirect("arena:submit")
    else:
        form = SignUpForm()
    return render(request, "arena/signup.html", {"form": form})


class LoginView(auth_views.LoginView):
    """Django's sign-in page; while the lock-out (arena.web.login_lockout) refuses this
    account from this address, it answers 429 with Retry-After instead of 200."""

    authentication_form = LoginForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        refusal = getattr(self.request, "login_refusal", None)
        if refusal is not None:
            response.status_code = 429
            response["Retry-After"] = str(math.ceil(refusal.wait))
        return response


# A password field is never filled in again, so the key typed before "Preview" would be
# missing from the "Create" that follows: it is kept in the session, encrypted like a
# stored key, for that endpoint only, until the submission is created.
PREVIEW_KEY_SESSION = "submission_preview_key"


@login_required
def submit(request):
    """The submission form. "Preview" (a submit button named `preview`) validates
    everything, probes the endpoint and shows the runs it would queue, creating nothing;
    "Create" sends back the preview's fingerprint, and a submission whose runs are not
    the previewed ones is previewed again instead of created. A POST without a
    fingerprint (no preview seen, as through the API) creates at once."""
    if request.method != "POST":
        return render(request, "arena/submit.html", {"form": SubmissionForm()})
    previewing = "preview" in request.POST
    # A preview calls the submitter's endpoint like "Test endpoint" does.
    throttle = EndpointProbeThrottle if previewing else SubmissionThrottle
    # "Create" after a preview uses the preview's probe of the same endpoint.
    known_probe = None if previewing else partial(preview_probe.recall, request.session)
    form = SubmissionForm(
        _with_kept_key(request), refusal=form_refusal(throttle, request), owner=request.user, known_probe=known_probe,
    )
    valid = form.is_valid()
    preview = None
    if form.runs is not None and form.probe is not None:
        # The probe runs only once everything else is valid: what it found wrong (an
        # unknown model, refused images) is shown with the runs it concerns.
        preview = submission_preview(form.runs, fields=form.cleaned_data, probe=form.probe)
        _keep_key(request, form.cleaned_data)
        preview_probe.remember(request.session, form.cleaned_data, form.probe)
    if valid:
        previewed = request.POST.get("previewed")
        if not previewing and (not previewed or previewed == preview.fingerprint):
            try:
                created = _create_submission(request, form)
            except QueuedCapReached as exc:  # a submission sent at the same time took the room
                form.add_error("episodes_per_task", exc)
            else:
                request.session.pop(PREVIEW_KEY_SESSION, None)
                preview_probe.forget(request.session)
                return created
        if not previewing:
            messages.warning(request, "The runs changed since the preview: check them, then create the submission.")
    context = {"form": form, "preview": preview, "probe": form.probe, "key_kept": PREVIEW_KEY_SESSION in request.session}
    return render(request, "arena/submit.html", context, status=429 if form.refusal else 200)


def _with_kept_key(request):
    data = request.POST
    kept = request.session.get(PREVIEW_KEY_SESSION)
    if kept and not data.get("api_key") and data.get("base_url", "").strip().rstrip("/") == _kept_url(kept):
        data = data.copy()
        data["api_key"] = decrypt_secret(kept["key"])
    return data


def _kept_url(kept: dict) -> str | None:
    """The base URL the kept key goes with: encrypted in the session store like the key,
    since its query string may hold a credential (arena.endpoints.url)."""
    try:
        return decrypt_secret(kept.get("base_url", "")) or None
    except ValueError:  # kept before it was encrypted, or under another key: ask again
        return None


def _keep_key(request, cleaned: dict) -> None:
    if cleaned.get("api_key") and cleaned.get("base_url"):
        request.session[PREVIEW_KEY_SESSION] = {
            "base_url": encrypt_secret(cleaned["base_url"]), "key": encrypt_secret(cleaned["api_key"]),
        }
    else:
        request.session.pop(PREVIEW_KEY_SESSION, None)


def _create_submission(request, form: SubmissionForm):
    data = form.cleaned_data
    fields = {key: data[key] for key in SUBMISSION_FIELDS}
    fields["endpoint_probe"] = form.probe.to_json() if form.probe else None
    submission = submission_create(owner=request.user, fields=fields, api_key=data["api_key"], runs=form.runs)
    if submission.new_agent_secret:
        # Shown in this response only: never stored in plain text, never in a cookie.
        return render(request, "arena/agent_secret.html", {"submission": submission, "secret": submission.new_agent_secret})
    runs = len(form.runs)
    messages.success(request, f"Submission “{submission.name}” created; {runs} run{pluralize(runs)} queued.")
    return redirect(submission)


# An export is built in memory up to this size, then in a temporary file.
EXPORT_SPOOL_BYTES = 32 * 1024 * 1024


@download_limited
def submission_balrog_export(request, pk):
    """The submission's BALROG runs as a .tgz in the layout of BALROG's leaderboard
    submissions (arena.balrog_results.exporter): no endpoint address, no key."""
    submission = get_object_or_404(Submission, pk=pk)
    if taken_down_for(request.user, submission):
        raise not_found(Submission)
    runs = runs_exported_for(request.user, submission)
    if not has_balrog_runs(submission, runs):
        raise Http404("this submission has no finished episodes of BALROG's environments")
    archive = tempfile.SpooledTemporaryFile(max_size=EXPORT_SPOOL_BYTES)
    balrog_submission_export(submission, archive, runs)
    archive.seek(0)
    return FileResponse(
        archive, as_attachment=True, filename=f"arena-submission-{submission.pk}-balrog.tgz",
        content_type="application/gzip",
    )


@never_cache  # the page shows the user's API token: no browser or proxy may keep a copy
@login_required
def my_submissions(request):
    submissions = list(Submission.objects.filter(owner=request.user).prefetch_related("runs"))
    token, _ = Token.objects.get_or_create(user=request.user)
    return render(request, "arena/my_submissions.html", {
        "submissions": submissions, "api_token": token.key, "taken_down": taken_down_text(submissions),
    })


def healthz(request):
    """Database and worker status, for operators and load balancers. Public, so workers
    are not named: their names carry the host name and process id."""
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


def _own_submission(request, pk) -> Submission:
    submission = get_object_or_404(Submission, pk=pk, kind=Submission.KIND_MODEL)
    if taken_down_for(request.user, submission):  # the owner included: nothing to change nor replay
        raise not_found(Submission)
    if submission.owner_id != request.user.pk:
        raise PermissionDenied("Only the submitter can change this submission.")
    return submission


@login_required
@require_POST
def run_requeue(request, pk):
    run = get_object_or_404(Run.objects.select_related("submission"), pk=pk)
    _own_submission(request, run.submission_id)
    if taken_down_for(request.user, run.submission, run):
        raise not_found(Run)
    try:
        count = run_actions.run_requeue_failed(run)
    except TakenDown as refusal:  # taken down since it was read
        messages.error(request, str(refusal))
        return redirect("arena:my_submissions")
    if count:
        messages.success(request, f"{count} failed episode{'s' if count != 1 else ''} queued again; each resumes after its last stored step.")
    else:
        messages.info(request, "This run has no failed episodes.")
    return redirect(run)


@login_required
@require_POST
def run_cancel(request, pk):
    run = get_object_or_404(Run.objects.select_related("submission"), pk=pk)
    _own_submission(request, run.submission_id)
    if taken_down_for(request.user, run.submission, run):
        raise not_found(Run)
    stopped = run_actions.run_cancel(run)
    messages.success(request, f"Run cancelled; {stopped} unfinished episode{'s' if stopped != 1 else ''} stopped. Played steps are kept.")
    return redirect(run)


@login_required
@require_POST
def submission_cancel(request, pk):
    submission = _own_submission(request, pk)
    stopped = run_actions.submission_cancel(submission)
    messages.success(request, f"Submission cancelled; {stopped} unfinished episode{'s' if stopped != 1 else ''} stopped.")
    return redirect(submission)


@login_required
@require_POST
def submission_probe(request, pk):
    """The submission page's "Test endpoint" button: probe again and store the result."""
    submission = _own_submission(request, pk)
    refusal = form_refusal(EndpointProbeThrottle, request)
    if refusal:
        messages.error(request, refusal)
        return redirect(submission)
    result = probe_submission_endpoint(
        provider=submission.provider, base_url=submission.base_url, api_key=submission.get_api_key(),
        model=submission.model, stated_context_window=submission.context_window,
    )
    run_actions.submission_record_probe(submission, result.to_json())
    if result.field_errors:
        messages.error(request, "The endpoint test failed: " + " ".join(result.field_errors.values()))
    else:
        messages.success(request, "The endpoint answered; what it can do is shown below.")
    return redirect(submission)


@login_required
def submission_endpoint(request, pk):
    """Fix a submission's endpoint (base URL, model, key) after its runs failed; the
    history of changes is kept and shown."""
    submission = _own_submission(request, pk)
    refusal = form_refusal(EndpointProbeThrottle, request) if request.method == "POST" else None
    if refusal:
        messages.error(request, refusal)  # nothing is probed or changed
    form = EndpointForm(None if refusal else (request.POST or None), submission=submission)
    if request.method == "POST" and not refusal and form.is_valid():
        data = form.cleaned_data
        edit = run_actions.submission_update_endpoint(
            submission, changed_by=request.user,
            changes={"base_url": data["base_url"], "model": data["model"]},
            api_key=data["api_key"] or None, probe=form.probe.to_json(),
        )
        what = ", ".join(edit.changes) if edit else "nothing"
        messages.success(request, f"Endpoint checked; changed: {what}. Re-queue failed episodes from their run pages.")
        return redirect(submission)
    return render(request, "arena/endpoint.html", {"submission": submission, "form": form, "edits": submission.edits.all()})
