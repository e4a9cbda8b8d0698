"""BALROG's observation-history protocol (BALROG §3, "Zero-shot evaluation protocol").

The conversation of one step is:

1. a user message with the environment's instruction prompt (rules and the action list
   with what each action does) — a user message, not a system one, as in BALROG;
2. for each of the last `history_window` observations (BALROG: 16) but the current one,
   a user message "Observation:" with its long-term text, followed by an assistant
   message with what the agent answered to it;
3. the current observation: "Current Observation:", the short-term context (status,
   inventory: shown here only, never kept in the history), the long-term text, in VLM
   mode the current image (the only image sent), and the agent's answer convention.

The answer conventions are BALROG's agents: naive (the action alone), chain of thought
(reason, then the action after "ACTION:"), and the robust variants for models that do
not follow instructions well (the action between explicit markers). Earlier replies
come back as the action that was read from them; with chain of thought the latest
reply comes back whole (BALROG keeps one reasoning in context), and every reply does
when the submission keeps its reasoning.

`rebuild_messages` rebuilds the exact messages of any step from the episode's prefix and
its stored steps (a test checks they equal what was sent).
"""

from __future__ import annotations

import re

from arena import tokens
from arena.strategies.base import ContentConverter, ImageStore
from arena.strategies.context import ContextBudget, Prompt, oldest_to_drop
from arena.variant import Variant

MESSAGE_OVERHEAD_TOKENS = 5
IMAGE_TOKENS = 765  # what one image costs at most with the common providers

OBSERVATION_HEADER = "Observation:"
CURRENT_HEADER = "Current Observation:"
IMAGE_NOTE = "An image of the current observation is attached."

NAIVE_ANSWER = (
    "Answer with exactly one of the actions listed above and nothing else. Keep answering with an action "
    "at every step until the episode ends."
)
COT_ANSWER = (
    "Think step by step about what the best next action is. Then end your reply with the one action you "
    "choose, on its own line, written as: ACTION: <action>"
)
MARKER_OPEN, MARKER_CLOSE = "<|ACTION|>", "<|END|>"
ROBUST_ANSWER = (
    "Choose exactly one of the actions listed above and write it between the markers, like this:\n\n"
    f"{MARKER_OPEN}THE_ACTION{MARKER_CLOSE}\n\n"
    "Put nothing else in your reply: no explanation and no reasoning."
)
ROBUST_COT_ANSWER = (
    "Think step by step about what the best next action is. Then end your reply with the one action you "
    f"choose between the markers, like this: {MARKER_OPEN}THE_ACTION{MARKER_CLOSE}"
)

_MARKED = re.compile(re.escape(MARKER_OPEN) + r"(.*?)" + re.escape(MARKER_CLOSE), re.DOTALL)
_COT_LABEL = re.compile(r"ACTION\s*:", re.IGNORECASE)
_NOT_LETTERS = re.compile(r"[^A-Za-z\s:]")


def answer_convention(*, chain_of_thought: bool, markers: bool) -> str:
    """The request that closes the current turn (BALROG's four agents)."""
    if markers:
        return ROBUST_COT_ANSWER if chain_of_thought else ROBUST_ANSWER
    return COT_ANSWER if chain_of_thought else NAIVE_ANSWER


def read_answer(completion: str, *, chain_of_thought: bool, markers: bool) -> str:
    """The action in a reply, read the way BALROG's agents read it (BALROG §3): between
    the markers for the robust agents (the whole reply when they are missing); after the
    last "ACTION:" with chain of thought; for the naive agent the reply with everything
    but letters, spaces and colons removed. The environment then accepts it only if it
    is exactly one of its actions."""
    text = completion or ""
    if markers:
        found = _MARKED.findall(text)
        return found[-1].strip() if found else text.strip()
    if chain_of_thought:
        parts = _COT_LABEL.split(text)
        text = parts[-1] if len(parts) > 1 else text
        return _NOT_LETTERS.sub("", text).strip()
    return _NOT_LETTERS.sub("", text).strip()


def _observation_parts(observation, images: ImageStore | None) -> list[dict]:
    """What a step stores of its observation: the image, the long-term text and the
    short-term context, each tagged so the messages can be rebuilt."""
    parts: list[dict] = []
    if observation.image is not None and images is not None:
        parts.append({"type": "image", "sha": images.sha(observation), "section": "image"})
    if observation.text is not None:
        parts.append({"type": "text", "text": observation.text, "section": "observation"})
    if getattr(observation, "context", None):
        parts.append({"type": "text", "text": observation.context, "section": "context"})
    return parts


def _text_of(parts: list[dict], section: str) -> str:
    return "".join(p["text"] for p in parts if p["type"] == "text" and p.get("section") == section)


def history_turn(parts: list[dict]) -> str:
    """A past observation: its long-term text only (BALROG §3)."""
    body = _text_of(parts, "observation")
    return f"{OBSERVATION_HEADER}\n{body}" if body else OBSERVATION_HEADER


def current_turn(parts: list[dict], convention: str) -> list[dict]:
    """The current observation as message content parts (images stored as shas)."""
    lines = [CURRENT_HEADER]
    context = _text_of(parts, "context")
    if context:
        lines.append(context)
    body = _text_of(parts, "observation")
    if body:
        lines.append(body)
    images = [{"type": "image", "sha": p["sha"]} for p in parts if p["type"] == "image"]
    if images:
        lines.append(IMAGE_NOTE)
    text = "\n".join(lines) + "\n\n" + convention
    return [*images, {"type": "text", "text": text}]


