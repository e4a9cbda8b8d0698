"""The operators' moderation page: hide, flag, verify or restore a submission or a run
with a public reason, suspend or reinstate a user (arena.moderation), and the audit
trail of every decision."""

from django import forms
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import get_user_model
from django.shortcuts import redirect, render

from arena.moderation import ModerationRefused
from arena.services.takedowns import moderate_and_apply
from arena.services.accounts import reinstate_user, suspend_user
from arena.models import Moderated, ModerationAction, Run, Submission

TRAIL_LENGTH = 200


class ModerationForm(forms.Form):
    TARGETS = {"submission": Submission, "run": Run}

    target = forms.ChoiceField(choices=[("submission", "Submission"), ("run", "Run")])
    target_id = forms.IntegerField(min_value=1, label="Its number")
    action = forms.ChoiceField(choices=ModerationAction.ACTION_CHOICES)
    reason = forms.CharField(
        max_length=500, required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Shown publicly, e.g. “the endpoint was misconfigured: every episode was illegal”. "
        "Needed to hide or flag.",
    )

    def clean(self):
        cleaned = super().clean()
        model = self.TARGETS.get(cleaned.get("target"))
        if model is not None and cleaned.get("target_id"):
            found = model.objects.filter(pk=cleaned["target_id"]).first()
            if found is None:
                self.add_error("target_id", f"There is no {cleaned['target']} {cleaned['target_id']}.")
            cleaned["found"] = found
        return cleaned


class SuspensionForm(forms.Form):
    SUSPEND, REINSTATE = "suspend", "reinstate"

    username = forms.CharField(max_length=150, label="User name")
    action = forms.ChoiceField(choices=[(SUSPEND, "suspend"), (REINSTATE, "reinstate")], label="Account action")
    reason = forms.CharField(
        max_length=480, required=False, widget=forms.Textarea(attrs={"rows": 2}), label="Why",
        help_text="Needed to suspend; shown publicly on each submission it hides.",
    )

    def clean_username(self):
        user = get_user_model().objects.filter(username=self.cleaned_data["username"]).first()
        if user is None:
            raise forms.ValidationError("There is no such user.")
        return user


def _suspension(request):
    form = SuspensionForm(request.POST, prefix="account")
    if not form.is_valid():
        return form
    data = form.cleaned_data
    user = data["username"]
    if data["action"] == SuspensionForm.REINSTATE:
        resumed = reinstate_user(user)
        messages.success(
            request, f"{user.username} may sign in again; their hidden submissions stay hidden until restored"
            + (f"; {resumed} episode(s) of those already restored queued again." if resumed else "."),
        )
        return None
    try:
        hidden = suspend_user(user, data["reason"], by=request.user)
    except ModerationRefused as refusal:
        form.add_error(None, str(refusal))
        return form
    messages.success(request, f"{user.username} is suspended; {hidden} submission(s) hidden.")
    return None


@staff_member_required
def moderation_page(request):
    suspension = SuspensionForm(prefix="account")
    if request.method == "POST" and "account-username" in request.POST:
        suspension = _suspension(request)
        if suspension is None:
            return redirect("arena:moderation")
        form = ModerationForm()
    elif request.method == "POST":
        form = ModerationForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                applied = moderate_and_apply(data["found"], data["action"], data["reason"], by=request.user)
            except ModerationRefused as refusal:
                form.add_error("reason" if "reason" in str(refusal) else None, str(refusal))
            else:
                done = f"Done: {applied.record.action} {data['target']} {data['target_id']}."
                messages.success(request, " ".join(filter(None, (done, applied.summary()))))
                return redirect("arena:moderation")
    else:
        initial = {"target": "run" if "run" in request.GET else "submission"}
        given = request.GET.get("run") or request.GET.get("submission") or ""
        if given.isascii() and given.isdigit():
            initial["target_id"] = int(given)
        form = ModerationForm(initial=initial)
    context = {
        "form": form,
        "suspension": suspension,
        "suspended": get_user_model().objects.filter(is_active=False).order_by("username"),
        "submissions": Submission.objects.exclude(moderation=Moderated.MODERATION_NONE).order_by("-pk"),
        "runs": Run.objects.select_related("submission").exclude(moderation=Moderated.MODERATION_NONE).order_by("-pk"),
        "trail": ModerationAction.objects.select_related("submission", "run__submission", "by")[:TRAIL_LENGTH],
    }
    return render(request, "arena/moderation.html", context, status=400 if form.errors or suspension.errors else 200)
