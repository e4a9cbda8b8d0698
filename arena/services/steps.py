"""The runner's hot path: storing steps.

Steps arrive from every episode a worker plays and are committed in batches (group
commit, arena.play.stepwriter): a prepared heartbeat per step, one insert statement for
the batch's steps, one commit and one commit callback (the live announcements) per batch.
"""

from __future__ import annotations

import dataclasses
from functools import partial
import json
import logging

from django.db import connections, transaction
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import JSONField
from django.utils import timezone

from arena.storage import steptext
from arena.live.publish import publish_steps_on_commit
from arena.clients.replies import excerpt
from arena.runtime.dbretry import retry_on_conflict
from arena.storage.images import ImageRef
from arena.models import Episode, Run, Step, StoredImage

logger = logging.getLogger(__name__)


class LeaseLost(Exception):
    """The episode was reaped or taken over; this worker must stop playing it."""


class StepNotStored(Exception):
    """The database refused a step even when it was written alone: the episode it
    belongs to cannot go on (its steps must be stored in order); the message says why,
    in a line fit for the episode page."""

    def __init__(self, episode_id: int, index: int, cause: BaseException):
        detail = (str(cause).strip().splitlines() or [""])[0]
        # A database error's first line names the problem; later lines may quote the
        # whole row, which belongs neither on a public page nor in a short reason.
        super().__init__(f"step {index} could not be stored: {type(cause).__name__}: {excerpt(detail, 200)}")
        self.episode_id = episode_id
        self.index = index


@dataclasses.dataclass
class StepRecord:
    index: int
    observation_text: str | None
    observation_image: ImageRef | None
    prompt_added: list
    completion: str
    reasoning: str
    parsed_action: str | None
    executed_action: str
    legal: bool
    reward: float
    done: bool
    end_reason: str
    tokens_in: int | None
    tokens_out: int | None
    latency_ms: float | None
    error: str
    info: dict = dataclasses.field(default_factory=dict)
    calls: list = dataclasses.field(default_factory=list)
    cached_tokens_in: int | None = None
    cut_off: bool = False
    reasoning_tokens: int | None = None
    # Per model call, what the provider wants given back with its answer (Step.reasoning_items).
    reasoning_items: list = dataclasses.field(default_factory=list)
    # The task's picture for the replay viewer (never shown to the agent); its hash is
    # in `info["viewer_frame"]`, this makes its StoredImage row.
    viewer_frame: ImageRef | None = None


# The record's fields in order, listed once (dataclasses.fields builds its list at each call).
_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(StepRecord))


def _fields_of(record: StepRecord) -> dict:
    """The record's values by field name, in field order. A dataclass's `__init__` sets
    its fields in that order, so its `__dict__` is that mapping already (a copy of it
    is one C call, where reading each field by name was a sixth of preparing a row);
    a record given attributes of its own is read field by field."""
    values = dict(record.__dict__)
    if len(values) != len(_RECORD_FIELDS):
        return {name: getattr(record, name) for name in _RECORD_FIELDS}
    return values


def steps_record(batch: list[tuple[int, str, StepRecord]]) -> list[bool | StepNotStored]:
    """Store a batch of steps (possibly of many episodes), in one transaction if it can.

    For each (episode_id, worker, record): beat the episode's heart and insert the
    step, unless the worker no longer holds the episode (then False for that item and
    nothing is written for it). The insert does nothing if (episode, index) already
    exists, so a replayed step is never stored twice. One commit for the whole batch
    is what keeps a busy worker's per-step cost low (group commit); every step is
    published after that commit.

    A step the database refuses must not fail the other episodes of its batch: when the
    batch's transaction fails, each item is written again in a transaction of its own,
    and an item refused even then gets a StepNotStored (True for the items stored). A
    transaction the database aborted for a deadlock or a serialization failure is run
    again first (arena.runtime.dbretry): that refuses no step.
    """
    try:
        return _store_retrying(batch)
    except Exception as exc:
        if len(batch) == 1:
            return [_refused(batch[0], exc)]
        logger.warning("a batch of %d steps could not be stored; storing them one by one", len(batch))
    return [_store_alone(item) for item in batch]


