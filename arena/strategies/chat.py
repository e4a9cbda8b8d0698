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

    def begin(self, task, observation, store_image) -> tuple[list, list[int]]:
        self._task = task
        self._store_image = store_image
        reflections = getattr(self.episode, "previous_reflections", [])
        self._system = system_text(task.instructions, self.chain_of_thought, reflections)
        return [{"type": "text", "text": self._system, "section": "system"}], []

    def prepare(self, index, observation, previous_action, legal) -> list:
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
    messages = [{"role": "system", "content": prefix[0]["text"]}] if prefix else []
    window = steps[-history_window:]
    for position, step in enumerate(window):
        parts = [{k: v for k, v in p.items() if k != "section"} for p in step.prompt_added]
        if all(p["type"] == "text" for p in parts):
            parts = "".join(p["text"] for p in parts)
        messages.append({"role": "user", "content": parts})
        if position < len(window) - 1:
            reply = step.completion if keep_reasoning else (step.parsed_action or "")
            messages.append({"role": "assistant", "content": reply})
    return messages
