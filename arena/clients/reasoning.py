"""Reasoning apart from the answer, whatever the wire form, and answers cut short.

Reasoning models return their thinking in one of several forms:

* a field of its own beside the answer: ``reasoning_content`` (vLLM and llama.cpp with
  a reasoning parser, DeepSeek), ``reasoning`` (OpenRouter, Ollama);
* thinking blocks (Anthropic), thought parts (Gemini), reasoning items with summaries
  (OpenAI's Responses API) — read by those clients;
* inline, inside the answer text, as ``<think>…</think>`` when the server has no
  reasoning parser. Some chat templates (DeepSeek-R1's, Qwen3's) open the block in the
  prompt itself, so the answer holds only the closing tag; a block never closed is an
  answer cut off while thinking.

`split_think` takes the inline form apart so the action is parsed from the answer
alone. `is_cut_off` tells, from the provider's stop reason, whether the answer ended
because it reached the token limit (an "answer cut off" step, counted apart from
illegal actions).
"""

from __future__ import annotations

import re

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"
_BLOCK = re.compile(r"<think>(.*?)</think>", re.DOTALL)

# The stop reason each provider gives when the answer reached the token limit: OpenAI
# chat completions and every server copying them, Anthropic, Gemini, the Responses API.
CUT_OFF_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS", "max_output_tokens"})


def is_cut_off(finish_reason: str | None) -> bool:
    return finish_reason in CUT_OFF_REASONS


def opened_by_template(text: str) -> bool:
    """Whether `text` closes a ``<think>`` block it never opened: the chat template
    opened it in the prompt."""
    head, closing, _ = text.partition(CLOSE_TAG)
    return bool(closing) and OPEN_TAG not in head


def split_think(text: str, *, unfinished_thinking: bool = False) -> tuple[str, str]:
    """(answer, reasoning) of a text that may carry ``<think>`` blocks.

    Every closed block goes to the reasoning; a closing tag with no opening one (the
    template opened it) makes everything before it reasoning; an opening tag never
    closed makes everything after it reasoning (the answer never came). The answer is
    what is left, stripped of the whitespace the blocks leave around it.

    `unfinished_thinking`: the template opens the block (as the endpoint's earlier
    answers showed) and this answer was cut off by the token limit, so a text without
    any tag is reasoning that never reached its end.
    """
    if OPEN_TAG not in text and CLOSE_TAG not in text:
        return ("", text.strip()) if unfinished_thinking else (text, "")
    thoughts: list[str] = []
    if opened_by_template(text):
        head, _, text = text.partition(CLOSE_TAG)
        thoughts.append(head.strip())
    thoughts.extend(match.strip() for match in _BLOCK.findall(text))
    answer = _BLOCK.sub("", text)
    before, opening, unfinished = answer.partition(OPEN_TAG)
    if opening:
        thoughts.append(unfinished.strip())
        answer = before
    return answer.strip(), "\n\n".join(thought for thought in thoughts if thought)


class ThinkSplitter:
    """`split_think` for the answers of one conversation, whatever the provider: it
    learns from the answers whether the chat template opens the ``<think>`` block in
    the prompt (then an answer cut off with no tag at all is reasoning that never
    ended)."""

    def __init__(self) -> None:
        self.template_opens_think = False

    def split(self, text: str, finish_reason: str | None, reasoning: str = "") -> tuple[str, str]:
        """(answer, reasoning) of `text`: its ``<think>`` blocks joined to the
        `reasoning` the provider returned apart."""
        self.template_opens_think = self.template_opens_think or opened_by_template(text)
        answer, inline = split_think(
            text, unfinished_thinking=self.template_opens_think and is_cut_off(finish_reason)
        )
        return answer, "\n\n".join(part for part in (reasoning, inline) if part)


class AnswerMemory:
    """What a provider wants back with each of a conversation's answers (Anthropic's
    signed thinking blocks, the Responses API's encrypted reasoning items), kept by the
    client of one episode in the order the answers came.

    The strategies send earlier answers back whole or rewritten (BALROG keeps only the
    action, InfoGather its own summary of the answer, unless told to keep the
    reasoning), and a history window drops the oldest. So the assistant messages of a
    request are matched to the remembered answers in order: each takes the next answer
    whose text is the message's text or contains it, else the answer as far from the
    last one as the message is from the last assistant message (every answer became one
    assistant turn, the oldest dropped first).
    """

    def __init__(self, limit: int = 256):
        self.limit = limit
        self._answers: list[tuple[str, list]] = []

    def remember(self, text: str, items: list) -> None:
        """Every answer is remembered, even one with nothing to give back, so that the
        positions of the later ones stay right."""
        self._answers.append((text, list(items)))
        del self._answers[: max(0, len(self._answers) - self.limit)]

    def match(self, assistant_texts: list[str]) -> list[tuple[list, bool] | None]:
        """For each assistant text: (the items of its answer, whether the text is that
        answer whole), or None when no remembered answer is found for it."""
        matched: list[tuple[list, bool] | None] = []
        position = 0
        count = len(assistant_texts)
        for number, text in enumerate(assistant_texts):
            index = self._holding(text, position)
            if index is None:
                aligned = len(self._answers) - (count - number)
                index = aligned if aligned >= position else None
            if index is None:
                matched.append(None)
                continue
            answer, items = self._answers[index]
            matched.append((items, answer == text))
            position = index + 1
        return matched

    def match_turns(self, turns: list[tuple[str, str]]) -> list[tuple[list, bool] | None]:
        """`match` for a conversation's (role, text) turns: each assistant turn's match
        in its place, None for the other turns."""
        found = iter(self.match([text for role, text in turns if role == "assistant"]))
        return [next(found) if role == "assistant" else None for role, _ in turns]

    def _holding(self, text: str, start: int) -> int | None:
        wanted = text.strip()
        if not wanted:
            return None
        for index in range(start, len(self._answers)):
            answer = self._answers[index][0]
            if answer == text or wanted in answer:
                return index
        return None
