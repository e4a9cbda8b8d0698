"""Prompt sizes and episode lengths per task and format, measured from the prompts the
arena really sends: the figures the submission preview estimates tokens from
(envs.measured: PromptSize per format, typical_steps). With --write they go to
envs/data/measured.json (the measured tasks' entries replaced, the others kept).

Each episode is played by the real runner (arena.play.runner.EpisodeRunner) with the real
strategy of its suite, on a throw-away database; only the model is replaced: a client
that records every prompt and answers with the task's random baseline's action (a
weak model that always answers in format, which is what most models are on these
tasks). The paper's protocol is used: no demonstrations, legal actions shown, history
window 16, naive answers.

Tokens are counted with the arena's tokenizer-free rule (arena.strategies.tokens.text_tokens,
within 0.8–1.5× of a real tokenizer) plus 5 tokens per message; images with OpenAI's
tile rule (arena.strategies.tokens.image_tokens). From the calls of every episode:

- first: tokens of the first call's prompt;
- per_step: tokens each earlier step adds while it is kept in the prompt, the
  least-squares slope of (tokens − first) over the number of earlier steps kept
  (all of them for LMAct's growing trajectory, the history window otherwise); where
  the random baseline's episodes end after one call (a crossword's wrong word), the
  tokens per step of the expert demonstrations instead;
- answer: tokens of the action text alone (a naive answer);
- per_demonstration (suites with demonstrations): arena.strategies.tokens.demonstration_tokens of
  expert episodes from the demonstration seeds, the size the LMAct strategy fits;
- steps: the mean episode length of the random baseline, and of the expert baseline
  where the random one ends before the step limit; the estimate takes the longer (a
  weak model wanders like the random agent, a strong one needs about the expert's
  steps, and the random agent of some games ends early by a choice models are not
  pushed to, such as AdventureGame's "done").

    .venv/bin/python bench/prompt_sizes.py [--episodes 3] [--task lmact/gridworld ...]
        [--per-option] [--without-expert] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MESSAGE_OVERHEAD_TOKENS = 5
DEMONSTRATIONS_MEASURED = 3


def setup_django(tmp: str) -> None:
    os.environ["ARENA_VAR_DIR"] = tmp
    os.environ["SQLITE_PATH"] = os.path.join(tmp, "bench.sqlite3")
    os.environ["ARENA_QUEUE"] = "memory"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def png_size(data_url: str) -> tuple[int, int]:
    header = base64.b64decode(data_url.split(",", 1)[1][:44])
    return struct.unpack(">II", header[16:24])


def prompt_tokens(messages: list[dict]) -> int:
    from arena.strategies.tokens import image_tokens, text_tokens

    total = 0
    for message in messages:
        total += MESSAGE_OVERHEAD_TOKENS
        content = message["content"]
        if isinstance(content, str):
            total += text_tokens(content)
            continue
        for part in content:
            if part["type"] == "text":
                total += text_tokens(part["text"])
            else:
                total += image_tokens(*png_size(part["image_url"]["url"]), "openai")
    return total


class RecordingClient:
    """Stands in for the provider client: keeps each prompt's size and answers with
    the action the measuring agent chose for this step."""

    def __init__(self):
        self.answer = ""
        self.calls: list[int] = []

    def set_timeout(self, seconds: float) -> None:
        return None

    async def complete(self, messages, max_tokens=None, frozen_chars=0):
        from arena.clients.base import ModelReply
        from arena.strategies.tokens import text_tokens

        size = prompt_tokens(messages)
        self.calls.append(size)
        return ModelReply(text=self.answer, tokens_in=size, tokens_out=text_tokens(self.answer))

    async def aclose(self) -> None:
        return None


def random_policy(task_cls, seed: int):
    from envs.core import RandomLegalPolicy, baselines_of

    for name, policy in baselines_of(task_cls).items():
        if name.startswith("random"):
            return policy(seed)
    return RandomLegalPolicy(seed)


def measuring_agent_factory(recorder: dict):
    from arena.play.agents.model import ModelAgent
    from envs.registry import get_task_class

    class MeasuringAgent(ModelAgent):
        def __init__(self, submission, run, episode, reflections=()):
            super().__init__(submission, run, episode, client=RecordingClient(), reflections=reflections)
            self.policy = random_policy(get_task_class(run.task), episode.seed)
            self.actions: list[str] = []
            recorder[episode.pk] = self

        async def decide(self, task, index, prompt_added):
            self.client.answer = self.policy.act(task)
            self.actions.append(self.client.answer)
            return await super().decide(task, index, prompt_added)

    return MeasuringAgent


def kept_steps(task_cls, step: int) -> int:
    from arena.web.preview import earlier_steps_in_prompt

    return earlier_steps_in_prompt(task_cls, history_window=16, step=step)


def measure(task_id: str, fmt: str, episodes: int, combinations: list[dict] | None = None) -> dict:
    from arena.services.runs import RunSpec, run_create
    from arena.services.submissions import submission_create
    from arena.play.runner import EpisodeRunner
    from arena.services.submissions import option_combinations
    from arena.strategies.tokens import text_tokens
    from envs.registry import get_task_class

    cls = get_task_class(task_id)
    submission = submission_create(
        owner=None, api_key="",
        fields={
            "name": f"measure {task_id}:{fmt}", "base_url": "http://127.0.0.1:9/v1", "model": "measure",
            "max_tokens": 256, "num_demonstrations": 0, "show_legal_actions": True, "chain_of_thought": False,
            "history_window": 16, "keep_reasoning": False, "context_window": 10_000_000,
        },
        runs=[],
    )
    # Tasks with swept options: one episode per combination, so the figures average
    # over what a submission plays.
    combinations = combinations or option_combinations(cls)
    seeds_per_run = episodes if len(combinations) == 1 else 1
    runs = [
        run_create(submission, RunSpec(task=task_id, format=fmt, num_episodes=seeds_per_run, options=combo))
        for combo in combinations
    ]
    recorder: dict = {}
    runner = EpisodeRunner("bench-prompt-sizes", agent_factory=measuring_agent_factory(recorder))
    for run in runs:
        for episode_id in run.episodes.order_by("index").values_list("id", flat=True):
            asyncio.run(runner.run(episode_id))
    firsts, slope_num, slope_den, lengths, answers = [], 0.0, 0.0, [], []
    for agent in recorder.values():
        calls = agent.client.calls
        if not calls:
            continue
        lengths.append(len(calls))
        firsts.append(calls[0])
        for step, size in enumerate(calls[1:], start=1):
            kept = kept_steps(cls, step)
            slope_num += kept * (size - calls[0])
            slope_den += kept * kept
        answers.extend(text_tokens(action) for action in agent.actions)
    return {
        "first": round(statistics.mean(firsts)),
        "per_step": round(slope_num / slope_den) if slope_den else None,
        "answer": round(statistics.mean(answers)),
        "steps": statistics.mean(lengths),
        "episodes": len(lengths),
    }


def expert_steps(task_id: str, fmt: str, episodes: int) -> float | None:
    """The expert baseline's mean episode length, None for tasks without one."""
    from envs.core import baselines_of, make_policy
    from envs.registry import get_task_class, make
    from arena.services.submissions import option_combinations

    cls = get_task_class(task_id)
    name = next((n for n in baselines_of(cls) if not n.startswith("random")), None)
    if name is None:
        return None
    lengths = []
    for combo in option_combinations(cls):
        for seed in range(episodes if len(option_combinations(cls)) == 1 else 1):
            task = make(task_id, fmt, **combo)
            policy = make_policy(cls, name, seed)
            try:
                task.reset(seed)
                while not task.done:
                    task.step(policy.act(task))
                lengths.append(task.steps_taken)
            finally:
                task.close()
    return statistics.mean(lengths)


