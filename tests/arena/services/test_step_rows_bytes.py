"""What a batch of steps leaves behind, byte for byte: the step rows, the episodes'
heartbeats and step counts, the runs' spent tokens, the picture rows, and the live
announcements (to a viewer in this process and to another process's socket).

The step writer's path is tuned for CPU (statements written once, one insert statement
for a batch's steps, one commit callback for its announcements, the fields read off the
record at once); none of that may change what is stored or announced. The digest below
was taken at commit b1ffc2b, before those changes: a single byte of any row or message
that differs changes it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
from datetime import datetime, timezone

import pytest
from channels.layers import get_channel_layer
from django.db import connection

from arena.live import signal as livesignal
from arena.live.publish import episode_group
from arena.services.episodes import episode_claim
from arena.services.steps import StepNotStored, StepRecord, steps_record
from arena.storage.images import ImageRef
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)

NOW = datetime(2026, 11, 29, 7, 0, 0, 654321, tzinfo=timezone.utc)
PICTURE = ImageRef(sha256="ab" * 32, width=64, height=48, size_bytes=1234)
FRAME = ImageRef(sha256="cd" * 32, width=320, height=240, size_bytes=5678)
GRID = "#####\n#.@.#\n#...#\n#####"


def _record(index: int, **changes) -> StepRecord:
    values = dict(
        index=index, observation_text=GRID, observation_image=None,
        prompt_added=[{"type": "text", "text": f"Observation:\n{GRID}\n", "section": "trajectory"},
                      {"type": "text", "text": "\nReply with the action alone.\n", "section": "instructions"}],
        completion="up", reasoning="", parsed_action="up", executed_action="up", legal=True, reward=0.0,
        done=False, end_reason="", tokens_in=120, tokens_out=3, latency_ms=201.5, error="",
        calls=[{"purpose": "act", "tokens_in": 120, "tokens_out": 3, "cached_tokens_in": None, "latency_ms": 201.5,
                "attempts": 1, "http_status": 200, "finish_reason": "stop", "completion": "up"}],
    )
    values.update(changes)
    return StepRecord(**values)


def _batch(episodes) -> list:
    """Steps of several episodes in the order their calls returned: a model step, a
    chain of thought (its reasoning is the completion), self-correction (two calls), a
    picture and the viewer's frame, an illegal answer, a baseline step without calls,
    two steps of one episode, and one of an episode this worker no longer holds."""
    first, second, third, fourth, lost = episodes
    cot = " Reasoning: the door is up.\nAction: up "
    return [
        (third.id, "w", _record(0, completion=cot, reasoning=cot.strip(), cut_off=True, reasoning_tokens=7,
                                calls=[{"purpose": "act", "tokens_in": 120, "tokens_out": 3, "cached_tokens_in": 64,
                                        "reasoning_tokens": 7, "latency_ms": 201.5, "attempts": 2,
                                        "http_status": 200, "finish_reason": "length", "completion": cot}],
                                cached_tokens_in=64, reasoning_items=[[{"type": "reasoning", "id": "r1"}]])),
        (first.id, "w", _record(0)),
        (second.id, "w", _record(0, observation_image=PICTURE, viewer_frame=FRAME, info={"viewer_frame": FRAME.sha256},
                                 prompt_added=[{"type": "text", "text": "Observation: "},
                                               {"type": "image", "sha": PICTURE.sha256}])),
        (lost.id, "someone else", _record(0)),
        (first.id, "w", _record(1, completion="left!", parsed_action=None, legal=False, executed_action="down",
                                error="succeeded after 2 attempts", tokens_in=240, tokens_out=9, latency_ms=410.0,
                                calls=[{"purpose": "act", "tokens_in": 120, "tokens_out": 4, "latency_ms": 200.0,
                                        "completion": "left"},
                                       {"purpose": "self-correction", "tokens_in": 120, "tokens_out": 5,
                                        "latency_ms": 210.0, "completion": "left!"}])),
        (fourth.id, "w", _record(0, prompt_added=[], completion="", parsed_action="right", executed_action="right",
                                 tokens_in=None, tokens_out=None, latency_ms=None, calls=[], reward=1.0, done=True,
                                 end_reason="goal reached", info={"note": "ünïcode ✓", "score": 1.5})),
    ]


def _rows(sql: str) -> list:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        columns = [column[0] for column in cursor.description]
        return [dict(zip(columns, (str(v) if isinstance(v, datetime) else v for v in row)))
                for row in cursor.fetchall()]


class _Peer:
    """Another process's live socket: the datagrams the worker sends it."""

    def __init__(self, directory):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(directory / f"424242{livesignal.SUFFIX}"))
        self.socket.setblocking(False)

    def received(self) -> list:
        envelopes = []
        while True:
            try:
                envelopes.extend(json.loads(self.socket.recv(1 << 20)))
            except BlockingIOError:
                return envelopes


