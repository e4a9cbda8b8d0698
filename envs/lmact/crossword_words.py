"""The crossword's word and clue list, built from WordNet 3.0 (Debian package `wordnet-base`).

At run time the task reads only fixtures/lmact/crossword_clues.json, a small file made
once by `build_entries` from the WordNet database in /usr/share/wordnet. Rebuild it
with

    .venv/bin/python -m envs.lmact.crossword_words [--wordnet DIR] [--out FILE]

(tests/envs/lmact/test_crossword.py checks that a rebuild gives the same file when
WordNet is installed). The paper used 55,189 clues of Matthew Ginsberg's "easiest"
rating, which are not freely available; this list is our own stand-in, aimed at
common words with plain dictionary clues.

Word selection rule (every condition must hold):

1. The word is a WordNet lemma of 3 to 7 letters, all a–z, with a vowel (a, e, i,
   o, u or y): no capitals (proper nouns), digits, hyphens, apostrophes, spaces or
   underscores (multiword lemmas); and it is not in the short hand-made `EXCLUDED`
   list (swearing, slurs, sexual terms, abbreviations).
2. It is common: its sense-tagged occurrences in WordNet's frequency counts
   (cntlist.rev, from the SemCor corpus), summed over all its senses and parts of
   speech, number at least `MIN_COUNT`.
3. It has a usable clue. Candidates are the word's first `SENSES_PER_POS` senses
   (WordNet lists senses most frequent first) in each part of speech, parts of speech
   taken in order of their counts. A sense is skipped if the word appears in that
   synset only capitalised (a proper-noun sense), if WordNet marks the synset's usage
   as offensive, vulgar, derogatory or slang, or if its gloss calls itself so. The clue
   is the gloss's definition without the quoted examples, shortened to its first
   ";"-separated part when longer than `MAX_CLUE` characters; it must have at least
   two words and must not give the answer away: no word of the clue may contain the
   answer, nor start with the answer's first max(3, length - 2) letters. The first
   sense that passes gives the clue.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import pathlib
import re

WORDNET_DIR = pathlib.Path("/usr/share/wordnet")
CLUES_PATH = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "lmact" / "crossword_clues.json"

MIN_LENGTH = 3
MAX_LENGTH = 7
MIN_COUNT = 5
SENSES_PER_POS = 2
MAX_CLUE = 90

_POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# cntlist.rev writes the part of speech as a digit: 1 noun, 2 verb, 3 adjective,
# 4 adverb, 5 adjective satellite (counted as an adjective here).
_SS_TYPE_POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
_WORD_RE = re.compile(rf"[a-z]{{{MIN_LENGTH},{MAX_LENGTH}}}")
_VOWEL_RE = re.compile(r"[aeiouy]")
# Usage domains (";u" pointers) whose synsets we never use as clues.
_BAD_USAGE_LEMMAS = {
    "ethnic_slur", "obscenity", "vulgarism", "vulgarity", "disparagement", "derogation",
    "slang", "profanity", "dysphemism", "swearword", "cuss", "expletive",
}  # fmt: skip
# Left out by hand: swearing, slurs, sexual terms, and abbreviations that WordNet
# lists as lemmas.
EXCLUDED = frozenset(
    "bastard christ damn damned darned dec min negro queer rpm sex sexual virgin".split()
)
_BAD_GLOSS = re.compile(r"offensive|vulgar|obscen|slur|derogat|disparag|slang|profan|insult", re.IGNORECASE)



# -- reading WordNet -------------------------------------------------------------
Synset = collections.namedtuple("Synset", "words usage_domains gloss")


def _parse_data_line(line: str) -> tuple[str, Synset]:
    """One synset line of a data.* file: its offset, words (as written), usage-domain targets and gloss."""
    head, _, gloss = line.partition(" | ")
    fields = head.split()
    offset, word_count = fields[0], int(fields[3], 16)
    words = []
    for k in range(word_count):
        word = fields[4 + 2 * k]
        words.append(re.sub(r"\([a-z]+\)$", "", word))  # adjective markers: (a), (p), (ip)
    at = 4 + 2 * word_count
    pointer_count = int(fields[at])
    usage = []
    for k in range(pointer_count):
        symbol, target, target_pos = fields[at + 1 + 4 * k : at + 4 + 4 * k]
        if symbol == ";u":
            usage.append((target, "a" if target_pos == "s" else target_pos))
    return offset, Synset(tuple(words), tuple(usage), gloss.strip())


def _read_data(directory: pathlib.Path) -> dict[str, dict[str, Synset]]:
    data: dict[str, dict[str, Synset]] = {}
    for pos, name in _POS_FILES.items():
        table = {}
        with open(directory / f"data.{name}", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith(" "):  # the licence header
                    continue
                offset, synset = _parse_data_line(line)
                table[offset] = synset
        data[pos] = table
    return data


def _read_index(directory: pathlib.Path) -> dict[str, dict[str, list[str]]]:
    """pos -> lemma -> synset offsets, most frequent sense first."""
    index: dict[str, dict[str, list[str]]] = {}
    for pos, name in _POS_FILES.items():
        table = {}
        with open(directory / f"index.{name}", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith(" "):
                    continue
                fields = line.split()
                lemma, synset_count, pointer_count = fields[0], int(fields[2]), int(fields[3])
                offsets = fields[4 + pointer_count + 2 :]
                table[lemma] = offsets[:synset_count]
        index[pos] = table
    return index


def _read_counts(directory: pathlib.Path) -> dict[str, collections.Counter]:
    """lemma -> part of speech -> tagged occurrences (cntlist.rev)."""
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    with open(directory / "cntlist.rev", encoding="utf-8") as handle:
        for line in handle:
            sense_key, _sense_number, tag_count = line.split()
            lemma, _, rest = sense_key.partition("%")
            counts[lemma][_SS_TYPE_POS[rest[0]]] += int(tag_count)
    return counts


def license_notice(directory: pathlib.Path = WORDNET_DIR) -> str:
    """WordNet's licence, which must travel with data derived from it (the header of its data files)."""
    lines = []
    with open(directory / "data.noun", encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith(" "):
                break
            lines.append(re.sub(r"^\s*\d+ ?", "", line.rstrip()).rstrip())
    return "\n".join(lines).strip()


# -- clue selection --------------------------------------------------------------
def definition(gloss: str) -> str:
    """The definition part of a gloss: the text before its first quoted example."""
    text = gloss.split('"', 1)[0]
    return text.strip().rstrip(";").strip()


def gives_away(clue: str, answer: str) -> bool:
    stem = answer[: max(3, len(answer) - 2)]
    for token in re.findall(r"[a-z]+", clue.lower()):
        if answer in token or token.startswith(stem):
            return True
    return False


def _clue_for(lemma: str, pos_order: list[str], index, data, bad_domains) -> str | None:
    for pos in pos_order:
        for offset in index[pos].get(lemma, [])[:SENSES_PER_POS]:
            synset = data[pos][offset]
            if lemma not in synset.words:  # only capitalised here: a proper-noun sense
                continue
            if any(domain in bad_domains for domain in synset.usage_domains):
                continue
            if _BAD_GLOSS.search(synset.gloss):
                continue
            clue = definition(synset.gloss).rstrip(":;,").strip()
            if len(clue) > MAX_CLUE:
                clue = clue.split(";", 1)[0].strip()
            if len(clue.split()) < 2 or gives_away(clue, lemma):
                continue
            return clue
    return None


def build_entries(directory: pathlib.Path = WORDNET_DIR) -> list[tuple[str, str]]:
    """(word, clue) pairs chosen by the rule in this module's docstring, sorted by word."""
    data = _read_data(directory)
    index = _read_index(directory)
    counts = _read_counts(directory)
    bad_domains = {
        (offset, pos)
        for pos, table in data.items()
        for offset, synset in table.items()
        if any(word.lower() in _BAD_USAGE_LEMMAS for word in synset.words)
    }
    entries = []
    for lemma in sorted(counts):
        by_pos = counts[lemma]
        if not _WORD_RE.fullmatch(lemma) or lemma in EXCLUDED or not _VOWEL_RE.search(lemma):
            continue
        if sum(by_pos.values()) < MIN_COUNT:
            continue
        order = sorted((pos for pos in _POS_FILES if by_pos[pos] > 0), key=lambda pos: -by_pos[pos])
        clue = _clue_for(lemma, order, index, data, bad_domains)
        if clue is not None:
            entries.append((lemma, clue))
    return entries


def build_fixture(directory: pathlib.Path = WORDNET_DIR) -> dict:
    return {
        "source": "WordNet 3.0 (Princeton University), Debian package wordnet-base",
        "rule": (
            f"lemmas of {MIN_LENGTH}-{MAX_LENGTH} letters a-z with at least {MIN_COUNT} sense-tagged "
            f"occurrences (cntlist.rev); clue = definition of the first acceptable of the first "
            f"{SENSES_PER_POS} senses per part of speech; see envs/lmact/crossword_words.py"
        ),
        "notice": license_notice(directory),
        "entries": [[word, clue] for word, clue in build_entries(directory)],
    }


def dump_fixture(fixture: dict) -> str:
    """The fixture as JSON text with one entry per line (readable diffs)."""
    head = {key: value for key, value in fixture.items() if key != "entries"}
    lines = [json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "entries": [']
    entries = [json.dumps(entry, ensure_ascii=False) for entry in fixture["entries"]]
    lines.append(",\n".join(entries))
    lines.append("]}")
    return "\n".join(lines) + "\n"


# -- run time --------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def clues(path: pathlib.Path = CLUES_PATH) -> dict[str, str]:
    """Upper-case answer -> clue, from the fixture."""
    with open(path, encoding="utf-8") as handle:
        fixture = json.load(handle)
    return {word.upper(): clue for word, clue in fixture["entries"]}


@functools.lru_cache(maxsize=None)
def words_by_length(path: pathlib.Path = CLUES_PATH) -> dict[int, tuple[str, ...]]:
    """Upper-case answers grouped by length, each group sorted."""
    groups: dict[int, list[str]] = collections.defaultdict(list)
    for word in sorted(clues(path)):
        groups[len(word)].append(word)
    return {length: tuple(group) for length, group in groups.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Rebuild the crossword clue list from WordNet.")
    parser.add_argument("--wordnet", type=pathlib.Path, default=WORDNET_DIR)
    parser.add_argument("--out", type=pathlib.Path, default=CLUES_PATH)
    args = parser.parse_args(argv)
    fixture = build_fixture(args.wordnet)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump_fixture(fixture), encoding="utf-8")
    print(f"wrote {len(fixture['entries'])} entries to {args.out}")


if __name__ == "__main__":
    main()
