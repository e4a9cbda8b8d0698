from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Arena (submissions, runs, episodes)"

    def ready(self):
        from django.conf import settings

        from envs import demos

        # Expert demonstration pools are built once and kept in var/demos/.
        demos.set_cache_dir(settings.ARENA_DEMO_CACHE_DIR)
