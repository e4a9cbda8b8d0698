"""The cap of queued episodes per user holds on a real PostgreSQL (issue 41): while one
submission of an account is being created (its episodes written, not yet committed),
a second one of the same account waits on the owner's row lock, then counts the
first's episodes and is refused. Without the lock, PostgreSQL's READ COMMITTED would
let the second count zero and pass.

Two threads of one process, each with its own connection, against a fresh cluster
(tests/support/postgres.py); the first holds its transaction open for a moment after
queuing, which is when the second tries."""

import json

from tests.arena.test_postgres_scaled_mode import environment_of, manage, postgres  # noqa: F401

TWO_AT_ONCE = """
import django, json, threading, time
django.setup()
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.conf import settings
from arena.models import Episode
from arena.services.queued_cap import QueuedCapReached
from arena.services.runs import RunSpec
from arena.services.submissions import submission_create

settings.ARENA_MAX_QUEUED_EPISODES_PER_USER = 5
owner = User.objects.create_user("alice")
spec = [RunSpec(task="lmact/gridworld", format="ascii", num_episodes=3)]
first_queued = threading.Event()
answers = {}

def first():
    with transaction.atomic():
        submission_create(owner=owner, fields={"name": "first", "base_url": "http://example.org/v1", "model": "m"},
                          api_key="", runs=spec)
        first_queued.set()
        time.sleep(1.0)  # the second tries while this is uncommitted
    answers["first"] = "created"
    connection.close()

def second():
    first_queued.wait(10)
    started = time.monotonic()
    try:
        submission_create(owner=owner, fields={"name": "second", "base_url": "http://example.org/v1", "model": "m"},
                          api_key="", runs=spec)
        answers["second"] = "created"
    except QueuedCapReached as exc:
        answers["second"] = exc.messages[0]
    answers["waited"] = time.monotonic() - started
    connection.close()

threads = [threading.Thread(target=first), threading.Thread(target=second)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(30)
answers["queued"] = Episode.objects.filter(status=Episode.QUEUED).count()
print(json.dumps(answers))
"""


def test_a_second_submission_waits_for_the_first_and_is_refused_on_postgres(postgres, tmp_path):  # noqa: F811
    environment = environment_of(postgres.create_database("cap", copy_of="migrated"), tmp_path)
    answers = json.loads(manage(environment, script=TWO_AT_ONCE).strip().splitlines()[-1])
    assert answers["first"] == "created"
    assert "you have 3 waiting in the queue; this arena allows 5 queued per user" in answers["second"]
    assert answers["waited"] >= 0.5  # it waited on the lock, not on a stale count
    assert answers["queued"] == 3
