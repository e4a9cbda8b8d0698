from django.apps import AppConfig
from django.db.models.signals import post_migrate


def create_cache_table(using="default", **kwargs):
    """The embedded mode keeps throttle counters in a database cache table; creating it
    after every `migrate` means `make serve`, tests and any deployment have it."""
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=0)


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Arena (submissions, runs, episodes)"

    def ready(self):
        from django.conf import settings

        from arena import page_generation
        from envs import demos
        from envs.core import Task

        # Task classes reach page templates as values, and Django's templates call any
        # callable they meet (a task class called is a new game): telling them not to
        # is the Django side's business, not the games'.
        Task.do_not_call_in_templates = True

        # Expert demonstration pools are built once and kept in var/demos/.
        demos.set_cache_dir(settings.ARENA_DEMO_CACHE_DIR)
        post_migrate.connect(create_cache_table, sender=self)
        # The public pages' cache is retired when submissions or runs change.
        page_generation.connect_signals()