def test_a_batch_stores_and_announces_exactly_what_it_did_before(baseline, monkeypatch, settings, tmp_path):
    settings.ARENA_LIVE_SIGNAL_DIR = str(tmp_path)
    peer = _Peer(tmp_path)
    monkeypatch.setattr("arena.services.steps.timezone.now", lambda: NOW)
    run = new_run(baseline("random"), episodes=5)
    episodes = list(run.episodes.order_by("index"))
    for episode in episodes:
        assert episode_claim(episode.id, "w")
    layer = get_channel_layer()
    sent = []

    async def group_send(group, message):
        sent.append([group, message])

    monkeypatch.setattr(layer, "group_send", group_send)
    # A viewer in this process watches the first episode only.
    asyncio.run(layer.group_add(episode_group(episodes[0].id), "viewer"))
    try:
        results = steps_record(_batch(episodes))
    finally:
        asyncio.run(layer.group_discard(episode_group(episodes[0].id), "viewer"))
    assert results == [True, True, True, False, True, True]
    assert not any(isinstance(result, StepNotStored) for result in results)
    left_behind = {
        "steps": _rows("SELECT * FROM arena_step ORDER BY episode_id, \"index\""),
        "episodes": _rows("SELECT id, heartbeat_at, num_steps, worker, status FROM arena_episode ORDER BY id"),
        "runs": _rows("SELECT id, tokens_spent_in, tokens_spent_out, cached_tokens_in, cache_write_tokens_in "
                      "FROM arena_run ORDER BY id"),
        "images": _rows("SELECT * FROM arena_storedimage ORDER BY sha256"),
        "announced here": sent,
        "announced to the other process": peer.received(),
    }
    assert len(left_behind["steps"]) == 5
    assert [message["index"] for _, message in sent] == [0, 1]  # the watched episode's steps, in order
    assert all("frame" in message for _, message in sent)
    assert len(left_behind["announced to the other process"]) == 5
    encoded = json.dumps(left_behind, ensure_ascii=False, sort_keys=True)
    assert hashlib.sha256(encoded.encode()).hexdigest() == PINNED, encoded


PINNED = "c093a9241b4efa0c6fddbff14a65be8ffd2d9dbb2eb67ff06cd47428ff0d1847"


def test_with_no_other_process_listening_only_the_watched_episode_is_announced(baseline, monkeypatch, settings,
                                                                               tmp_path):
    """The batch decides once that no other process listens; the steps of an episode
    watched in this process are announced all the same, with their frames, and the
    others reach nobody (nothing is posted for them)."""
    settings.ARENA_LIVE_SIGNAL_DIR = str(tmp_path)  # no socket there: nobody listens
    run = new_run(baseline("random"), episodes=5)
    episodes = list(run.episodes.order_by("index"))
    for episode in episodes:
        assert episode_claim(episode.id, "w")
    layer = get_channel_layer()
    sent, posted = [], []

    async def group_send(group, message):
        sent.append((group, message))

    monkeypatch.setattr(layer, "group_send", group_send)
    monkeypatch.setattr(livesignal.outbox, "post", lambda group, message, loop=None: posted.append(group))
    asyncio.run(layer.group_add(episode_group(episodes[1].id), "viewer"))
    try:
        steps_record(_batch(episodes))
    finally:
        asyncio.run(layer.group_discard(episode_group(episodes[1].id), "viewer"))
    assert [(group, message["index"]) for group, message in sent] == [(episode_group(episodes[1].id), 0)]
    assert json.loads(sent[0][1]["frame"])["step"]["observation_image"] is not None
    assert posted == [episode_group(episodes[1].id)]


def test_a_record_given_an_attribute_of_its_own_is_read_field_by_field():
    from arena.services.steps import _RECORD_FIELDS, _fields_of

    record = _record(2)
    assert list(_fields_of(record)) == list(_RECORD_FIELDS)
    record.stray = "not a step field"
    fields = _fields_of(record)
    assert list(fields) == list(_RECORD_FIELDS) and fields["index"] == 2
