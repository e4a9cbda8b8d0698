"""Text helpers of the suite: a token estimate for the length caps of TextAtari §2.2 and
App. D.1, and the noun masking of the "obscured" scenario."""

from __future__ import annotations

import functools
import math
import re

# Runs of letters, runs of digits, and single other visible characters. A model's
# tokenizer splits English into about one token per short word and splits long words
# and long numbers further; the estimate follows that and errs on the high side.
_PIECES = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")


def estimate_tokens(text: str) -> int:
    """About how many tokens a model's tokenizer makes of `text` (no tokenizer needed)."""
    count = 0
    for piece in _PIECES.findall(text):
        if piece[0].isalpha():
            count += max(1, math.ceil(len(piece) / 5))
        elif piece[0].isdigit():
            count += math.ceil(len(piece) / 3)
        else:
            count += 1
    return count


# -- the obscured scenario (TextAtari §2.2, App. D.1) -----------------------------------
MASK = "item"


def plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith("man"):
        return noun[:-3] + "men"
    return noun + "s"


@functools.lru_cache(maxsize=64)
def _noun_pattern(nouns: tuple[str, ...], names: tuple[str, ...]) -> re.Pattern:
    words = {noun.lower() for noun in nouns} | {plural(noun.lower()) for noun in nouns} | {n.lower() for n in names}
    # Longest first, so "power pellet" is masked whole before "pellet" alone, and
    # "Evil Otto" before "otto".
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)


def obscure(text: str, nouns: tuple[str, ...], names: tuple[str, ...] = ()) -> str:
    """`text` with every one of the game's nouns (and its plural) replaced by "item"
    ("items") and every proper name of the game ("Ms. Pac-Man", "Blinky", "Q*bert") by
    "item", keeping an initial capital. Numbers, coordinates, colours and scores are
    not in a game's dictionary, so they stay (§2.2, App. D.1)."""
    if not nouns and not names:
        return text
    singular = {noun.lower() for noun in nouns} | {name.lower() for name in names}

    def mask(match: re.Match) -> str:
        word = match.group(0)
        masked = MASK if word.lower() in singular else MASK + "s"
        return masked.capitalize() if word[0].isupper() else masked

    return _noun_pattern(tuple(nouns), tuple(names)).sub(mask, text)
