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

The answer conventions and the reading of a reply are BALROG's agents'
(`arena.strategies.answers`): naive (the action alone), chain of thought (reason, then
the action after "ACTION:"), and the robust variants (the action between explicit
markers); the lenient reading is a labelled option. Earlier replies come back as the
action that was read from them; with (non-robust) chain of thought the latest reply
comes back whole under a "plan" header (BALROG keeps one reasoning in context), and
every reply does when the submission keeps its reasoning.

BALROG keeps its history as a queue of 2 × 16 events (observations and actions): once
an episode is longer than the window, the oldest event kept is the action taken on the
observation just before the window, which BALROG sends as an assistant message right
after the instruction prompt. The arena does the same.

`rebuild_messages` rebuilds the exact messages of any step from the episode's prefix and
its stored steps (a test checks they equal what was sent).
"""

from __future__ import annotations

from arena.strategies import tokens
from arena.strategies.answers import (  # noqa: F401 (the conventions are part of this protocol's interface)
    COT_ANSWER,
    NAIVE_ANSWER,
    NO_ACTION_READ,
    ROBUST_ANSWER,
    ROBUST_COT_ANSWER,
    answer_convention,
    read_answer,
    read_answer_leniently,
)
from arena.strategies.base import ContentConverter, ImageStore
from arena.strategies.context import ContextBudget, Prompt, oldest_to_drop
from arena.variant import Variant

MESSAGE_OVERHEAD_TOKENS = 5
IMAGE_TOKENS = 765  # what one image costs at most with the common providers

OBSERVATION_HEADER = "Observation:"
CURRENT_HEADER = "Current Observation:"
IMAGE_NOTE = "An image of the current observation is attached."
PLAN_HEADER = "Your earlier plan:"

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


def reply_in_history(completion: str, action: str | None, *, whole: bool, plan: bool = False) -> str:
    """What an earlier reply becomes in the history: the action read from it, or the
    whole reply (every reply when kept; the latest chain-of-thought reply, under the
    plan header, as BALROG shows it)."""
    if not whole:
        return action or ""
    return f"{PLAN_HEADER}\n{completion.strip()}" if plan else completion


def _shows_plan(position: int, last_reply: int, *, chain_of_thought: bool, markers: bool) -> bool:
    # BALROG's chain-of-thought agent keeps its latest reasoning; the robust one keeps none.
    return chain_of_thought and not markers and position == last_reply


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
        self.lenient = variant.lenient_parsing
        self.convention = answer_convention(chain_of_thought=self.chain_of_thought, markers=self.markers)
        self._instructions = ""
        # One entry per observation: [its stored parts, the completion, the action read].
        self._turns: list[list] = []
        self._images: ImageStore | None = None
        self._converter: ContentConverter | None = None
        # The token estimates of the texts the latest prompt held: the instructions and
        # a window of past turns come back at every step, estimated once each.
        self._token_counts: dict[str, int] = {}

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

    def _reply(self, position: int, last_reply: int, completion: str, action: str | None) -> str:
        plan = _shows_plan(position, last_reply, chain_of_thought=self.chain_of_thought, markers=self.markers)
        return reply_in_history(completion or "", action, whole=self.keep_reasoning or plan, plan=plan and not self.keep_reasoning)

    def messages(self, prompt_added: list, budget: ContextBudget | None = None) -> Prompt:
        """The step's conversation, its oldest observations left out first when the
        context window cannot hold them all (the instructions and the current
        observation always stay)."""
        window = self._turns[-self.history_window:]
        past, current = window[:-1], window[-1]
        last_reply = len(past) - 1
        past_messages = []
        for position, (parts, completion, action) in enumerate(past):
            past_messages.append((history_turn(parts), self._reply(position, last_reply, completion, action)))
        # BALROG's queue still holds the action taken just before the window.
        orphan = self._turns[-self.history_window - 1][2] if len(self._turns) > self.history_window else None
        current_content = current_turn(current[0], self.convention)
        known, counts = self._token_counts, {}

        def text_tokens(text: str) -> int:
            count = known.get(text)
            if count is None:
                count = tokens.text_tokens(text)
            counts[text] = count
            return count

        fixed = text_tokens(self._instructions) + _content_tokens(current_content) + 4 * MESSAGE_OVERHEAD_TOKENS
        if orphan is not None:
            fixed += text_tokens(orphan) + MESSAGE_OVERHEAD_TOKENS
        sizes = [text_tokens(u) + text_tokens(r) + 2 * MESSAGE_OVERHEAD_TOKENS for u, r in past_messages]
        self._token_counts = counts
        dropped = oldest_to_drop(fixed, sizes, budget, keep_last=0)
        messages = [{"role": "user", "content": self._instructions}]
        if orphan is not None and dropped == 0:
            messages.append({"role": "assistant", "content": orphan or ""})
        for user, reply in past_messages[dropped:]:
            messages.append({"role": "user", "content": user})
            messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": _flatten(self._converter.convert(current_content))})
        return Prompt(messages, fixed + sum(sizes[dropped:]), dropped, frozen_chars=len(self._instructions))

    def parse(self, completion: str) -> tuple[str | None, str]:
        read = read_answer_leniently if self.lenient else read_answer
        action = read(completion, chain_of_thought=self.chain_of_thought, markers=self.markers)
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
    if len(steps) > history_window and dropped == 0:
        messages.append({"role": "assistant", "content": list(steps)[-history_window - 1].parsed_action or ""})
    for position, step in enumerate(past):
        if position < dropped:
            continue
        plan = _shows_plan(position, last_reply, chain_of_thought=chain_of_thought, markers=markers)
        reply = reply_in_history(
            step.completion or "", step.parsed_action, whole=keep_reasoning or plan, plan=plan and not keep_reasoning
        )
        messages.append({"role": "user", "content": history_turn(step.prompt_added)})
        messages.append({"role": "assistant", "content": reply})
    messages.append({"role": "user", "content": _flatten(current_turn(current.prompt_added, convention))})
    return messages