def demonstration_size(task_id: str, fmt: str) -> tuple[int, int]:
    """Mean tokens of an expert demonstration episode, and tokens per step of them."""
    from arena.strategies.tokens import demonstration_tokens
    from envs.demos import DEMONSTRATION_SEED_BASE, play_expert_episode

    demonstrations = [play_expert_episode(task_id, fmt, DEMONSTRATION_SEED_BASE + i) for i in range(DEMONSTRATIONS_MEASURED)]
    sizes = [demonstration_tokens(demonstration, "openai") for demonstration in demonstrations]
    steps = sum(len(demonstration.steps) for demonstration in demonstrations)
    return round(statistics.mean(sizes)), round(sum(sizes) / steps)


def measure_per_option(task_id: str, fmt: str, episodes: int) -> tuple[dict, list[tuple[str, dict]]]:
    """The figures of each combination of the task's swept options, each over
    `episodes` episodes, and their mean (what a submission, which plays them all, sees)."""
    from arena.services.submissions import option_combinations
    from envs.registry import get_task_class

    lines = []
    for combo in option_combinations(get_task_class(task_id)):
        label = ", ".join(f"{name}={value}" for name, value in combo.items())
        lines.append((label, measure(task_id, fmt, episodes, [combo])))
    each = [figures for _, figures in lines]
    slopes = [figures["per_step"] for figures in each if figures["per_step"] is not None]
    overall = {
        "first": round(statistics.mean(f["first"] for f in each)),
        "per_step": round(statistics.mean(slopes)) if slopes else None,
        "answer": round(statistics.mean(f["answer"] for f in each)),
        "steps": statistics.mean(f["steps"] for f in each),
        "episodes": sum(f["episodes"] for f in each),
    }
    return overall, lines


