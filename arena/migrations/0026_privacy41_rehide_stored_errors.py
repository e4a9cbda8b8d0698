"""Errors stored before every part of an endpoint's address was hidden on its own
(arena.endpoints.privacy) may still quote a tenant path, a query value, a port or a
resolved address: hide them now, in episodes', steps' and matches' errors."""

from django.db import migrations

from arena.endpoints.privacy import hide_endpoint

BATCH = 500


def _rehide(model, url_fields) -> None:
    changed = []
    for pk, error, *urls in model.objects.exclude(error="").values_list("pk", "error", *url_fields).iterator():
        hidden = hide_endpoint(error, *(url or "" for url in urls))
        if hidden != error:
            changed.append(model(pk=pk, error=hidden))
        if len(changed) >= BATCH:
            model.objects.bulk_update(changed, ["error"])
            changed = []
    if changed:
        model.objects.bulk_update(changed, ["error"])


def rehide(apps, schema_editor):
    _rehide(apps.get_model("arena", "Episode"), ["run__submission__base_url"])
    _rehide(apps.get_model("arena", "Step"), ["episode__run__submission__base_url"])
    _rehide(apps.get_model("arena", "Match"), ["first__base_url", "second__base_url"])


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0025_privacy41_encrypted_url_query"),
    ]

    operations = [migrations.RunPython(rehide, migrations.RunPython.noop)]
