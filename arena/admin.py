from django.contrib import admin

from arena.models import Episode, Run, Step, StoredImage, Submission, Worker


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "kind", "model", "base_url", "owner", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "model"]
    # The encrypted key is not even shown in ciphertext form.
    exclude = ["api_key_encrypted"]


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