def typical_steps(random_steps: float, expert: float | None, measured_expert: bool) -> float | None:
    """The episode length the preview plays: None (the run's step limit) where the
    random baseline played every episode to the limit or the expert was not measured;
    else the longer of the random and the expert baseline's mean."""
    if not measured_expert:
        return None
    return max(random_steps, expert or 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=3, help="episodes per task and format (per option combination: 1)")
    parser.add_argument("--task", action="append", help="only these tasks (repeatable)")
    parser.add_argument(
        "--per-option", action="store_true",
        help="measure each combination of the task's swept options (e.g. TextAtari's scenarios) over --episodes "
        "episodes and print it on a line of its own; the task's line is then their mean",
    )
    parser.add_argument(
        "--without-expert", action="store_true",
        help="do not measure the expert's episode length (slow planners); the estimate then uses the step limit",
    )
    parser.add_argument(
        "--write", action="store_true",
        help="record the measured tasks' figures in envs/data/measured.json (other tasks' entries are kept)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        setup_django(tmp)
        from arena.services.submissions import option_combinations
        from envs.measured import Measured, PromptSize, write_measured
        from envs.registry import all_tasks, suite_of

        recorded: dict[str, Measured] = {}

        print(f"{'task':36} {'format':16} {'first':>7} {'/step':>6} {'/demo':>7} {'answer':>6} {'steps':>7} "
              f"{'expert':>7} {'limit':>6} {'eps':>4} {'s':>6}")
        for task_id, cls in all_tasks().items():
            if args.task and task_id not in args.task:
                continue
            sizes, typical = {}, []
            for fmt in cls.formats:
                started = time.perf_counter()
                per_option = []
                if args.per_option and len(option_combinations(cls)) > 1:
                    figures, per_option = measure_per_option(task_id, fmt, args.episodes)
                else:
                    figures = measure(task_id, fmt, args.episodes)
                demo, demo_step = demonstration_size(task_id, fmt) if suite_of(task_id).demonstrations else (0, 0)
                if figures["per_step"] is None:
                    figures["per_step"] = demo_step
                measured_expert = not args.without_expert and figures["steps"] < cls.max_steps
                expert = expert_steps(task_id, fmt, args.episodes) if measured_expert else None
                expert_text = "-" if expert is None else f"{expert:.1f}"
                print(
                    f"{task_id:36} {fmt:16} {figures['first']:7d} {figures['per_step']:6d} {demo:7d} "
                    f"{figures['answer']:6d} {figures['steps']:7.1f} {expert_text:>7} {cls.max_steps:6d} {figures['episodes']:4d} "
                    f"{time.perf_counter() - started:6.1f}",
                    flush=True,
                )
                for label, each in per_option:
                    print(
                        f"  {label:34} {'':16} {each['first']:7d} {each['per_step'] or 0:6d} {'':7} "
                        f"{each['answer']:6d} {each['steps']:7.1f} {'':>7} {'':6} {each['episodes']:4d}",
                        flush=True,
                    )
                sizes[fmt] = PromptSize(figures["first"], figures["per_step"], figures["answer"], demo)
                typical.append(typical_steps(figures["steps"], expert, measured_expert))
            recorded[task_id] = Measured(sizes, None if None in typical else round(float(max(typical)), 1))
            if args.write:
                # After every task, so that an interrupted run keeps what it measured.
                write_measured({task_id: recorded[task_id]})


if __name__ == "__main__":
    main()
