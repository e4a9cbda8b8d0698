"""Token estimates for fitting demonstrations into a model's context window
(LMAct §2.4: the number of demonstrations that fit depends on the model, the task
and the observation format).

Text: tokenizer-free, by the pieces every BPE tokenizer splits text into — a short word is
one token, a long one about one per four letters, a digit pair, a newline or a symbol
(the "#", "." and "/" of boards, FENs and PGNs) one each, a single space none (it joins
the next piece). Against a real llama.cpp tokenizer this lands within 0.8–1.5× of the
true count on English, boards and FEN, where "four characters per token" was 2–3.6×
too low on boards. The estimate decides how many demonstrations to *offer* and where
to trim a prompt (arena.strategies.context corrects it with the server's own counts);
the provider's counts are what the arena records.
Images, per provider rule (LMAct App. B.1):
- OpenAI ("auto"/high detail): 85 base tokens + 170 per 512-px tile after scaling the
  image to fit 2048×2048 and its shortest side to at most 768 px;
- Anthropic: width × height / 750;
- Gemini: a fixed 258 tokens per image.
"""

from __future__ import annotations

import math
import re

_PIECES = re.compile(r"[A-Za-z]+|\d+|\n|[^\S\n]+|[^\w\s]|\w+")
SHORT_WORD = 6  # letters that make one token at most


def text_tokens(text: str) -> int:
    """The estimate for `text`. ASCII text without "_" (boards, FENs, most prompts) is
    counted by class in a few C-level scans; other text piece by piece. Both give the
    same count: without "_" or non-ASCII word characters, the pieces of each kind are
    exactly the maximal runs of that kind, so they can be counted one kind at a time."""
    if text.isascii() and "_" not in text:
        return _ascii_text_tokens(text)
    return text_tokens_by_piece(text)


def _class_table(keep) -> bytes:
    """A bytes.translate table: the ASCII characters `keep` accepts become "x", the
    others a space, so that `split()` yields the runs of the kept kind."""
    return bytes(ord("x") if keep(chr(code)) else ord(" ") for code in range(256))


_SYMBOL = re.compile(r"[^\w\s]")
_SYMBOL_BYTES = bytes(code for code in range(128) if _SYMBOL.fullmatch(chr(code)))
_LETTERS = _class_table(lambda char: char.isascii() and char.isalpha())
_DIGITS = _class_table(lambda char: char.isascii() and char.isdigit())
_SPACES = _class_table(lambda char: char.isspace() and char != "\n")


def _ascii_text_tokens(text: str) -> int:
    data = text.encode("ascii")
    count = data.count(b"\n") + len(data) - len(data.translate(None, _SYMBOL_BYTES))
    letters = data.translate(_LETTERS)
    words = letters.split()
    count += len(words)
    if b"x" * (SHORT_WORD + 1) in letters:
        # A long word is about one token per four letters instead of one.
        count += sum(-(-len(word) // 4) - 1 for word in words if len(word) > SHORT_WORD)
    count += sum(-(-len(digits) // 2) for digits in data.translate(_DIGITS).split())
    spaces = data.translate(_SPACES)
    if b"xx" in spaces:  # a single space is no token of its own
        count += sum(-(-len(run) // 4) for run in spaces.split() if len(run) > 1)
    return count


def text_tokens_by_piece(text: str) -> int:
    """The estimate, piece by piece (`_PIECES`): any text."""
    count = 0
    for match in _PIECES.finditer(text):
        piece = match.group()
        first = piece[0]
        if first == "\n":
            count += 1
        elif first.isspace():
            count += 0 if len(piece) == 1 else math.ceil(len(piece) / 4)
        elif first.isdigit():
            count += math.ceil(len(piece) / 2)
        elif first.isalpha() or first == "_":
            count += 1 if len(piece) <= SHORT_WORD else math.ceil(len(piece) / 4)
        else:
            count += 1
    return count


class TextTokenMemo:
    """`text_tokens` for the texts a strategy estimates again at every step (the
    instructions, the turns still in its window): each distinct text is counted once.
    Kept by one episode's strategy; it forgets everything past `limit` texts."""

    def __init__(self, limit: int = 4096):
        self._counts: dict[str, int] = {}
        self._limit = limit

    def __call__(self, text: str) -> int:
        count = self._counts.get(text)
        if count is None:
            if len(self._counts) >= self._limit:
                self._counts.clear()
            count = self._counts[text] = text_tokens(text)
        return count


def image_tokens(width: int, height: int, provider: str = "openai") -> int:
    if provider == "gemini":
        return 258
    if provider == "anthropic":
        return math.ceil(width * height / 750)
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return 85 + 170 * tiles


def observation_tokens(observation, provider: str = "openai") -> int:
    total = 0
    if observation.text is not None:
        total += text_tokens(observation.text)
    if observation.png is not None:  # a pool frame: size known, no decoding
        total += image_tokens(observation.width, observation.height, provider)
    elif observation.image is not None:
        total += image_tokens(observation.image.width, observation.image.height, provider)
    return total


def demonstration_tokens(demonstration, provider: str = "openai") -> int:
    """Observations, actions and the few words around each step."""
    per_step_overhead = 6  # "Observation:", "Action:", separators
    return sum(
        observation_tokens(observation, provider) + text_tokens(action) + per_step_overhead
        for observation, action in demonstration.steps
    )
