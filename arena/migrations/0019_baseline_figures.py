from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("arena", "0018_fair_queue")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="shipped_figures",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
