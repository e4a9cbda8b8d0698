"""The LMAct prompt protocol (LMAct §2.3–2.4, App. B.3, Listings 1 and 2).

The prompt has two parts:

1. a *frozen prefix*, assembled once per episode and byte-identical at every step: a
   generic decision-making preamble (no task rules, §2.3) followed by the expert
   demonstration episodes, each step rendered as "Observation: … Action: …";
2. the *current situation*: a separator, the evaluation trajectory so far with the
   actions that were executed (§2.4 shows past actions), then optionally the list of
   legal actions and optionally a chain-of-thought request, and the required answer
   format.

The wording below is the arena's own; the structure, the information given and the
answer format are the reference's: "Reasoning: …" then "Action: …" under chain of
thought, otherwise the action alone (the keyword form "Action: …" is accepted too, and is
required when the legal actions cannot be listed, as for the cheetah's continuous
actions). With no demonstrations the closing instruction does not mention any. Parsing is
deliberately strict (§2.4): the text after the last "Action:", or a completion that is
exactly one of the step's legal actions, with surrounding whitespace removed; anything
else is an illegal action, and the task applies the paper's rule for it (a random legal
action in most tasks; the crossword ends the episode with −1).

Parts are plain dicts so they can be stored as JSON on the episode and steps:
{"type": "text", "text": str} or {"type": "image", "sha": str}; each trajectory part
carries "section": "trajectory", the per-step tail "section": "instructions". The exact
prompt of step k is prefix + every step's trajectory parts up to k + step k's tail
(see `rebuild_prompt`). The strategy that keeps one episode's prompt is
arena.strategies.lmact.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.strategies.base import ImageStore
from envs.core import Observation

PREAMBLE = (
    "You are an agent that learns to act from examples. Study the demonstrations below, "
    "work out the policy they follow, and apply that policy to a new situation.\n\n"
)
DEMONSTRATIONS_HEADER = "Demonstrations:\n\n"
# With no demonstration the preamble speaks of none (the reference has a zero-shot
# preamble of its own): the agent acts from the situation alone.
ZERO_SHOT_PREAMBLE = (
    "You are an agent acting in an environment. You are shown the situation you are in; "
    "decide the next action.\n\n"
)
SEPARATOR = "This is the situation you are in now:\n\n"
LEGAL_ACTIONS_HEADER = "\nThe legal actions in this situation are:\n"
ACTION_FORMAT_HEADER = "\nA legal action has this form:\n"
# The closing instruction (LMAct §2.3, Listing 2; the released code's wording for the
# cases the listing leaves out). It names the demonstrations only when there are some:
# the zero-shot prompt has none to point to.
CONTEXT_WITH_DEMONSTRATIONS = "Given the demonstrations and the situation above"
CONTEXT_ZERO_SHOT = "Given the situation above"
CHOOSE = "\n{context}, work out the next action"
CHOOSE_LEGAL = "\n{context}, work out the next action; make sure it is one of the legal actions"
# Without chain of thought the reference asks for the action alone: a completion that is
# exactly a legal action counts as that action, and "Action: ..." is accepted as well.
ALONE_LEGAL = ". Reply with that legal action alone, without any other text.\n"
ALONE = ". Reply with the action alone, without any other text, written exactly like the earlier actions.\n"
# When the legal actions cannot be listed (a continuous action space) a bare answer cannot
# be recognised, so the keyword form is required.
KEYWORD_ONLY = ". Reply with the action only, in exactly this format:\nAction: ...\n"
COT = (
    ". Reason step by step and explain your choice in a few words, then give the action. "
    "Reply in exactly this format:\n"
    "Reasoning: ...\n"
    "Action: ...\n"
)


def answer_instruction(*, demonstrations: bool, show_legal: bool, chain_of_thought: bool, listable: bool) -> str:
    """The closing instruction of a step's prompt (LMAct §2.3–2.4)."""
    context = CONTEXT_WITH_DEMONSTRATIONS if demonstrations else CONTEXT_ZERO_SHOT
    text = (CHOOSE_LEGAL if show_legal else CHOOSE).format(context=context)
    if chain_of_thought:
        return text + COT
    if not listable:
        return text + KEYWORD_ONLY
    return text + (ALONE_LEGAL if show_legal else ALONE)


# The longest closing instruction, for the context-window reserve.
ANSWER_COT_LEGAL = answer_instruction(demonstrations=True, show_legal=True, chain_of_thought=True, listable=True)

ACTION_KEYWORD = "Action:"
# Demonstrations fill at most this share of the window by the tokenizer-free estimate:
# real tokenizers count up to ~20 % more tokens on boards and rare words.
DENSE_TOKENIZER_MARGIN = 0.8
# Replaces the oldest steps of the evaluation trajectory when the whole of it would not
# fit the model's context window (the preamble and demonstrations always stay).
OMITTED_STEPS = "[The first {count} steps of this episode are left out here to fit the model's context window.]\n"

Part = dict


def parse_action(completion: str, legal: Sequence[str] = ()) -> str | None:
    """The text after the last "Action:", stripped; without the keyword, the whole
    completion if, stripped, it is exactly one of `legal` (the reference's no-CoT answer is
    the action alone, LMAct §2.4); None otherwise."""
    position = completion.rfind(ACTION_KEYWORD)
    if position < 0:
        bare = completion.strip()
        return bare if bare and bare in legal else None
    return completion[position + len(ACTION_KEYWORD):].strip()


def parse_reasoning(completion: str) -> str:
    """What the model wrote before its final "Action:" (its chain of thought); nothing
    when there is no "Action:" (a bare action, or an answer the replay shows as the
    completion already — repeating it as reasoning would store it twice)."""
    position = completion.rfind(ACTION_KEYWORD)
    if position < 0:
        return ""
    head = completion[:position].strip()
    if head.startswith("Reasoning:"):
        head = head[len("Reasoning:"):].strip()
    return head


