from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("arena", "0017_balrog_import_gaps")]

    operations = [
        migrations.AddField(
            model_name="episode",
            name="queue_priority",
            field=models.FloatField(blank=True, null=True),
        ),
    ]
