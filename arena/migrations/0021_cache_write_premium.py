from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0020_harness_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="cache_write_tokens_in",
            field=models.BigIntegerField(default=0),
        ),
    ]
