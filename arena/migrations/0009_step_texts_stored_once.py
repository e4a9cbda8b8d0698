"""Each text of a step stored once (arena.storage.steptext): the observation no longer repeated
inside prompt_added, a reasoning that is the completion stripped stored as NULL, and the
values a call shares with its step left out of calls.

Both directions go through arena.storage.steptext, in batches of rows read in id order, and only
rows that change are written (one prepared UPDATE per row, run for a whole batch).
Forwards is idempotent (a stored row stays as it is); backwards writes every row in the
plain form again, so the migration can be undone."""

from django.db import migrations, models

from arena.storage import steptext

BATCH = 2_000
COLUMNS = ("id", "observation_text", "prompt_added", "completion", "reasoning", "calls",
           *steptext.STEP_TOTALS)
CHANGED = ("prompt_added", "reasoning", "calls")


def _convert(apps, schema_editor, convert) -> None:
    Step = apps.get_model("arena", "Step")
    connection = schema_editor.connection
    fields = [Step._meta.get_field(name) for name in CHANGED]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    update = f"UPDATE {quote(Step._meta.db_table)} SET {assignments} WHERE {quote('id')} = %s"
    last = 0
    while True:
        rows = list(Step.objects.using(connection.alias).filter(pk__gt=last).order_by("pk").values(*COLUMNS)[:BATCH])
        if not rows:
            return
        last = rows[-1]["id"]
        changed = []
        for row in rows:
            converted = convert(row)
            if any(converted[name] != row[name] for name in CHANGED):
                values = [field.get_db_prep_save(converted[field.name], connection) for field in fields]
                changed.append([*values, row["id"]])
        if changed:
            with connection.cursor() as cursor:
                cursor.executemany(update, changed)


def store_once(apps, schema_editor):
    _convert(apps, schema_editor, steptext.to_store)


def store_plainly(apps, schema_editor):
    _convert(apps, schema_editor, steptext.restore)


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0008_episode_enqueued_at"),
    ]

    operations = [
        migrations.AlterField(
            model_name="step",
            name="reasoning",
            field=models.TextField(blank=True, default="", null=True),
        ),
        migrations.RunPython(store_once, store_plainly, elidable=False),
    ]