def reply_in_history(completion: str, action: str | None, *, whole: bool) -> str:
    """What an earlier reply becomes in the history: the action read from it, or the
    whole reply (the latest chain-of-thought reply, or every reply when kept)."""
    return completion if whole else (action or "")


def _flatten(content: list[dict]):
    if all(part["type"] == "text" for part in content):
        return "".join(part["text"] for part in content)
    return content


class ObservationHistoryStrategy:
    """BALROG's prompt for one episode (see the module docstring)."""

    dropped_unit = "observations"
    demonstrations_capped = None

    def __init__(self, run, episode, reflections=()):
        self.run = run
        self.episode = episode
        variant = Variant.of(run)
        self.history_window = variant.history_window
        self.chain_of_thought = variant.chain_of_thought
        self.markers = variant.answer_markers
        self.keep_reasoning = variant.keep_reasoning
        self.convention = answer_convention(chain_of_thought=self.chain_of_thought, markers=self.markers)
        self._instructions = ""
        # One entry per observation: [its stored parts, the completion, the action read].
        self._turns: list[list] = []
        self._images: ImageStore | None = None
        self._converter: ContentConverter | None = None

    def begin(self, task, observation, images: ImageStore) -> tuple[list, list[int]]:
        self._images = images
        self._converter = ContentConverter(images)
        if task.chat_history_window is not None:
            self.history_window = task.chat_history_window
        self._instructions = task.instruction_prompt()
        return [{"type": "text", "text": self._instructions, "section": "instructions"}], []

    def prepare(self, index, observation, previous_action, legal) -> list:
        parts = _observation_parts(observation, self._images)
        self._turns.append([parts, None, None])
        return parts

    def _whole_reply(self, position: int, last_reply: int) -> bool:
        return self.keep_reasoning or (self.chain_of_thought and position == last_reply)

    def messages(self, prompt_added: list, budget: ContextBudget | None = None) -> Prompt:
        """The step's conversation, its oldest observations left out first when the
        context window cannot hold them all (the instructions and the current
        observation always stay)."""
        window = self._turns[-self.history_window:]
        past, current = window[:-1], window[-1]
        last_reply = len(past) - 1
        past_messages = []
        for position, (parts, completion, action) in enumerate(past):
            reply = reply_in_history(completion or "", action, whole=self._whole_reply(position, last_reply))
            past_messages.append((history_turn(parts), reply))
        current_content = current_turn(current[0], self.convention)
        fixed = tokens.text_tokens(self._instructions) + _content_tokens(current_content) + 4 * MESSAGE_OVERHEAD_TOKENS
        sizes = [tokens.text_tokens(u) + tokens.text_tokens(r) + 2 * MESSAGE_OVERHEAD_TOKENS for u, r in past_messages]
        dropped = oldest_to_drop(fixed, sizes, budget, keep_last=0)
        messages = [{"role": "user", "content": self._instructions}]
        for user, reply in past_messages[dropped:]:
            messages.append({"role": "user", "content": user})
            messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": _flatten(self._converter.convert(current_content))})
        return Prompt(messages, fixed + sum(sizes[dropped:]), dropped, frozen_chars=len(self._instructions))

    def parse(self, completion: str) -> tuple[str | None, str]:
        action = read_answer(completion, chain_of_thought=self.chain_of_thought, markers=self.markers)
        reasoning = completion.strip() if self.chain_of_thought else ""
        return action, reasoning

    def record(self, completion: str, action: str | None) -> None:
        if self._turns:
            self._turns[-1][1] = completion
            self._turns[-1][2] = action

    def forced_action(self, index: int) -> str | None:
        return None

    def conversation(self) -> list[dict] | None:
        return None  # BALROG has no reflection between episodes


def _content_tokens(content: list[dict]) -> int:
    return sum(tokens.text_tokens(p["text"]) if p["type"] == "text" else IMAGE_TOKENS for p in content)


def rebuild_messages(
    prefix: list, steps: list, history_window: int, *, chain_of_thought: bool = False, markers: bool = False,
    keep_reasoning: bool = False, dropped: int = 0,
) -> list[dict]:
    """The messages sent at the last of `steps` (objects with prompt_added, completion,
    parsed_action), images as {"type": "image", "sha"}; `dropped` is what that step
    recorded as left out to fit the context window."""
    instructions = "".join(p["text"] for p in prefix if p.get("section") == "instructions")
    convention = answer_convention(chain_of_thought=chain_of_thought, markers=markers)
    window = list(steps)[-history_window:]
    past, current = window[:-1], window[-1]
    last_reply = len(past) - 1
    messages = [{"role": "user", "content": instructions}]
    for position, step in enumerate(past):
        if position < dropped:
            continue
        whole = keep_reasoning or (chain_of_thought and position == last_reply)
        messages.append({"role": "user", "content": history_turn(step.prompt_added)})
        messages.append(
            {"role": "assistant", "content": reply_in_history(step.completion or "", step.parsed_action, whole=whole)}
        )
    messages.append({"role": "user", "content": _flatten(current_turn(current.prompt_added, convention))})
    return messages
