"""A failed match keeps the kind of its endpoint failure and the seat that failed, so
readers other than that seat's owner and staff read the kind (arena.endpoints.public_errors)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("arena", "0026_privacy41_rehide_stored_errors"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="error_kind",
            field=models.CharField(blank=True, max_length=32),
        ),
        migrations.AddField(
            model_name="match",
            name="failed_seat",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
    ]
