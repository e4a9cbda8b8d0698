from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0027_privacy41b_match_error_kind"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="balrog_folder",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AddField(
            model_name="submission",
            name="balrog_metadata",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="submission",
            name="balrog_reported",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="submission",
            name="balrog_figures_only",
            field=models.BooleanField(default=False),
        ),
    ]