def _store_alone(item: tuple[int, str, StepRecord]) -> bool | StepNotStored:
    try:
        return _store_retrying([item])[0]
    except Exception as exc:
        return _refused(item, exc)


def _refused(item: tuple[int, str, StepRecord], cause: Exception) -> StepNotStored:
    episode_id, _, record = item
    logger.warning("step %s of episode %s could not be stored: %r", record.index, episode_id, cause)
    return StepNotStored(episode_id, record.index, cause)


def _store(batch: list[tuple[int, str, StepRecord]]) -> list[bool]:
    """The items of `batch` in one transaction (see `steps_record`); raises whatever the
    database (or a value it cannot take) raises, and then nothing is written.

    Rows are locked in one order in every transaction of the arena that takes several:
    image rows by hash, then episodes by id, then runs by id. The worker's heartbeat of
    all its episodes (arena.services.episodes.episodes_heartbeat) and the writers of other workers then
    wait for this transaction, or it for them, but never both at once (a deadlock)."""
    connection = connections[Episode.objects.db]
    sql = _StepSQL.for_connection(connection)
    now = timezone.now()
    stored: list[bool] = [False] * len(batch)
    # Whatever order the steps arrived in (it is the order their episodes' model calls
    # returned), they are written in the order of their episodes' ids.
    in_lock_order = sorted(range(len(batch)), key=lambda position: (batch[position][0], batch[position][2].index))
    spent_by_run: dict[int, list[int]] = {}
    with transaction.atomic():
        images_shown = {ref.sha256: ref for _, _, record in batch
                        for ref in (record.observation_image, record.viewer_frame) if ref is not None}
        with connection.cursor() as cursor:
            # One prepared statement for the batch's pictures (images.ensure_row's
            # INSERT that does nothing when the row exists), in hash order.
            if images_shown:
                cursor.executemany(sql.image_insert, [sql.image_params(images_shown[sha], now)
                                                      for sha in sorted(images_shown)])
            rows, announced = [], []
            for position in in_lock_order:
                episode_id, worker, record = batch[position]
                cursor.execute(sql.heartbeat, sql.heartbeat_params(now, record.index, episode_id, worker))
                held = cursor.fetchone()
                if held is None:
                    continue
                (run_id,) = held
                fields = _fields_of(record)
                fields["calls"] = calls_to_store(record.completion, record.calls)
                image = fields.pop("observation_image")
                fields.pop("viewer_frame")  # its row is ensured above; info names it
                fields["observation_image_id"] = image.sha256 if image else None
                rows.append(sql.insert_params(episode_id, now, steptext.to_store(fields)))
                if record.tokens_in or record.tokens_out:
                    spent = spent_by_run.setdefault(run_id, [0, 0, 0, 0])
                    spent[0] += record.tokens_in or 0
                    spent[1] += record.tokens_out or 0
                    spent[2] += record.cached_tokens_in or 0
                    # Cache writes are on the calls only (billed apart by Anthropic).
                    spent[3] += sum(call.get("cache_write_tokens_in") or 0 for call in record.calls)
                # The step travels to the viewers with its announcement, whole as readers
                # see it (each text once is only how it is stored; Step.from_db).
                # Built only when someone watches (live.publish_steps): most steps have no viewer.
                announced.append((episode_id, record.index, partial(Step, episode_id=episode_id, created_at=now, **fields)))
                stored[position] = True
            # The batch's steps in one statement, after every heartbeat: the driver runs
            # its rows in one call, where one statement per step went through Django's
            # cursor wrapper and SQLite's placeholder rewrite each time. The rows, their
            # order and the locks taken (episodes by id, then runs) are the same.
            if rows:
                cursor.executemany(sql.insert, rows)
            # Spent tokens are counted with the steps so budgets stop a run in time.
            for run_id in sorted(spent_by_run):
                spent_in, spent_out, cached, cache_written = spent_by_run[run_id]
                cursor.execute(sql.spend, [spent_in, spent_out, cached, cache_written, run_id])
            if announced:
                # One commit callback for the batch: whether anyone hears is decided once.
                publish_steps_on_commit(announced)
    return stored


