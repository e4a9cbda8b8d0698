"""What a folder of BALROG's leaderboard repository reports about itself, as the
arena keeps it on the imported submission (Submission.balrog_metadata and
balrog_reported): metadata.yaml's listing and summary.json's figures."""

from __future__ import annotations

import datetime

# metadata.yaml's fields BALROG's site shows (template/data.json of balrog-ai/experiments):
# kept as published, each a string, a number, a boolean or null.
METADATA_FIELDS = ("name", "date", "verified", "oss", "site", "org_logo", "trajs")


def published_metadata(metadata: dict) -> dict:
    """metadata.yaml's fields as BALROG's site reads them; a YAML date as ISO text."""
    kept = {}
    for field in METADATA_FIELDS:
        if field not in metadata:
            continue
        value = metadata[field]
        if isinstance(value, datetime.date):
            value = value.isoformat()
        if value is None or isinstance(value, str | bool | int | float):
            kept[field] = value[:500] if isinstance(value, str) else value
    return kept


def reported_figures(summary: dict) -> dict:
    """summary.json's figures (checked by `check_summary`): the average, and per
    environment the progress, standard error and episodes, with the token totals when
    the summary gives them."""
    keys = ("progression_percentage", "standard_error", "episodes_played")
    figures = {
        "average_progress": float(summary["average_progress"]),
        "standard_error": float(summary["standard_error"]),
        "environments": {name: {key: env[key] for key in keys} for name, env in summary["environments"].items()},
    }
    for total in ("total_input_tokens", "total_output_tokens"):
        value = summary.get(total)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            figures[total] = value
    return figures
