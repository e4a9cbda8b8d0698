"""Multi-turn chat strategy, for suites whose papers talk to the model in turns
(BALROG §3, AdventureGame §3.2, the infogather prompts of App. B).

The system message is the task's instructions (its rules and answer format). Each step
adds a user message with the observation (text, or an image in VLM mode) and, if asked
for, the legal actions; the model's reply becomes an assistant message. Only the last
`history_window` observations are kept (BALROG's default is 16), with the replies that
followed them. With chain of thought the model is asked to reason before answering;
`keep_reasoning` decides whether earlier replies are kept whole or reduced to the action
they contained.

The exact messages of step k can be rebuilt from the episode's prefix (the system part)
and the stored steps: see `rebuild_messages`.
"""

from __future__ import annotations

from arena.strategies import tokens
from arena.strategies.base import ContentConverter, ImageStore, as_message_content
from arena.strategies.context import ContextBudget, Prompt, oldest_to_drop
from arena.variant import Variant


# What a chat template adds around each message ("<|im_start|>user\n … <|im_end|>\n").
MESSAGE_OVERHEAD_TOKENS = 5


def _turn_tokens(content: list[dict], reply: str | None) -> int:
    size = 2 * MESSAGE_OVERHEAD_TOKENS
    for part in content:
        size += tokens.text_tokens(part["text"]) if part["type"] == "text" else 765  # an image, at most
    return size + (tokens.text_tokens(reply) if reply else 0)

COT_REQUEST = (
    "\n\nBefore answering, think step by step about the situation in a few sentences; "
    "then give your answer in exactly the format described above."
)
LEGAL_ACTIONS_HEADER = "\n\nAvailable actions:\n"


def _user_parts(observation, legal, show_legal: bool, images: ImageStore) -> list[dict]:
    parts: list[dict] = []
    if observation.image is not None:
        parts.append({"type": "image", "sha": images.sha(observation)})
    if observation.text is not None:
        parts.append({"type": "text", "text": observation.text})
    if show_legal and legal:
        parts.append({"type": "text", "text": LEGAL_ACTIONS_HEADER + ", ".join(legal)})
    return [{**part, "section": "user"} for part in parts]


REFLECTIONS_HEADER = "\n\nNotes you wrote after your earlier attempts at this game:\n"
EXAMPLES_HEADER = "\n\nExample games played by an expert (what it saw, then what it answered):\n"


def examples_text(demonstrations) -> str:
    """Few-shot demonstrations (BALROG few-shot; the suite's expert pool)."""
    if not demonstrations:
        return ""
    games = []
    for number, demonstration in enumerate(demonstrations, 1):
        turns = [f"[{observation.text}]\n=> {action}" for observation, action in demonstration.steps]
        games.append(f"Example {number}:\n" + "\n".join(turns))
    return EXAMPLES_HEADER + "\n\n".join(games)


def system_text(
    instructions: str, chain_of_thought: bool, reflections: list[str] = (), examples: str = "", task=None
) -> str:
    """The system message; a task may put its paper's own chain-of-thought request and
    label for the carried reflections in place of the arena's (Task.chat_cot_request)."""
    cot_request = getattr(task, "chat_cot_request", None) or COT_REQUEST
    reflections_header = getattr(task, "chat_reflections_header", None) or REFLECTIONS_HEADER
    text = instructions.strip() + examples
    if reflections:
        text += reflections_header + "\n".join(f"- {note}" for note in reflections)
    return text + (cot_request if chain_of_thought else "")


