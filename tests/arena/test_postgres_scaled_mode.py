"""The scaled mode on a real PostgreSQL: a real Redis queue and two worker processes.

PostgreSQL (Debian's server, a fresh cluster on a free port) and Redis run as servers;
migrations, the seeding of runs and two workers run as separate processes, as on
several machines. The workers beat their episodes' hearts many times a second instead
of every 10 s, so the heartbeat's UPDATE of all their episodes meets the step writer's
batches all the time: that is where "deadlock detected" failed episodes before.
"""

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_openai import FakeOpenAIServer
from tests.support.postgres import PostgresServer, PostgresUnavailable
from tests.support.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2
BASELINE_EPISODES_PER_RUN = 10
MODEL_EPISODES = 24
WORKERS_TIMEOUT_SECONDS = 90


def environment_of(database_url: str, var_dir: Path, **more: str) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "ARENA_VAR_DIR": str(var_dir),
        "ARENA_ALLOW_LOOPBACK": "1",
        "LOG_LEVEL": "WARNING",
        **more,
    }


def manage(environment, *arguments, script: str | None = None) -> str:
    command = [sys.executable, "manage.py", *arguments] if script is None else [sys.executable, "-c", script]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def postgres(tmp_path_factory):
    """The server, with a database "migrated" that every test copies (migrating once)."""
    try:
        server = PostgresServer.start()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        manage(environment_of(server.create_database("migrated"), tmp_path_factory.mktemp("migrate")), "migrate", "-v0")
        yield server


@pytest.fixture
def scaled_environment(postgres, tmp_path):
    with RedisServer.start() as redis:
        yield environment_of(
            postgres.create_database("scaled", copy_of="migrated"), tmp_path, REDIS_URL=redis.url, ARENA_QUEUE="redis"
        )


# The quick baselines: LMAct's grid world in all four formats (one with images) and the
# infogather task in its eight sizes, each with every baseline policy.
QUICK_TASKS = ("lmact/gridworld", "infogather/single-feature")

# A model run too, so the steps carry tokens: the writer then also adds to the run's
# spent tokens, a second table whose rows both workers update.
CREATE_MODEL_RUN = """
import django
django.setup()
from arena.services.episodes import episode_claim
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission, submission_create
submission_create(
    owner=None,
    fields={{"name": "fake model", "base_url": {base_url!r}, "model": "fake", "max_tokens": 16}},
    api_key="",
    runs=[RunSpec(task="lmact/gridworld", format="ascii", num_episodes={episodes})],
)
"""

WORKER = """
import django
django.setup()
from django.core.management import call_command
from arena.play import worker
worker.HEARTBEAT_SECONDS = 0.05
call_command("arena_worker", "--concurrency", "24", "--until-idle")
"""

# What the database says after the workers stopped, as JSON.
FIGURES = """
import django, json
django.setup()
from django.db.models import Count, F, Max, Q, Sum
from arena.models import Episode, Run

episodes = Episode.objects.annotate(
    stored=Count("steps"), distinct=Count("steps__index", distinct=True), last=Max("steps__index"),
    step_tokens_in=Sum("steps__tokens_in"),
)
bad_steps = [
    e.pk for e in episodes
    if not (e.stored == e.distinct == e.num_steps and e.num_steps > 0 and e.last == e.num_steps - 1)
    or (e.step_tokens_in or 0) != e.tokens_in
]
runs = []
for run in Run.objects.all():
    own = run.episodes.aggregate(
        done=Count("id", filter=Q(status="finished")), failed=Count("id", filter=Q(status="failed")),
        score_sum=Sum("score", filter=Q(status="finished"), default=0.0),
        score_sq_sum=Sum(F("score") * F("score"), filter=Q(status="finished"), default=0.0),
        steps=Sum("num_steps", default=0),
        illegal=Sum("illegal_steps", default=0), tokens_in=Sum("tokens_in", default=0),
        tokens_out=Sum("tokens_out", default=0),
    )
    spent_in = run.episodes.aggregate(t=Sum("steps__tokens_in", default=0))["t"]
    stored = {
        "done": run.episodes_done, "failed": run.episodes_failed, "score_sum": run.score_sum,
        "score_sq_sum": run.score_sq_sum, "steps": run.steps_total,
        "illegal": run.illegal_total, "tokens_in": run.tokens_in, "tokens_out": run.tokens_out,
    }
    if any(abs(stored[k] - own[k]) > 1e-6 for k in own) or run.tokens_spent_in != spent_in or run.status != "finished":
        runs.append({"run": run.pk, "status": run.status, "stored": stored, "sums": own, "spent_in": run.tokens_spent_in})
print(json.dumps({
    "statuses": dict(Episode.objects.values_list("status").annotate(n=Count("id")).order_by()),
    "errors": sorted(set(Episode.objects.exclude(error="").values_list("error", flat=True)))[:5],
    "bad_steps": bad_steps[:10],
    "runs_off": runs[:5],
    "model_tokens": Run.objects.filter(submission__kind="model").aggregate(t=Sum("tokens_spent_in"))["t"],
}))
"""


