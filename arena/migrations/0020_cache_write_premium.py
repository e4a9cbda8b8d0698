from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0019_baseline_figures"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="cache_write_tokens_in",
            field=models.BigIntegerField(default=0),
        ),
    ]