_store_retrying = retry_on_conflict(_store)


def calls_to_store(completion: str, calls: list[dict]) -> list[dict]:
    """A step's calls as stored: a call whose completion is the step's own leaves it out,
    so the text is stored once (Step.calls_with_completions puts it back)."""
    return [
        {key: value for key, value in call.items() if key != "completion"}
        if call.get("completion") == completion
        else call
        for call in calls
    ]


def step_record(episode_id: int, worker: str, record: StepRecord) -> None:
    """Store one step (see `steps_record`); LeaseLost if the worker lost the episode,
    StepNotStored if the database refused the step."""
    stored = steps_record([(episode_id, worker, record)])[0]
    if isinstance(stored, StepNotStored):
        raise stored
    if not stored:
        raise LeaseLost(episode_id)


class _StepSQL:
    """The statements of `step_record`, built once per database connection.

    `INSERT … ON CONFLICT DO NOTHING` reads the same in SQLite and PostgreSQL; values
    are prepared by the model fields themselves, so JSON and datetimes are stored
    exactly as the ORM would store them.
    """

    _cache: dict[str, "_StepSQL"] = {}

    def __init__(self, connection):
        self.connection = connection
        quote = connection.ops.quote_name
        episode_fields = {f.name: f for f in Episode._meta.concrete_fields}
        self.heartbeat_at = episode_fields["heartbeat_at"]
        self._prepared_now: tuple | None = None
        self._prepared_created: tuple | None = None
        # RETURNING (SQLite 3.35+, PostgreSQL): whether the worker still holds the
        # episode, and the run whose spent tokens the step adds to, in one statement.
        self.heartbeat = (
            f"UPDATE {quote(Episode._meta.db_table)} SET {quote('heartbeat_at')} = %s, {quote('num_steps')} = %s "
            f"WHERE {quote('id')} = %s AND {quote('worker')} = %s AND {quote('status')} = %s "
            f"RETURNING {quote('run_id')}"
        )
        self.spend = (
            f"UPDATE {quote(Run._meta.db_table)} SET {quote('tokens_spent_in')} = {quote('tokens_spent_in')} + %s, "
            f"{quote('tokens_spent_out')} = {quote('tokens_spent_out')} + %s, "
            f"{quote('cached_tokens_in')} = {quote('cached_tokens_in')} + %s, "
            f"{quote('cache_write_tokens_in')} = {quote('cache_write_tokens_in')} + %s "
            f"WHERE {quote('id')} = %s"
        )
        self.image_fields = list(StoredImage._meta.concrete_fields)
        self.image_insert = (
            f"INSERT INTO {quote(StoredImage._meta.db_table)} ({', '.join(quote(f.column) for f in self.image_fields)}) "
            f"VALUES ({', '.join(['%s'] * len(self.image_fields))}) ON CONFLICT ({quote('sha256')}) DO NOTHING"
        )
        self.step_fields = [f for f in Step._meta.concrete_fields if not f.primary_key]
        self.step_plain_types = [(f, _plain_types(f)) for f in self.step_fields]
        # JSON columns of a list or a dict, on a backend that stores JSON as the text
        # json.dumps writes (SQLite): that text, without the field's and the backend's
        # calls around it (a third of what remained of preparing a step's row).
        stores_dumped_json = type(connection.ops).adapt_json_value is BaseDatabaseOperations.adapt_json_value
        self.step_adapters = [
            (field, plain, json.dumps if stores_dumped_json and _is_plain_json(field) else None)
            for field, plain in self.step_plain_types
        ]
        columns = ", ".join(quote(f.column) for f in self.step_fields)
        placeholders = ", ".join(["%s"] * len(self.step_fields))
        self.insert = (
            f"INSERT INTO {quote(Step._meta.db_table)} ({columns}) VALUES ({placeholders}) "
            f"ON CONFLICT ({quote('episode_id')}, {quote('index')}) DO NOTHING"
        )

    @classmethod
    def for_connection(cls, connection) -> "_StepSQL":
        cached = cls._cache.get(connection.alias)
        if cached is None or cached.connection.vendor != connection.vendor:
            cached = cls._cache[connection.alias] = cls(connection)
        return cached

    def heartbeat_params(self, now, index: int, episode_id: int, worker: str) -> list:
        # A batch's steps share one `now`: prepared once, not once a step.
        prepared = self._prepared_now
        if prepared is None or prepared[0] is not now:
            prepared = self._prepared_now = (now, self.heartbeat_at.get_db_prep_value(now, self.connection))
        return [prepared[1], index + 1, episode_id, worker, Episode.RUNNING]

    def image_params(self, ref: ImageRef, now) -> list:
        values = {"sha256": ref.sha256, "width": ref.width, "height": ref.height, "size_bytes": ref.size_bytes,
                  "created_at": now}
        return [f.get_db_prep_save(values[f.attname], self.connection) for f in self.image_fields]

    def insert_params(self, episode_id: int, now, fields: dict) -> list:
        values = {**fields, "episode_id": episode_id, "created_at": now}
        connection = self.connection
        params = []
        for field, plain, dumps in self.step_adapters:
            value = values[field.attname]
            kind = type(value)
            if kind in plain:
                params.append(value)
            elif dumps is not None and (kind is list or kind is dict):
                # An empty list or dict (most steps' info and reasoning items) is the
                # text json.dumps writes for it, without the encoder's call.
                params.append(dumps(value) if value else ("[]" if kind is list else "{}"))
            elif value is now:  # a batch's steps share one `now`: prepared once
                params.append(self._prepared_created_at(field, now))
            else:
                params.append(field.get_db_prep_save(value, connection))
        return params

    def _prepared_created_at(self, field, now):
        prepared = self._prepared_created
        if prepared is None or prepared[0] is not now or prepared[1] is not field:
            prepared = self._prepared_created = (now, field, field.get_db_prep_save(now, self.connection))
        return prepared[2]

    def insert_params_through_fields(self, episode_id: int, now, fields: dict) -> list:
        """`insert_params` with every value through its field (the bench's baseline)."""
        values = {**fields, "episode_id": episode_id, "created_at": now}
        return [f.get_db_prep_save(values[f.attname], self.connection) for f in self.step_fields]


