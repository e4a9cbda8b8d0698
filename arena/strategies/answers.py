"""How a reply becomes an action under BALROG's protocol (BALROG §3): the answer
conventions of BALROG's agents and the two ways of reading a reply.

The agents (naive, chain of thought, and the "robust" variants that mark the action):
the request that closes the current turn carries exactly the information of BALROG's,
in the arena's words, with BALROG's line layout.

Reading a reply, the default (`read_answer`), is BALROG's agents' own reading, step for
step (a test compares it with the output of BALROG's code on a table of scripted
replies). The model client strips the reply first; then

- naive: every character but letters, whitespace and colons is removed, and nothing
  else: "1. go forward" becomes " go forward", which is no action;
- chain of thought: the same filter, then what follows the last "ACTION:" (exactly that
  spelling), stripped; a reply without the label is read whole;
- robust naive: what the first <|ACTION|>…<|END|> pair holds, stripped; without the
  pair, the whole reply;
- robust chain of thought: what the first pair holds; without it, a fixed sentence that
  is no action (`NO_ACTION_READ`).

The environment then accepts the result only if it is exactly one of its actions.

The lenient reading (`read_answer_leniently`) is a labelled option for models that do
not follow the format: any case and spacing of "ACTION:", the last pair of markers, the
whole reply when the markers are missing, and the result stripped.
"""

from __future__ import annotations

import re

NAIVE_ANSWER = (
    "At every turn you must output one of the actions above, one at a time, and no other text. Keep "
    "outputting an action until the episode ends."
)
COT_ANSWER = (
    "First, think step by step about the best course of action.\n"
    "Then give one single action at the end of your message, in the form: ACTION: <action>"
)
MARKER_OPEN, MARKER_CLOSE = "<|ACTION|>", "<|END|>"
PLACEHOLDER = "YOUR_CHOSEN_ACTION"
ROBUST_ANSWER = (
    "Choose exactly one of the listed actions and output it in exactly this format:\n\n"
    f"{MARKER_OPEN}{PLACEHOLDER}{MARKER_CLOSE}\n\n"
    f"Put the action you chose in place of {PLACEHOLDER}. Write no other text, explanation or reasoning."
)
ROBUST_COT_ANSWER = (
    "First, think about the best course of action.\n"
    "Then choose exactly one of the listed actions and output it in exactly this format:\n\n"
    f"{MARKER_OPEN}{PLACEHOLDER}{MARKER_CLOSE}\n\n"
    f"Put the action you chose in place of {PLACEHOLDER}."
)
# What BALROG's robust chain-of-thought agent reads from a reply without the markers:
# a sentence that is no action, so the default action plays — except in TextWorld, whose
# game is sent every output: its first word is no verb of the games, so they answer it
# as they answer BALROG's sentence ("That's not a verb I recognise."; a sentence opening
# with "No" would be read as the answer "no").
NO_ACTION_READ = "Unreadable reply: no action was found in the reasoning."
COT_LABEL = "ACTION:"

_MARKED = re.compile(re.escape(MARKER_OPEN) + r"(.*?)" + re.escape(MARKER_CLOSE), re.DOTALL)
_LENIENT_COT_LABEL = re.compile(r"ACTION\s*:", re.IGNORECASE)
_NOT_LETTERS = re.compile(r"[^a-zA-Z\s:]")


def answer_convention(*, chain_of_thought: bool, markers: bool) -> str:
    """The request that closes the current turn (BALROG's four agents)."""
    if markers:
        return ROBUST_COT_ANSWER if chain_of_thought else ROBUST_ANSWER
    return COT_ANSWER if chain_of_thought else NAIVE_ANSWER


def letters_only(text: str) -> str:
    """The reply with every character but letters, whitespace and colons removed."""
    return _NOT_LETTERS.sub("", text)


def read_answer(completion: str, *, chain_of_thought: bool, markers: bool) -> str:
    """The action in a reply, read exactly as BALROG's agents read it (module docstring)."""
    text = (completion or "").strip()  # BALROG's model clients strip every reply
    if markers:
        found = _MARKED.search(text)
        if found:
            return found.group(1).strip()
        return NO_ACTION_READ if chain_of_thought else text
    if chain_of_thought:
        return letters_only(text).split(COT_LABEL)[-1].strip()
    return letters_only(text)


def read_answer_leniently(completion: str, *, chain_of_thought: bool, markers: bool) -> str:
    """The lenient reading (an option): any case and spacing of "ACTION:", the last pair of
    markers, the whole reply as the fallback, the result stripped."""
    text = completion or ""
    if markers:
        found = _MARKED.findall(text)
        return found[-1].strip() if found else text.strip()
    if chain_of_thought:
        parts = _LENIENT_COT_LABEL.split(text)
        text = parts[-1] if len(parts) > 1 else text
    return letters_only(text).strip()