def test_two_workers_play_hundreds_of_episodes_on_postgres_without_a_deadlock(postgres, scaled_environment):
    environment = scaled_environment
    deadlocks_before = postgres.deadlocks_detected()
    seed = ["seed_baselines", "--episodes", str(BASELINE_EPISODES_PER_RUN)]
    manage(environment, *seed, *(argument for task in QUICK_TASKS for argument in ("--task", task)))
    logs = [Path(environment["ARENA_VAR_DIR"]) / f"worker-{n}.log" for n in range(WORKERS)]
    with FakeOpenAIServer(default_action="up") as model, contextlib.ExitStack() as open_logs:
        manage(environment, script=CREATE_MODEL_RUN.format(base_url=model.base_url, episodes=MODEL_EPISODES))
        workers = [
            subprocess.Popen(
                [sys.executable, "-c", WORKER], cwd=ROOT, env=environment,
                stdout=subprocess.DEVNULL, stderr=open_logs.enter_context(log.open("w")),
            )
            for log in logs
        ]
        try:
            for worker in workers:
                worker.wait(timeout=WORKERS_TIMEOUT_SECONDS)
        finally:
            for worker in workers:
                if worker.poll() is None:
                    worker.kill()
                    worker.wait()
    worker_logs = "\n".join(log.read_text() for log in logs)
    figures = json.loads(manage(environment, script=FIGURES).strip().splitlines()[-1])

    assert all(worker.returncode == 0 for worker in workers), worker_logs[-3000:]
    total = sum(figures["statuses"].values())
    assert total >= 300, figures["statuses"]
    assert figures["statuses"] == {"finished": total}, figures["errors"]
    assert figures["bad_steps"] == [], "episodes with missing or repeated step indices"
    assert figures["runs_off"] == [], "run aggregates that differ from the sums over their episodes"
    assert figures["model_tokens"] > 0, "the model run's steps carried no tokens"
    assert postgres.deadlocks_detected() == deadlocks_before, postgres.log_tail()
    assert "deadlock" not in worker_logs.lower(), worker_logs[-3000:]


