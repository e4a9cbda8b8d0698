"""Base URLs' query strings move to their encrypted form (arena.endpoints.url); the edit
history keeps the query's names, not its values."""

import arena.endpoints.url
from django.db import migrations, models


def _plain(url):
    return arena.endpoints.url.without_query(url)


def encrypt_queries(apps, schema_editor):
    Submission = apps.get_model("arena", "Submission")
    # Reading gives plain or already encrypted URLs as they are; writing encrypts.
    for pk, url in Submission.objects.exclude(base_url="").values_list("pk", "base_url").iterator():
        if "?" in url:
            Submission.objects.filter(pk=pk).update(base_url=url)
    SubmissionEdit = apps.get_model("arena", "SubmissionEdit")
    for edit in SubmissionEdit.objects.filter(changes__has_key="base_url").iterator():
        change = edit.changes.get("base_url")
        if isinstance(change, list):
            edit.changes["base_url"] = [_plain(url) if isinstance(url, str) else url for url in change]
            edit.save(update_fields=["changes"])


def decrypt_queries(apps, schema_editor):
    Submission = apps.get_model("arena", "Submission")
    for pk, url in Submission.objects.exclude(base_url="").values_list("pk", "base_url").iterator():
        if "?" in url:  # read decrypted; written as a plain value, past the field's encryption
            Submission.objects.filter(pk=pk).update(base_url=models.Value(url, output_field=models.TextField()))


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0024_match_play"),
    ]

    operations = [
        migrations.AlterField(
            model_name="submission",
            name="base_url",
            field=arena.endpoints.url.EndpointURLField(blank=True, max_length=1200),
        ),
        migrations.RunPython(encrypt_queries, decrypt_queries),
    ]
