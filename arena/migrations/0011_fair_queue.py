from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("arena", "0010_episode_snapshots")]

    operations = [
        migrations.AddField(
            model_name="episode",
            name="queue_priority",
            field=models.FloatField(blank=True, null=True),
        ),
    ]
