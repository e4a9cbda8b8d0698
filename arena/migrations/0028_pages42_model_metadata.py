from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0027_privacy41b_match_error_kind"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="model_organisation",
            field=models.CharField(blank=True, max_length=100),
        ),
        migrations.AddField(
            model_name="submission",
            name="model_release_date",
            field=models.DateField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="model_weights",
            field=models.CharField(
                blank=True, choices=[("", "not said"), ("open", "open weights"), ("closed", "closed weights")],
                default="", max_length=8,
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="model_url",
            field=models.URLField(blank=True, max_length=500),
        ),
    ]
