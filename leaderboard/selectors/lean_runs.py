"""Runs read for a board's thousand rows at a fraction of the ORM's cost: fields read as
values, JSON decoded once, instances built without Model.__init__, submissions read in one
query (bench/read_pages.py measures it; tests/leaderboard/selectors/test_front_page_reads.py
holds the instances to the ORM's)."""

from __future__ import annotations
import functools
import json
import orjson
from django.db.models import JSONField, TextField
from django.db.models.base import ModelState
from django.db.models.functions import Cast
from arena.models import Run, Submission
from arena.variant import Variant
from leaderboard.selectors.statements import rows_of, statement_of


# The submission's columns no ranking shows, each read and decoded once per row of a
# board otherwise: the encrypted secrets and the endpoint probe's JSON report.
SUBMISSION_SECRETS_AND_PROBE = (
    "submission__api_key_encrypted", "submission__agent_secret_encrypted", "submission__endpoint_probe",
)


def lean_runs(runs) -> list[Run]:
    """The runs of the queryset `runs` (of Run), as the ORM builds them but for a board's
    thousand rows at a fraction of the cost: the fields read as values, the JSON ones
    decoded once here, and each instance given them directly instead of through
    Model.__init__ (which, with the JSON decoding, was most of the front page's read,
    bench/read_pages.py). The fields no board shows (LEAN_DEFERRED, whose conversion
    from SQLite's text was a fifth of the read) are left deferred, as `.defer()` leaves
    them: read from the database if asked for. tests/leaderboard/selectors/
    test_front_page_reads.py holds the instances to the ORM's."""
    values = lean_values(runs)
    statement = statement_of(values)
    return lean_built(values if statement is None else rows_of(statement), runs.db)


def lean_values(runs):
    """The rows lean_runs reads of the queryset `runs`, through the ORM."""
    plain, decoded = _lean_fields()
    texts = {f"{name}__text": Cast(name, TextField()) for name in decoded}
    return runs.annotate(**texts).values_list(*plain, *texts)


def lean_built(rows, database: str) -> list[Run]:
    """lean_runs's instances of `rows` (of `lean_values`), read from `database`."""
    plain, decoded = _lean_fields()
    split = len(plain)
    variant_at = split + decoded.index("variant")
    # A board's runs share a few variants (a submission plays every task with one):
    # each distinct text's Variant is built once and given to its runs, as Variant.of
    # keeps it on a run (building one per run was a tenth of the overall board).
    # The decoded variant is shared the same way (decoding each run's text again was a
    # tenth of the read): lean runs are rows to show, and nothing changes their variant.
    variants: dict[str, tuple[object, Variant | None]] = {}
    decoding = list(enumerate(decoded, start=split))
    # Every run's fields in a copy of one dictionary holding their names in order: a
    # copy is made at its full size, where a dictionary built from the pairs grew five
    # times (half the cost of the fields, bench/read_pages.py); the order is the same.
    names = dict.fromkeys([*plain, *decoded])
    built = []
    new_run = Run.__new__
    for values in rows:
        variant_text = values[variant_at]
        shared = variants.get(variant_text)
        if shared is None:
            data = None if variant_text is None else _decoded(variant_text)
            shared = variants[variant_text] = (data, _shared_variant(data))
        data, variant = shared
        fields = names.copy()
        fields.update(zip(plain, values))
        for at, name in decoding:
            text = values[at]
            fields[name] = data if at == variant_at else None if text is None else _decoded(text)
        if variant is not None:
            fields["_variant"] = (data, variant)
        state = fields["_state"] = ModelState()
        # The fields cache made here, as ModelState's descriptor makes it on first use
        # (with_submissions fills it: a Python call per run through the descriptor).
        state.adding, state.db, state.fields_cache = False, database, {}
        run = new_run(Run)
        run.__dict__ = fields
        built.append(run)
    return built


def _shared_variant(data) -> Variant | None:
    """The Variant of a run's decoded variant, shared by the runs whose variant is the
    same text; None where Variant.from_dict fails on it (such a run fails where it
    always did, when Variant.of is asked for its variant)."""
    if not isinstance(data, dict):
        return None
    try:
        return Variant.from_dict(data)
    except (TypeError, ValueError):
        return None


# Run's fields that no board, table or download of a board reads: the times and the
# budget (read one at a time on a lean run if ever asked for).
LEAN_DEFERRED = ("created_at", "started_at", "finished_at", "budget_usd", "budget_tokens")


# A run of digits long enough to be an integer past 64 bits, which orjson would turn
# into a float where json keeps it whole, looked for in the UTF-8 text with every digit
# made "0" and everything else a space (a regular expression cost four times orjson).
_DIGITS_ONLY = bytes(ord("0") if chr(b).isdigit() and b < 128 else ord(" ") for b in range(256))
_LONG_DIGITS = b"0" * 19


def _decoded(text: str):
    """JSON text as the ORM's JSONField decodes it (json.loads; the text itself when it
    is not JSON), by orjson, four times faster on the runs' aggregates, except where the
    two could differ: numbers that long, and what orjson refuses (NaN, Infinity)."""
    encoded = text.encode()
    if _LONG_DIGITS not in encoded.translate(_DIGITS_ONLY):
        try:
            return orjson.loads(encoded)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@functools.cache
def _lean_fields() -> tuple[list[str], list[str]]:
    """Run's concrete fields as `lean_runs` reads them: the ones read as values, and the
    JSON ones read as text and decoded."""
    fields = [field for field in Run._meta.concrete_fields if field.attname not in LEAN_DEFERRED]
    decoded = [field.attname for field in fields if isinstance(field, JSONField)]
    return [field.attname for field in fields if field.attname not in decoded], decoded


def with_submissions(runs: list[Run]) -> list[Run]:
    """`runs`, each given its submission, read in one query: a few submissions are behind
    a board's thousand runs, and joining them into every row built a Submission per run
    (half the cost of reading a board's runs, bench/read_pages.py)."""
    fields = [name.removeprefix("submission__") for name in SUBMISSION_SECRETS_AND_PROBE]
    submissions = Submission.objects.defer(*fields).in_bulk({run.submission_id for run in runs})
    cache_name = Run.submission.field.cache_name  # where set_cached_value puts it, set directly
    for run in runs:
        run._state.fields_cache[cache_name] = submissions[run.submission_id]
    return runs
