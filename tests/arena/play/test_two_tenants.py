"""Two tenants in one worker: a hostile endpoint never hurts an honest one (issue 15).

An honest model and two hostile endpoints — a model and a self-hosted agent answering
lone surrogates, NULs and control characters, negative and 10^20 token counts, JSON
nested 100,000 levels deep, replies of 4 MB and more — play at the same time in one
worker, their steps committed in the same batches. The honest submission finishes every
episode with the scores the same seeds give when it plays alone; the hostile episodes
end with clear reasons or illegal actions, and what they stored stays within its caps.
"""

import json

import pytest
from asgiref.sync import async_to_sync

from arena.services import steps as step_writes
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import submission_create
from arena.clients.replies import MAX_COMPLETION_CHARS, MAX_ERROR_CHARS, MAX_REASONING_CHARS
from arena.models import Episode, Step, Submission
from arena.play.worker import Worker
from tests.support.fake_openai import FakeOpenAIServer, Fault
from tests.support.fake_providers import FakeAgentServer

pytestmark = pytest.mark.django_db(transaction=True)

# Every submission plays the same runs: short games whose scores differ from seed to
# seed, and long ones that keep all three tenants playing at the same time.
RUNS = [("lmact/tictactoe", "ascii", 6, 40), ("lmact/gridworld", "ascii", 3, 7)]
DEEP_JSON = b"[" * 100_000 + b"]" * 100_000
FOUR_MB = 4_000_000  # just under the model clients' 4 MiB response cap


def openai_answer(text: str, usage: dict) -> bytes:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop\ud800"}
    return json.dumps({"id": "chatcmpl-hostile", "choices": [choice], "usage": usage}).encode()


# Used one per request, in order, by whichever hostile episode asks next; then the fakes
# answer like honest players again, so hostile episodes mix odd and ordinary steps.
HOSTILE_MODEL = [
    Fault.reply("Reasoning: \ud800\udfff\x00\nAction: a1 \ud800"),
    Fault.raw(openai_answer("Action: b2", {"prompt_tokens": -5, "completion_tokens": 10**20})),
    Fault.reply("\x1b[2J\x07\r\x08\x0bAction: \x1b[31mc3\x1b[0m", reasoning="\x00" * 1000),
    Fault.reply("x" * FOUR_MB + "\nAction: a1"),
    Fault.raw(DEEP_JSON),
    Fault.raw(openai_answer("Action: a3", {"prompt_tokens": 10**20, "completion_tokens": -1})),
    Fault.raw(DEEP_JSON),
    Fault.raw(DEEP_JSON),
    Fault.raw(DEEP_JSON),
    Fault.oversized(5_000_000),
    Fault.status(400, body={"error": {"message": "no \ud800 \x00 " + "\x1b" * 10_000}}),
]
HOSTILE_AGENT = [
    Fault.raw(DEEP_JSON),
    Fault.raw(b'{"action": "a1", "reasoning": ' + DEEP_JSON + b"}"),
    Fault.reply("a1 \ud800\x00", reasoning="\udfff" * 100_000),  # 600 KB of JSON escapes
    Fault.reply("\x1b[31m" * 100_000),
    Fault.oversized(FOUR_MB),  # beyond the agent client's 1 MiB cap
    Fault.status(500, body=DEEP_JSON),
]


def model_submission(name, base_url):
    fields = {
        "name": name, "base_url": base_url, "model": "fake-model", "max_tokens": 64,
        "show_legal_actions": True, "max_concurrent_requests": 8,
    }
    return submission_create(owner=None, fields=fields, api_key="sk-two-tenants-0123456789", runs=[])


def agent_submission():
    """An agent submission (its URL is set once its server runs, which needs the
    signing secret the arena makes for it)."""
    fields = {
        "name": "hostile agent", "base_url": "http://127.0.0.1:1/agent", "model": "", "provider": "agent",
        "max_concurrent_requests": 8,
    }
    return submission_create(owner=None, fields=fields, api_key="", runs=[])


