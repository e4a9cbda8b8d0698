"""The four scenarios of TextAtari §2.2 and App. D.1 and the instructions they give.

All four share the header of the Basic scenario — an expert player answering in JSON,
the game's synopsis and goal, the numbered list of legal actions (names only, as the
paper's Basic header gives them) and the answer format — which becomes the chat's
system prompt. They differ only in what is added to it, or done to the observations:

- basic: nothing;
- obscured: every noun of the game's dictionary and every proper name of its things
  ("Ms. Pac-Man", the ghosts' names, "Q*bert") in the observations is replaced by
  "item" (numbers, coordinates, colours, scores and the header stay as they are);
- manual: the game's manual summary (≤ 300 tokens, written for this suite) follows the
  header;
- reference: an expert trajectory follows the header, once, before play: every 10th
  state–action pair of the expert's whole episode, each state rendered by the same
  verbaliser, spread evenly over the episode (its first and last pairs kept) and as
  many as fit in a block of 400 tokens. The expert is the suite's planner
  (envs.textatari.expert), not the paper's PPO agent; its episodes and scores are
  shipped in data/reference_trajectories.json.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from envs.textatari.text import estimate_tokens
from envs.textatari.verbaliser import GameVerbaliser, state_text

BASIC, OBSCURED, MANUAL, REFERENCE = "basic", "obscured", "manual", "reference"
SCENARIOS = (BASIC, OBSCURED, MANUAL, REFERENCE)

MANUAL_TOKEN_LIMIT = 300  # §2.2, App. D.1: a manual summary is at most 300 tokens
REFERENCE_TOKEN_LIMIT = 400  # §2.2: the trajectory block's length in tokens
REFERENCE_EVERY = 10  # §2.2: one state–action pair in ten is kept
# A state inside the reference block is cut shorter than a live observation, so that
# the block holds several of them.
REFERENCE_STATE_TOKENS = 110
# The expert episode behind every reference block: one seed, kept apart from the
# integers the arena gives evaluation episodes.
REFERENCE_SEED = 1_000_000
REFERENCE_MAX_STEPS = 1000
REFERENCE_PATH = Path(__file__).resolve().parent / "data" / "reference_trajectories.json"

# The Basic agent's answer (App. D.1–D.2): one valid action identifier, in JSON, and
# no abstaining. Nothing about reasoning: the CoT agents add their own request
# (envs.textatari.agents.COT_REQUEST).
ANSWER_FORMAT = (
    'Suggest one valid action by its number, as JSON, for example {"action": 2}. You must choose one of the '
    "actions listed; you may not skip a turn or play anything that is not listed."
)


def action_list(actions) -> str:
    """The legal actions, numbered from 1 (§3.2: a numbered list of legal actions; what
    each does is not explained, as in the paper's Basic header)."""
    return "\n".join(f"{number}. {name}" for number, name in enumerate(actions, 1))


def header(verbaliser: GameVerbaliser, actions) -> str:
    """The Basic scenario's system prompt (§3.2, App. D.1): an expert player answering in
    JSON, the game's synopsis and goal, the numbered actions, the answer format."""
    return (
        "You are an expert player of games, and your whole reply is JSON. You are in a game: "
        f"{verbaliser.title}. {verbaliser.synopsis} {verbaliser.goal}\n\n"
        f"The actions:\n{action_list(actions)}\n\n{ANSWER_FORMAT}"
    )


def instructions(verbaliser: GameVerbaliser, scenario: str) -> str:
    """The system prompt of an episode in `scenario`."""
    text = header(verbaliser, verbaliser.actions())
    if scenario == MANUAL:
        text += (
            "\n\nHere is the manual of this game. Read it carefully and take in what it says and the ways of "
            f"playing it suggests:\n\n{verbaliser.manual.strip()}"
        )
    elif scenario == REFERENCE:
        text += (
            "\n\nHere is a trajectory of this game played by an expert agent. Read it carefully and draw on it "
            f"when you decide during play:\n\n{reference_block(type(verbaliser))}"
        )
    return text


def play_reference_episode(game: str) -> dict:
    """The expert's whole episode behind a game's reference block (§2.2: one full
    evaluation episode of the expert, every 10th state–action pair kept): the task's
    expert baseline (envs.textatari.expert, held between its replanning steps as the
    baseline plays it) over REFERENCE_MAX_STEPS steps or until the game ends, from
    REFERENCE_SEED. Every 10th state is the translator's text of the state the expert
    acted in, cut to REFERENCE_STATE_TOKENS. Minutes of emulation per game, so
    bench/textatari_reference_trajectories.py plays it once and ships the result
    (data/reference_trajectories.json)."""
    from envs.registry import make

    task = make(f"textatari/{game}", max_steps=REFERENCE_MAX_STEPS)
    task.reset(REFERENCE_SEED)
    pairs = []
    try:
        while not task.done:
            action = task.expert_action()
            if task.steps_taken % REFERENCE_EVERY == 0:
                pairs.append([task.steps_taken, state_text(task._describe(), REFERENCE_STATE_TOKENS), action])
            task.step(action)
        return {"seed": REFERENCE_SEED, "steps": task.steps_taken, "score": task.score,
                "game_over": task.steps_taken < REFERENCE_MAX_STEPS, "pairs": pairs}
    finally:
        task.close()


@functools.cache
def reference_episodes() -> dict[str, dict]:
    if not REFERENCE_PATH.exists():
        return {}
    return json.loads(REFERENCE_PATH.read_text(encoding="utf-8"))["games"]


def reference_episode(game: str) -> dict:
    """The shipped expert episode of a game, or (for a game not shipped) one played now."""
    return reference_episodes().get(game) or play_reference_episode(game)


def evenly_spaced(count: int, keep: int) -> list[int]:
    """`keep` indices of range(count) spread over all of it, the first and last included."""
    if keep >= count:
        return list(range(count))
    if keep == 1:
        return [0]
    return sorted({round(i * (count - 1) / (keep - 1)) for i in range(keep)})


def block_text(pairs: list) -> str:
    return "[" + "; ".join(f"{state} -> {action}" for _, state, action in pairs) + "]"


def pair_tokens(pair) -> int:
    """A pair's share of its block's token estimate: its state, " -> " (two pieces), its
    action, and the "; " or bracket after it. The separators are pieces of their own, so
    a block's estimate is the sum of its pairs' shares plus its opening bracket."""
    _, state, action = pair
    return estimate_tokens(state) + 2 + estimate_tokens(action) + 1


def reference_pairs(game: str) -> list:
    """The pairs of the reference block: every 10th step of the expert's whole episode,
    spread evenly over it (first and last kept) and as many as fit in 400 tokens."""
    return list(_reference_pairs(game))


@functools.lru_cache(maxsize=None)
def _reference_pairs(game: str) -> tuple:
    pairs = reference_episode(game)["pairs"]
    # Each pair's share estimated once, not once per candidate block (the suite page
    # asked for every game's block: 1.3 s of estimates a game).
    shares = [pair_tokens(pair) for pair in pairs]
    # No block of `keep` pairs costs less than the `keep` cheapest shares: larger blocks
    # cannot fit, so the search starts at the largest that might.
    cheapest, start = 1, 0
    for share in sorted(shares):
        if cheapest + share > REFERENCE_TOKEN_LIMIT:
            break
        cheapest, start = cheapest + share, start + 1
    for keep in range(start, 0, -1):
        indices = evenly_spaced(len(pairs), keep)
        if 1 + sum(shares[index] for index in indices) <= REFERENCE_TOKEN_LIMIT:
            return tuple(pairs[index] for index in indices)
    return ()


@functools.lru_cache(maxsize=None)
def reference_block(verbaliser_cls: type[GameVerbaliser]) -> str:
    """The expert trajectory of the reference scenario: "[state -> action; …]"."""
    return block_text(reference_pairs(verbaliser_cls.game))


def reference_coverage(game: str) -> dict:
    """What the block shows of the expert's episode, for the suite page and the report."""
    episode = reference_episode(game)
    chosen = reference_pairs(game)
    return {
        "episode_steps": episode["steps"], "expert_score": episode["score"], "sampled": len(episode["pairs"]),
        "shown": len(chosen), "shown_steps": [step for step, _, _ in chosen],
    }
