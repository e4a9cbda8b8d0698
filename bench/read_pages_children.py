"""The code bench/read_pages.py runs in its child processes, each in the tree it
measures: BUILD writes the arena's rows in bulk, MEASURE asks the pages."""

# Runs in a child process of this tree: the rows, written in bulk.
BUILD = r'''
import random, sys, time
import django
django.setup()
from django.db import transaction
from arena.metrics import fold
from arena.services.runs import RunSpec, run_variant
from arena.services.submissions import baseline_submission
from arena.models import Episode, Run, Submission
from envs.registry import all_suites, tasks_of

episodes_wanted, model_count, task_count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
started = time.perf_counter()
draw = random.Random(7)
baselines = [baseline_submission(policy, title) for policy, title in (("random", "Random"), ("expert", "Expert"))]
models = Submission.objects.bulk_create(
    Submission(kind=Submission.KIND_MODEL, name=f"model {n}", base_url="http://model.invalid/v1", model=f"m{n}",
               chain_of_thought=n % 2 == 1, price_input_per_mtok=1, price_output_per_mtok=2)
    for n in range(model_count)
)
submissions = baselines + models
# The suites' tasks taken in turn (one of each suite, then the next of each, …), the
# task page's task first, so a few tasks still span the suites.
by_suite = [list(tasks_of(suite.id).items()) for suite in all_suites().values()]
tasks = [by_suite[s][i] for i in range(max(map(len, by_suite))) for s in range(len(by_suite)) if i < len(by_suite[s])]
tasks.sort(key=lambda item: item[0] != "lmact/tictactoe")
tasks = tasks[:task_count] if task_count else tasks
specs = [(submission, task_id, cls, cls.formats[0]) for submission in submissions for task_id, cls in tasks]
per_run = -(-episodes_wanted // len(specs))


def episode_metrics(suite, cls):
    """Every per-episode value the suite's metrics and the task's breakdown fold."""
    metrics = {}
    for metric in suite.metrics:
        if metric.over:
            metrics[metric.over] = draw.random() < 0.7
        if metric.episode_metric:
            metrics[metric.episode_metric] = None if draw.random() < 0.05 else draw.uniform(0, 1)
    for key, _ in getattr(cls, "rate_breakdown", ()) or ():
        metrics[key] = draw.random() < 0.5
    return metrics


with transaction.atomic():
    runs = Run.objects.bulk_create(
        Run(submission=submission, task=task_id, num_episodes=per_run, status=Run.FINISHED,
            variant=run_variant(submission, RunSpec(task=task_id, format=fmt, num_episodes=per_run)))
        for submission, task_id, cls, fmt in specs
    )
    rows = []
    for run, (submission, task_id, cls, fmt) in zip(runs, specs):
        suite = all_suites()[task_id.split("/", 1)[0]]
        sums, score_sum, score_sq, steps, illegal, tokens_in, tokens_out = {}, 0.0, 0.0, 0, 0, 0, 0
        for index in range(per_run):
            score, played, wrong = draw.uniform(-1, 1), draw.randint(5, 60), draw.randint(0, 3)
            metrics = episode_metrics(suite, cls)
            sums = fold(sums, metrics)
            score_sum, score_sq, steps, illegal = score_sum + score, score_sq + score * score, steps + played, illegal + wrong
            tokens_in, tokens_out = tokens_in + 300 * played, tokens_out + 20 * played
            rows.append(Episode(run=run, index=index, seed=index, status=Episode.FINISHED, score=score,
                                num_steps=played, illegal_steps=wrong, tokens_in=300 * played, tokens_out=20 * played,
                                end_reason="step limit", metrics=metrics))
        run.episodes_done, run.score_sum, run.score_sq_sum = per_run, score_sum, score_sq
        run.steps_total, run.illegal_total, run.illegal_episodes = steps, illegal, per_run
        run.tokens_in = run.tokens_spent_in = tokens_in
        run.tokens_out = run.tokens_spent_out = tokens_out
        run.metric_sums = sums
    Episode.objects.bulk_create(rows, batch_size=2000)
    Run.objects.bulk_update(runs, ["episodes_done", "score_sum", "score_sq_sum", "steps_total", "illegal_total",
                                   "illegal_episodes", "tokens_in", "tokens_spent_in", "tokens_out", "tokens_spent_out",
                                   "metric_sums"], batch_size=500)
print(json.dumps({"episodes": Episode.objects.filter(status=Episode.FINISHED).count(), "runs": len(runs),
                  "submissions": len(submissions), "seconds": time.perf_counter() - started}))
'''.replace("import random, sys, time", "import json, random, sys, time")

# Runs in a child process of the tree measured: one client, page cache off.
MEASURE = r'''
import json, sys, time
import django
django.setup()
from django.test import Client

pages, count, serving_gc = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "serving"
compared = json.loads(sys.argv[4])
from arena.models import Episode, Run
first = Run.objects.filter(submission__kind="model").order_by("id")[0]
second = Run.objects.filter(submission__kind="model", task=first.task).exclude(submission=first.submission_id).order_by("id")[0]
ids = {"run": first.pk, "submission": first.submission_id, "other_submission": second.submission_id,
       "episode": first.episodes.order_by("index")[0].pk,
       "other_episode": Episode.objects.filter(run__task=first.task, index=0).exclude(run=first).order_by("id")[0].pk}
pages = [(name, path.format(**ids)) for name, path in pages]
changed_runs = list(Run.objects.filter(submission_id=ids["submission"]).order_by("id"))
# Above every index and seed written so far (the trees' children take turns on one database).
next_seed = [max(10**6, (Episode.objects.order_by("-index").values_list("index", flat=True).first() or 0) + 1)]


def change_every_run():
    """One more episode of each of a's runs ends as a worker ends one; the CPU it took, in ms."""
    from arena.services.episodes import episode_claim, episode_finish

    cpu_started = time.process_time()
    for run in changed_runs:
        episode = Episode.objects.create(run=run, index=next_seed[0], seed=next_seed[0])
        assert episode_claim(episode.pk, "bench")
        episode_finish(episode.pk, "bench", score=float(next_seed[0] % 3), end_reason="step limit")
    next_seed[0] += 1
    return (time.process_time() - cpu_started) * 1000


if serving_gc:
    # The collector as a web process sets it before its first request (a tree from
    # before arena.web.web_process has none: CPython's defaults).
    try:
        from arena.web.web_process import prepare_for_serving
    except ImportError:
        pass
    else:
        prepare_for_serving()
client = Client()
result = {}
for name, path in pages:
    for _ in range(2):
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code, response.content[:500])
    times, cpu, written = [], [], []
    for _ in range(count):
        if name == "compare submissions, after a change":
            written.append(change_every_run())
        started, cpu_started = time.perf_counter(), time.process_time()
        response = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
        assert response.status_code == 200
    result[name] = times
    result[name + " cpu"] = cpu
    if written:
        result[name + " write cpu"] = written
import hashlib
digests = {}
for path in compared:
    response = client.get(path)
    digests[path] = f"{response.status_code} {hashlib.sha256(response.content).hexdigest()}"
print(json.dumps({"times": result, "digests": digests}))
'''