# The Python types a field of each kind stores unchanged (get_db_prep_save returns the
# value itself: no conversion, no adaptation on SQLite or PostgreSQL). Anything else —
# an int given to a FloatField, a bool to an IntegerField, JSON, datetimes, a lazy
# string — goes through the field. Asking the fields about values they return as they
# are was a third of the step writer's time under cProfile (a tenth of its CPU without).
_PLAIN_TYPES = {
    "BooleanField": (bool,),
    "IntegerField": (int,), "BigIntegerField": (int,), "SmallIntegerField": (int,),
    "PositiveIntegerField": (int,), "PositiveBigIntegerField": (int,), "PositiveSmallIntegerField": (int,),
    "AutoField": (int,), "BigAutoField": (int,),
    "FloatField": (float,),
    "TextField": (str,), "CharField": (str,),
}


def _is_plain_json(field) -> bool:
    """A JSONField whose value is stored as `json.dumps(value)` writes it: no encoder of
    its own, and no preparation of its own (a subclass may add one)."""
    return (
        isinstance(field, JSONField) and field.encoder is None
        and type(field).get_db_prep_save is JSONField.get_db_prep_save
        and type(field).get_db_prep_value is JSONField.get_db_prep_value
        and type(field).get_prep_value is JSONField.get_prep_value
    )


def _plain_types(field) -> frozenset:
    """The value types `field.get_db_prep_save` returns unchanged (None for every
    simple kind; for a foreign key, its target's types, but never "": a key given ""
    is stored as NULL, which the field does)."""
    target = field.target_field if field.is_relation else field
    plain = _PLAIN_TYPES.get(target.get_internal_type())
    if plain is None:
        return frozenset()
    if field.is_relation and str in plain:
        return frozenset()
    return frozenset((*plain, type(None)))