def _observation_parts(observation: Observation, images: ImageStore) -> list[Part]:
    if _has_image(observation):
        return [{"type": "text", "text": "Observation: "}, {"type": "image", "sha": images.sha(observation)}]
    text = observation.text or ""
    # Multi-line observations (grids, boards) start on their own line so they stay aligned.
    if "\n" in text:
        return [{"type": "text", "text": f"Observation:\n{text}\n"}]
    return [{"type": "text", "text": f"Observation: {text}"}]


def _has_image(observation) -> bool:
    # Pool observations keep their frame as PNG bytes (envs.demos.PackedObservation).
    return observation.png is not None or observation.image is not None


def _action_text(action: str, observation: Observation) -> str:
    multiline = not _has_image(observation) and "\n" in (observation.text or "")
    return f"Action: {action}\n" if multiline else f" Action: {action}\n"


def merge_text(parts: Sequence[Part]) -> list[Part]:
    """Join neighbouring text parts (fewer, larger parts; same bytes). Each run of text
    parts is joined once, so the cost is linear in the prompt, not in its square."""
    merged: list[Part] = []
    run: list[str] = []  # the texts that make up merged[-1] while it is a text part
    for part in parts:
        if part["type"] == "text" and merged and merged[-1]["type"] == "text" and merged[-1].get("section") == part.get(
            "section"
        ):
            run.append(part["text"])
            continue
        if len(run) > 1:
            merged[-1]["text"] = "".join(run)
        merged.append(dict(part))
        run = [part["text"]] if part["type"] == "text" else []
    if len(run) > 1:
        merged[-1]["text"] = "".join(run)
    return merged


def build_prefix(demonstrations, images: ImageStore) -> list[Part]:
    """Listing 1: preamble, then each demonstration episode, one blank line between;
    without demonstrations, the zero-shot preamble alone."""
    if not demonstrations:
        return [{"type": "text", "text": ZERO_SHOT_PREAMBLE}]
    parts: list[Part] = [{"type": "text", "text": PREAMBLE}]
    parts.append({"type": "text", "text": DEMONSTRATIONS_HEADER})
    for demonstration in demonstrations:
        for observation, action in demonstration.steps:
            parts.extend(_observation_parts(observation, images))
            parts.append({"type": "text", "text": _action_text(action, observation)})
        parts.append({"type": "text", "text": "\n"})
    return merge_text(parts)


class LMActPrompter:
    """Builds the per-step prompt additions for one episode."""

    def __init__(
        self, *, show_legal_actions: bool, chain_of_thought: bool, images: ImageStore, demonstrations: bool = True
    ):
        self.show_legal_actions = show_legal_actions
        self.chain_of_thought = chain_of_thought
        self.demonstrations = demonstrations
        self.images = images
        self._previous_observation: Observation | None = None
        # The closing text of the last legal actions seen: most games offer the same
        # actions step after step (the grid world's four moves), so it is built again
        # only when they change.
        self._tail: tuple[tuple, str] | None = None

    def trajectory_parts(self, index: int, observation: Observation, previous_action: str | None) -> list[Part]:
        """What step `index` appends to the trajectory: the action that led here, then
        the new observation (§2.4: "prepended with the action that produced it")."""
        parts: list[Part] = []
        if index == 0:
            parts.append({"type": "text", "text": SEPARATOR})
        elif previous_action is not None and self._previous_observation is not None:
            parts.append({"type": "text", "text": _action_text(previous_action, self._previous_observation)})
        parts.extend(_observation_parts(observation, self.images))
        self._previous_observation = observation
        return [{**part, "section": "trajectory"} for part in merge_text(parts)]

    def tail_parts(self, legal_actions: Sequence[str], action_format: str = "") -> list[Part]:
        key = (tuple(legal_actions), action_format)
        if self._tail is None or self._tail[0] != key:
            self._tail = (key, self._tail_text(legal_actions, action_format))
        return [{"type": "text", "text": self._tail[1], "section": "instructions"}]

    def _tail_text(self, legal_actions: Sequence[str], action_format: str) -> str:
        text = "\n"
        if self.show_legal_actions:
            if legal_actions:
                text += LEGAL_ACTIONS_HEADER + ", ".join(legal_actions) + "\n"
            elif action_format:
                # A continuous action space cannot be listed: say what an action looks like.
                text += ACTION_FORMAT_HEADER + action_format + "\n"
        answer = answer_instruction(
            demonstrations=self.demonstrations,
            show_legal=self.show_legal_actions,
            chain_of_thought=self.chain_of_thought,
            listable=bool(legal_actions),
        )
        return text + answer


def omitted_steps_part(count: int) -> Part:
    return {"type": "text", "text": OMITTED_STEPS.format(count=count), "section": "trajectory"}


def rebuild_prompt(prefix: Sequence[Part], steps_added: Sequence[Sequence[Part]], dropped_steps: int = 0) -> list[Part]:
    """The exact prompt of the last step in `steps_added` (each a step's prompt_added);
    `dropped_steps` is what that step recorded as left out to fit the context window."""
    parts: list[Part] = [dict(p) for p in prefix]
    if dropped_steps:
        parts.append({"type": "text", "text": SEPARATOR, "section": "trajectory"})
        parts.append(omitted_steps_part(dropped_steps))
        kept = steps_added[dropped_steps:]
    else:
        kept = steps_added
    for added in kept:
        parts.extend(p for p in added if p.get("section") == "trajectory")
    parts.extend(p for p in steps_added[-1] if p.get("section") == "instructions")
    return merge_text([{k: v for k, v in p.items() if k != "section"} for p in parts])
