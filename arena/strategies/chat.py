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

from arena.strategies.base import ContentConverter, as_message_content

COT_REQUEST = (
    "\n\nBefore answering, think step by step about the situation in a few sentences; "
    "then give your answer in exactly the format described above."
)
LEGAL_ACTIONS_HEADER = "\n\nAvailable actions:\n"


def _user_parts(observation, legal, show_legal: bool, store_image) -> list[dict]:
    parts: list[dict] = []
    if observation.image is not None:
        parts.append({"type": "image", "sha": store_image(observation.image)})
    if observation.text is not None:
        parts.append({"type": "text", "text": observation.text})
    if show_legal and legal:
        parts.append({"type": "text", "text": LEGAL_ACTIONS_HEADER + ", ".join(legal)})
    return [{**part, "section": "user"} for part in parts]


REFLECTIONS_HEADER = "\n\nNotes you wrote after your earlier attempts at this game:\n"


def system_text(instructions: str, chain_of_thought: bool, reflections: list[str] = ()) -> str:
    text = instructions.strip()
    if reflections:
        text += REFLECTIONS_HEADER + "\n".join(f"- {note}" for note in reflections)
    return text + (COT_REQUEST if chain_of_thought else "")


class ChatStrategy:
    def __init__(self, run, episode):
        self.episode = episode
        variant = run.variant
        self.history_window = max(1, int(variant.get("history_window", 16)))
        self.chain_of_thought = bool(variant.get("chain_of_thought", False))
        self.show_legal_actions = bool(variant.get("show_legal_actions", True))
        self.keep_reasoning = bool(variant.get("keep_reasoning", True))
        self._converter = ContentConverter()
        self._system = ""
        self._turns: list[list] = []  # [user content, assistant reply or None]
        self._task = None
        self._store_image = None
        self._opening = False

    def begin(self, task, observation, store_image) -> tuple[list, list[int]]:
        self._task = task
        self._store_image = store_image
        # What the paper fixes wins over the submission's settings.
        if task.chat_show_legal_actions is not None:
            self.show_legal_actions = task.chat_show_legal_actions
        if task.chat_history_window is not None:
            self.history_window = task.chat_history_window
        reflections = getattr(self.episode, "previous_reflections", [])
        opening = task.initial_messages() if hasattr(task, "initial_messages") else None
        if opening:
            # Suites whose conversation starts with given turns (AdventureGame puts the
            # instructions in the first user message and injects pre-exploration turns).
            extra = system_text("", self.chain_of_thought, reflections).strip()
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
            ], []
        self._system = system_text(task.instructions, self.chain_of_thought, reflections)
        return [{"type": "text", "text": self._system, "section": "system"}], []

    def prepare(self, index, observation, previous_action, legal) -> list:
        if index == 0 and self._opening:
            return []  # the first observation is the opening's last user turn
        parts = _user_parts(observation, legal, self.show_legal_actions, self._store_image)
        self._turns.append([self._converter.convert(parts), None])
        return parts

    def messages(self, prompt_added: list) -> list[dict]:
        messages = [{"role": "system", "content": self._system}] if self._system else []
        for content, reply in self._turns[-self.history_window:]:
            messages.append({"role": "user", "content": as_message_content(content)})
            if reply is not None:
                messages.append({"role": "assistant", "content": reply})
        return messages

    def conversation(self) -> list[dict]:
        """Every turn so far (for the end-of-episode reflection)."""
        return self.messages([])

    def parse(self, completion: str) -> tuple[str | None, str]:
        action = type(self._task).extract_action(completion)
        return action, ""

    def record(self, completion: str, action: str | None) -> None:
        if self._turns:
            self._turns[-1][1] = completion if self.keep_reasoning else (action or "")


def rebuild_messages(prefix: list, steps: list, history_window: int, keep_reasoning: bool = True) -> list[dict]:
    """The messages sent at the last of `steps` (objects with prompt_added, completion,
    parsed_action), in the arena's stored-part form (images as {"type": "image", "sha"})."""
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
    for content, reply in turns[-history_window:]:
        messages.append({"role": "user", "content": content})
        if reply is not None:
            messages.append({"role": "assistant", "content": reply})
    return messages
