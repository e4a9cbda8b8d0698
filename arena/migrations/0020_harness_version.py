from django.db import migrations, models


class Migration(migrations.Migration):
    """Every run stores the harness version it was played under (envs.harness). Runs
    stored before this have no known version: they get "before-versioning", which pages
    show as unknown and mark as older than the current harness, never today's version."""

    dependencies = [("arena", "0019_baseline_figures")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="harness_version",
            field=models.CharField(blank=True, default="before-versioning", max_length=64),
        ),
        # New runs are stamped when they are created (arena.models.Run.save).
        migrations.AlterField(
            model_name="run",
            name="harness_version",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
