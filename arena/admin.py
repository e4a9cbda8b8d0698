from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path

from arena.balrog_results.files import MalformedSubmission, read_archive
from arena.balrog_results.importer import balrog_submission_import
from arena.models import Episode, ModerationAction, Run, Step, StoredImage, Submission, Worker


class BalrogImportForm(forms.Form):
    archive = forms.FileField(
        label="Submission archive",
        help_text="A .tgz of a BALROG leaderboard submission folder (the one holding summary.json), "
        "with its trajectories: each environment's run JSON and CSV files.",
    )


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "kind", "source", "model", "base_url", "owner", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "model"]
    # The encrypted key is not even shown in ciphertext form.
    exclude = ["api_key_encrypted"]
    change_list_template = "admin/arena/submission/change_list.html"

    def get_urls(self):
        upload = path(
            "import-balrog/", self.admin_site.admin_view(self.import_balrog), name="arena_submission_import_balrog"
        )
        return [upload, *super().get_urls()]

    def import_balrog(self, request):
        """Upload a BALROG submission (arena.balrog_results.importer): all of it or,
        with the reason naming the file, nothing."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = BalrogImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["archive"]
            try:
                result = balrog_submission_import(read_archive(upload, label=upload.name))
            except MalformedSubmission as exc:
                form.add_error("archive", f"Nothing imported: {exc}")
            else:
                submission = result.submission
                if result.created and submission.balrog_figures_only:
                    done = f"Imported “{submission.name}”: its reported figures only (no trajectories to replay)."
                elif result.created:
                    done = f"Imported “{submission.name}”: {result.runs} runs, {result.episodes} episodes."
                else:
                    done = f"These files were imported already, as “{submission.name}”: nothing changed."
                messages.success(request, done)
                return redirect(submission)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Import a BALROG leaderboard submission",
            "form": form,
        }
        return TemplateResponse(request, "admin/arena/submission/import_balrog.html", context)


class EpisodeInline(admin.TabularInline):
    model = Episode
    fields = ["index", "seed", "status", "score", "num_steps", "illegal_steps", "end_reason"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["id", "submission", "task", "status", "episodes_done", "episodes_failed", "num_episodes", "created_at"]
    list_filter = ["status", "task"]
    inlines = [EpisodeInline]


@admin.register(Episode)
class EpisodeAdmin(admin.ModelAdmin):
    list_display = ["id", "run", "index", "seed", "status", "score", "num_steps", "worker", "heartbeat_at", "attempts"]
    list_filter = ["status"]
    search_fields = ["worker"]


@admin.register(Step)
class StepAdmin(admin.ModelAdmin):
    list_display = ["id", "episode", "index", "parsed_action", "executed_action", "legal", "reward", "done"]
    list_filter = ["legal", "done"]
    raw_id_fields = ["episode", "observation_image"]


@admin.register(StoredImage)
class StoredImageAdmin(admin.ModelAdmin):
    list_display = ["sha256", "width", "height", "size_bytes", "created_at"]


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ["name", "hostname", "pid", "heartbeat_at", "episodes_in_flight"]


@admin.register(ModerationAction)
class ModerationActionAdmin(admin.ModelAdmin):
    """The audit trail, read-only: decisions are taken on the moderation page
    (arena.web.moderation_views), which keeps the rows' state and the trail together."""

    list_display = ["at", "by", "action", "submission", "run", "reason"]
    list_filter = ["action"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
