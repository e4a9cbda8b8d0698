from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0021_cache_write_premium"),
    ]

    operations = [
        migrations.AddField(
            model_name="step",
            name="reasoning_items",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