# Another session takes the second episode's row, then the first's: the reverse of the
# step writer's order. The step writer, waiting first, finds the deadlock and is aborted
# (the other session's deadlock_timeout is longer); its batch must be run again and
# stored whole, and say so in the log.
DEADLOCK = """
import django, json, logging, threading, time
django.setup()
import psycopg
from django.conf import settings
from arena.services.episodes import episode_claim
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission, submission_create
from arena.models import Step
from arena.services.steps import StepRecord, steps_record

aborted = []
class Remember(logging.Handler):
    def emit(self, record):
        aborted.append(record.getMessage())
logging.getLogger("arena.runtime.dbretry").addHandler(Remember())

baseline = baseline_submission("random", "Random")
run = run_create(baseline, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=2))
first, second = run.episodes.order_by("pk").values_list("pk", flat=True)
for episode_id in (first, second):
    assert episode_claim(episode_id, "w")

database = settings.DATABASES["default"]
def session(autocommit):
    return psycopg.connect(
        host=database["HOST"], port=database["PORT"], user=database["USER"], password=database["PASSWORD"],
        dbname=database["NAME"], autocommit=autocommit,
    )
other, watcher = session(autocommit=False), session(autocommit=True)
other.execute("SET deadlock_timeout = '10s'")
touch = "UPDATE arena_episode SET error = error WHERE id = %s"
other.execute(touch, [second])

def reversed_order():
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        waiting = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        ).fetchone()[0]
        if waiting:
            break
        time.sleep(0.01)
    other.execute(touch, [first])
    time.sleep(0.3)
    other.commit()

thread = threading.Thread(target=reversed_order)
thread.start()
record = lambda: StepRecord(
    index=0, observation_text="obs", observation_image=None, prompt_added=[], completion="Action: up",
    reasoning="", parsed_action="up", executed_action="up", legal=True, reward=0.0, done=False,
    end_reason="", tokens_in=7, tokens_out=1, latency_ms=5.0, error="",
)
results = steps_record([(second, "w", record()), (first, "w", record())])
thread.join()
run.refresh_from_db()
print(json.dumps({
    "results": [r if isinstance(r, bool) else str(r) for r in results],
    "steps": sorted(Step.objects.values_list("episode_id", flat=True)) == sorted([first, second]),
    "tokens_spent_in": run.tokens_spent_in,
    "retries": aborted,
}))
"""


def test_a_step_batch_aborted_by_a_real_deadlock_is_stored_on_a_retry(postgres, tmp_path):
    environment = environment_of(postgres.create_database("deadlock", copy_of="migrated"), tmp_path, ARENA_QUEUE="memory")
    deadlocks_before = postgres.deadlocks_detected()

    outcome = json.loads(manage(environment, script=DEADLOCK).strip().splitlines()[-1])

    assert postgres.deadlocks_detected() == deadlocks_before + 1
    assert outcome["results"] == [True, True] and outcome["steps"]
    assert outcome["tokens_spent_in"] == 14, "the retried batch counted its tokens once"
    assert len(outcome["retries"]) == 1 and "(deadlock); running it again" in outcome["retries"][0]


# The boards read runs through leaderboard.selectors.lean_runs.lean_runs, which casts the JSON
# fields to text in SQL and decodes them itself: on PostgreSQL (jsonb) as on SQLite, every
# field must equal the ORM's and the front page must render.
LEAN_RUNS_ON_POSTGRES = """
import django, json, re
django.setup()
from django.test import Client
from arena.models import Run, Submission
from leaderboard.selectors.lean_runs import LEAN_DEFERRED, lean_runs

orm = {run.pk: run for run in Run.objects.order_by("id")}
lean = lean_runs(Run.objects.order_by("id"))
names = [f.attname for f in Run._meta.concrete_fields]
differing = [(run.pk, name) for run in lean for name in names if getattr(run, name) != getattr(orm[run.pk], name)]
page = Client().get("/")
rows = re.findall(r"<tr.*?</tr>", page.content.decode(), re.S)
named = sorted(s.name for s in Submission.objects.all() if any(f">{s.name}<" in row for row in rows))
print(json.dumps({"runs": len(lean), "differing": differing[:5], "front_page": page.status_code,
                  "named": named, "submissions": Submission.objects.count()}))
"""


def test_the_boards_lean_read_of_runs_is_the_orms_on_postgres(postgres, tmp_path):
    from bench.read_pages import BUILD

    environment = environment_of(postgres.create_database("lean", copy_of="migrated"), tmp_path, ARENA_PAGE_CACHE="0")
    subprocess.run([sys.executable, "-c", BUILD, "600", "2", "3"], cwd=ROOT, env=environment, check=True,
                   capture_output=True, timeout=120)
    figures = json.loads(manage(environment, script=LEAN_RUNS_ON_POSTGRES).strip().splitlines()[-1])
    assert figures["runs"] == 12 and figures["differing"] == []
    # The front page is one overall table, a row per submission (the two baselines and
    # the two models, the custom-settings models listed apart): each has its row.
    assert figures["front_page"] == 200
    assert figures["submissions"] == 4 and len(figures["named"]) == 4, figures["named"]