def queue_runs(submission):
    for task, fmt, episodes, first_seed in RUNS:
        spec = RunSpec(task=task, format=fmt, num_episodes=episodes, first_seed=first_seed)
        run_create(submission, spec)
    return Episode.objects.filter(run__submission=submission)


def play_everything_queued():
    async_to_sync(Worker(concurrency=32, name="one-worker").serve)(until_idle=True)


def outcomes(episodes):
    """Per task and seed: how the episode went, move by move."""
    return {
        (episode.run.task, episode.seed): (
            episode.status,
            episode.score,
            list(episode.steps.order_by("index").values_list("executed_action", "legal", "reward")),
        )
        for episode in episodes.select_related("run")
    }


def test_a_hostile_endpoint_beside_an_honest_one_in_one_worker(allow_loopback, monkeypatch):
    with FakeOpenAIServer() as honest_server:
        alone = queue_runs(model_submission("honest, alone", honest_server.base_url))
        play_everything_queued()
        expected = outcomes(alone)
        assert {status for status, _, _ in expected.values()} == {Episode.FINISHED}
        assert len({score for _, score, _ in expected.values()}) > 1  # the seeds do differ

        batches = []
        store = step_writes.steps_record
        monkeypatch.setattr(step_writes, "steps_record", lambda batch: batches.append(batch) or store(batch))

        agent = agent_submission()
        with FakeOpenAIServer() as hostile_server, FakeAgentServer(secret=agent.new_agent_secret) as agent_server:
            hostile_server.enqueue(*HOSTILE_MODEL)
            agent_server.enqueue(*HOSTILE_AGENT)
            Submission.objects.filter(pk=agent.pk).update(base_url=agent_server.url)
            honest = queue_runs(model_submission("honest", honest_server.base_url))
            hostile = queue_runs(model_submission("hostile", hostile_server.base_url))
            hostile_agent = queue_runs(Submission.objects.get(pk=agent.pk))
            play_everything_queued()

    # The honest submission: every episode finished, exactly as when it played alone.
    assert outcomes(honest) == expected
    honest_ids = set(honest.values_list("id", flat=True))
    hostile_ids = set(hostile.values_list("id", flat=True)) | set(hostile_agent.values_list("id", flat=True))
    shared = [batch for batch in batches if {item[0] for item in batch} & honest_ids and {i[0] for i in batch} & hostile_ids]
    assert shared, "the honest and hostile steps never shared a batch"

    # The hostile ones: ended, with reasons a person can read, or with illegal actions.
    hostile_episodes = Episode.objects.filter(pk__in=hostile_ids)
    assert set(hostile_episodes.values_list("status", flat=True)) <= {Episode.FINISHED, Episode.FAILED}
    for episode in hostile_episodes.filter(status=Episode.FAILED):
        assert episode.error.startswith("model endpoint failed: "), episode.error
        assert "internal error" not in episode.error and "\x00" not in episode.error
    failures = " ".join(hostile.values_list("error", flat=True))
    assert "larger than the 4,194,304 byte limit" in failures and "HTTP 400" in failures

    steps = Step.objects.filter(episode_id__in=hostile_ids)
    for step in steps:
        assert len(step.completion) <= MAX_COMPLETION_CHARS and len(step.reasoning) <= MAX_REASONING_CHARS
        assert len(step.error) <= MAX_ERROR_CHARS
        assert step.tokens_in is None or 0 <= step.tokens_in < 2**31
        assert step.tokens_out is None or 0 <= step.tokens_out < 2**31
        assert all("completion" not in call or call["completion"] != step.completion for call in step.calls)
    deep = steps.filter(episode__in=hostile_agent, error="agent reply was JSON nested too deeply to read")
    assert deep.exists() and not deep.filter(legal=True).exists()