class ChatStrategy:
    # What `messages` drops first when the prompt outgrows the context window.
    dropped_unit = "turns"

    demonstrations_capped = None

    def __init__(self, run, episode, reflections=()):
        self.run = run
        self.episode = episode
        self.reflections = list(reflections)
        variant = Variant.of(run)
        self.num_demonstrations = variant.num_demonstrations
        self._demonstration_seeds: list[int] = []
        self.history_window = variant.history_window
        self.chain_of_thought = variant.chain_of_thought
        self.show_legal_actions = variant.show_legal_actions
        self.keep_reasoning = variant.keep_reasoning
        self._system = ""
        self._turns: list[list] = []  # [user content, assistant reply or None]
        # Set by `begin`: the task, the episode's images and the converter reading them.
        self._task = None
        self._images: ImageStore | None = None
        self._converter: ContentConverter | None = None
        self._opening = False

    def begin(self, task, observation, images: ImageStore) -> tuple[list, list[int]]:
        self._task = task
        self._images = images
        self._converter = ContentConverter(images)
        # What the paper fixes wins over the submission's settings.
        if task.chat_show_legal_actions is not None:
            self.show_legal_actions = task.chat_show_legal_actions
        if task.chat_history_window is not None:
            self.history_window = task.chat_history_window
        reflections = self.reflections
        examples = examples_text(self._demonstrations(task)) if task.observation_is_text() else ""
        opening = task.initial_messages()
        if opening:
            # Suites whose conversation starts with given turns (AdventureGame puts the
            # instructions in the first user message and injects pre-exploration turns).
            extra = system_text("", self.chain_of_thought, reflections, examples, task).strip()
            if extra:
                opening = [{**opening[0], "content": opening[0]["content"] + "\n\n" + extra}, *opening[1:]]
            self._opening = True
            for message in opening:
                if message["role"] == "user":
                    self._turns.append([[{"type": "text", "text": message["content"]}], None])
                else:
                    self._turns[-1][1] = message["content"]
            return [
                {"type": "text", "text": m["content"], "section": "opening", "role": m["role"]} for m in opening
            ], self._demonstration_seeds
        self._system = system_text(task.instructions, self.chain_of_thought, reflections, examples, task)
        return [{"type": "text", "text": self._system, "section": "system"}], self._demonstration_seeds

    def _demonstrations(self, task) -> list:
        if not self.num_demonstrations:
            return []
        from envs.demos import draw_demonstrations

        draw = draw_demonstrations(
            self.run.task, self.run.format, self.num_demonstrations, self.episode.seed, task.initial_state_key()
        )
        self._demonstration_seeds = [d.seed for d in draw.demonstrations]
        return draw.demonstrations

    def prepare(self, index, observation, previous_action, legal) -> list:
        if index == 0 and self._opening:
            return []  # the first observation is the opening's last user turn
        parts = _user_parts(observation, legal, self.show_legal_actions, self._images)
        self._turns.append([self._converter.convert(parts), None])
        return parts

    def messages(self, prompt_added: list, budget: ContextBudget | None = None) -> Prompt:
        """The conversation of the current step: the last `history_window` turns, then
        as many of those as the context window holds (sliding context window,
        TextAtari §3.1); the opening turn, which carries the instructions, and the
        current observation always stay. ContextExhausted if even they do not fit."""
        turns = self._turns[-self.history_window:]
        if self._opening and turns and turns[0] is not self._turns[0]:
            turns = [self._turns[0], *turns]  # the opening carries the instructions: never dropped
        keep = turns[:1] if self._opening else []
        rest = turns[len(keep):]
        fixed = tokens.text_tokens(self._system) + sum(_turn_tokens(c, r) for c, r in keep)
        sizes = [_turn_tokens(content, reply) for content, reply in rest]
        dropped = oldest_to_drop(fixed, sizes, budget)
        messages = [{"role": "system", "content": self._system}] if self._system else []
        for content, reply in keep + rest[dropped:]:
            messages.append({"role": "user", "content": as_message_content(content)})
            if reply is not None:
                messages.append({"role": "assistant", "content": reply})
        return Prompt(messages, fixed + sum(sizes[dropped:]), dropped)

    def forced_action(self, index: int) -> str | None:
        return None

    def conversation(self) -> list[dict]:
        """Every turn so far (for the end-of-episode reflection)."""
        return self.messages([]).messages

    def parse(self, completion: str) -> tuple[str | None, str]:
        action = type(self._task).extract_action(completion)
        return action, ""

    def record(self, completion: str, action: str | None) -> None:
        if self._turns:
            self._turns[-1][1] = completion if self.keep_reasoning else (action or "")


def rebuild_messages(
    prefix: list, steps: list, history_window: int, keep_reasoning: bool = True, dropped_turns: int = 0
) -> list[dict]:
    """The messages sent at the last of `steps` (objects with prompt_added, completion,
    parsed_action), in the arena's stored-part form (images as {"type": "image", "sha"});
    `dropped_turns` is what that step recorded as left out to fit the context window."""
    system = [p for p in prefix if p.get("section") == "system"]
    opening = [p for p in prefix if p.get("section") == "opening"]
    messages = [{"role": "system", "content": system[0]["text"]}] if system else []
    turns: list[list] = []  # [user content, reply or None]
    for part in opening:
        if part["role"] == "user":
            turns.append([part["text"], None])
        else:
            turns[-1][1] = part["text"]
    for position, step in enumerate(steps):
        if step.prompt_added:
            parts = [{k: v for k, v in p.items() if k != "section"} for p in step.prompt_added]
            if all(p["type"] == "text" for p in parts):
                parts = "".join(p["text"] for p in parts)
            turns.append([parts, None])
        if position < len(steps) - 1:
            turns[-1][1] = step.completion if keep_reasoning else (step.parsed_action or "")
    window = turns[-history_window:]
    if opening and window and window[0] is not turns[0]:
        window = [turns[0], *window]
    keep = window[:1] if opening else []
    for content, reply in keep + window[len(keep) + dropped_turns:]:
        messages.append({"role": "user", "content": content})
        if reply is not None:
            messages.append({"role": "assistant", "content": reply})
    return messages
