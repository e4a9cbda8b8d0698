"""lmact/crossword: the generator (envs.lmact.crossword_puzzle), the clue list and the task protocol."""

from __future__ import annotations

import pathlib

import pytest

from envs.core import RandomLegalPolicy
from envs.lmact import crossword as cw
from envs.lmact import crossword_puzzle as cwp
from envs.lmact import crossword_words
from envs.registry import make

SEEDS = range(50)


def letters_grid(puzzle: cwp.Puzzle) -> list[list[str | None]]:
    """The solution built by writing every entry, checking that crossing entries agree."""
    grid: list[list[str | None]] = [[None] * puzzle.size for _ in range(puzzle.size)]
    for entry in puzzle.entries:
        for (row, col), letter in zip(entry.cells(), entry.answer):
            assert 0 <= row < puzzle.size and 0 <= col < puzzle.size
            assert grid[row][col] in (None, letter), f"crossing mismatch at {(row, col)}"
            grid[row][col] = letter
    return grid


def runs(grid: list[list[str | None]]) -> set[tuple[str, int, int, str]]:
    """Every maximal run of two or more letters: (direction, row, col, word)."""
    size = len(grid)
    found = set()
    for direction in (cwp.ACROSS, cwp.DOWN):
        for fixed in range(size):
            line = [grid[fixed][k] if direction == cwp.ACROSS else grid[k][fixed] for k in range(size)]
            start = None
            for k in range(size + 1):
                letter = line[k] if k < size else None
                if letter is not None and start is None:
                    start = k
                elif letter is None and start is not None:
                    if k - start >= 2:
                        row, col = (fixed, start) if direction == cwp.ACROSS else (start, fixed)
                        found.add((direction, row, col, "".join(line[start:k])))
                    start = None
    return found


# -- the clue list -------------------------------------------------------------
def test_the_clue_list_is_small_and_follows_the_rule():
    assert crossword_words.CLUES_PATH.stat().st_size < 2_000_000
    clues = crossword_words.clues()
    assert len(clues) > 3000
    for word, clue in clues.items():
        assert word.isascii() and word.isalpha() and word.isupper()
        assert crossword_words.MIN_LENGTH <= len(word) <= crossword_words.MAX_LENGTH
        assert word.lower() not in crossword_words.EXCLUDED
        assert not crossword_words.gives_away(clue, word.lower()), (word, clue)
        assert len(clue.split()) >= 2


@pytest.mark.skipif(
    not (crossword_words.WORDNET_DIR / "data.noun").exists(), reason="WordNet (wordnet-base) is not installed"
)
def test_the_clue_list_rebuilds_identically_from_wordnet():
    fixture = crossword_words.build_fixture()
    assert crossword_words.dump_fixture(fixture) == crossword_words.CLUES_PATH.read_text(encoding="utf-8")
    assert "Princeton University" in fixture["notice"]


def test_gives_away():
    assert crossword_words.gives_away("feeling of great happiness", "happy")
    assert crossword_words.gives_away("one that runs", "run")
    assert not crossword_words.gives_away("a domesticated canine", "dog")


# -- the generator -------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_puzzles_are_valid(seed):
    puzzle = cwp.generate(seed)
    clues = crossword_words.clues()
    assert puzzle.size == 7
    assert cwp.MIN_WORDS <= len(puzzle.entries) <= cwp.MAX_WORDS
    answers = [entry.answer for entry in puzzle.entries]
    assert len(set(answers)) == len(answers)
    for entry in puzzle.entries:
        assert clues[entry.answer] == entry.clue
        assert len(entry.answer) >= 3

    grid = letters_grid(puzzle)
    # Every run of letters is exactly one entry, so every letter cell is in a word.
    assert runs(grid) == {(e.direction, e.row, e.col, e.answer) for e in puzzle.entries}
    assert ["".join(letter or "#" for letter in row) for row in grid] == list(puzzle.solution)

    # Standard numbering: cells that start a word, numbered 1, 2, ... in reading order.
    starts = sorted({(entry.row, entry.col) for entry in puzzle.entries})
    assert [puzzle.numbers[cell] for cell in starts] == list(range(1, len(starts) + 1))
    labels = [entry.label for entry in puzzle.entries]
    assert labels == sorted(labels, key=lambda label: (label[0] != "A", int(label[1:])))

    # The words form one connected block.
    cells = {(r, c) for r in range(7) for c in range(7) if grid[r][c] is not None}
    todo, seen = [next(iter(cells))], set()
    while todo:
        r, c = todo.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        todo.extend(n for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if n in cells)
    assert seen == cells


def test_generation_is_deterministic_and_seeds_differ():
    first = [cwp.generate(seed) for seed in range(20)]
    cwp.generate.cache_clear()
    assert [cwp.generate(seed) for seed in range(20)] == first
    assert len({puzzle.solution for puzzle in first}) == 20


# -- the task ------------------------------------------------------------------
@pytest.fixture
def task():
    task = make("lmact/crossword")
    task.reset(4)
    return task


def test_observation_shows_grid_and_clues(task):
    text = task.reset(4).text
    puzzle = task.puzzle
    lines = text.splitlines()
    grid_lines = lines[1:10]
    assert grid_lines[0] == grid_lines[-1] == "+----+----+----+----+----+----+----+"
    for row, line in enumerate(grid_lines[1:-1]):
        cells = line.strip("|").split("|")
        for col, cell in enumerate(cells):
            if puzzle.solution[row][col] == "#":
                assert cell == "####"
            else:
                number = puzzle.numbers.get((row, col))
                assert cell == f"{number or '':<2}_ "
    assert "Across:" in lines and "Down:" in lines
    for entry in puzzle.entries:
        assert f"{entry.number}. {entry.clue} ({len(entry.answer)})" in text
        assert entry.answer not in text


def test_correct_words_score_once_and_fill_the_grid(task):
    entry = task.puzzle.entries[0]
    result = task.step(f"{entry.label}: {entry.answer.lower()}")
    assert (result.reward, result.legal, result.done) == (1.0, True, False)
    assert result.executed_action == f"{entry.label}: {entry.answer}"
    assert entry.label in task.filled
    row_text = result.observation.text.splitlines()[2 + entry.row]
    assert entry.answer[0] in row_text

    again = task.step(f"{entry.label}: {entry.answer}")
    assert (again.reward, again.legal, again.done) == (0.0, True, False)


def test_a_wrong_word_of_the_right_length_scores_nothing_and_changes_nothing(task):
    entry = task.puzzle.entries[-1]
    wrong = "Q" * len(entry.answer)
    before = task._observe().text
    result = task.step(f"{entry.label}: {wrong}")
    assert (result.reward, result.legal, result.done) == (0.0, True, False)
    assert result.observation.text == before


@pytest.mark.parametrize(
    "action, reason",
    [
        ("hello", "not of the form"),
        ("", "not of the form"),
        ("A1 house", "not of the form"),
        ("X1: house", "not of the form"),
        ("A1: ho use", "not of the form"),
        ("A99: cat", "no clue A99"),
    ],
)
def test_malformed_actions_end_the_episode(task, action, reason):
    result = task.step(action)
    assert (result.reward, result.legal, result.terminated) == (-1.0, False, True)
    assert result.end_reason.startswith("invalid action") and reason in result.end_reason
    assert task.legal_actions() == []


def test_a_word_of_the_wrong_length_ends_the_episode(task):
    entry = task.puzzle.entries[0]
    result = task.step(f"{entry.label}: {entry.answer}S")
    assert (result.reward, result.legal, result.terminated) == (-1.0, False, True)
    assert result.end_reason == f"invalid action ({entry.label} has {len(entry.answer)} letters, not {len(entry.answer) + 1})"


def test_actions_tolerate_case_and_spaces(task):
    entry = task.puzzle.entries[0]
    direction, number = entry.label[0], entry.label[1:]
    result = task.step(f"  {direction.lower()} {number} :  {entry.answer.title()}  ")
    assert (result.reward, result.executed_action) == (1.0, f"{entry.label}: {entry.answer}")


def test_the_episode_stops_after_25_steps(task):
    entry = task.puzzle.entries[0]
    wrong = f"{entry.label}: {'Q' * len(entry.answer)}"
    for _ in range(24):
        assert not task.step(wrong).done
    last = task.step(wrong)
    assert last.truncated and not last.terminated and last.end_reason == "step limit"


@pytest.mark.parametrize("seed", SEEDS)
def test_the_expert_fills_every_grid(seed):
    task = make("lmact/crossword")
    task.reset(seed)
    total, steps = 0.0, 0
    while True:
        result = task.step(task.expert_action())
        total += result.reward
        steps += 1
        if result.done:
            break
    words = len(task.puzzle.entries)
    assert (total, steps, result.terminated, result.end_reason) == (words, words, True, "solved")
    assert task.episode_metrics() == {"words": words, "words_placed": words}
    assert task.progress(total) == 100.0
    grid_lines = result.observation.text.splitlines()[1:10]
    assert not any("_" in line for line in grid_lines)
    assert [line.count("####") for line in grid_lines[1:-1]] == [row.count("#") for row in task.puzzle.solution]


def test_expert_order_is_seeded_and_random():
    orders = []
    for _ in range(2):
        task = make("lmact/crossword")
        task.reset(9)
        order = []
        while not task.done:
            action = task.expert_action()
            order.append(action)
            task.step(action)
        orders.append(order)
    assert orders[0] == orders[1]
    reading_order = [f"{e.label}: {e.answer}" for e in task.puzzle.entries]
    assert sorted(orders[0]) == sorted(reading_order) and orders[0] != reading_order


def test_legal_actions_are_described_not_sampled(task):
    # LMAct fidelity (issue 18, item 1): every word of the right length is legal, so no
    # short list (which would almost never hold the answer) is offered.
    assert task.legal_actions() == []
    assert "'A<n>: <word>'" in task.action_format and "'D<n>: <word>'" in task.action_format
    entry = task.puzzle.entries[0]
    result = task.step(f"{entry.label}: {entry.answer}")
    assert (result.reward, result.legal) == (1.0, True)


def test_the_random_baseline_draws_a_few_words_per_open_slot(task):
    actions = task.sampled_actions()
    assert actions == task.sampled_actions()
    by_label: dict[str, list[str]] = {}
    for action in actions:
        label, word = action.split(": ")
        by_label.setdefault(label, []).append(word)
    assert list(by_label) == [entry.label for entry in task.puzzle.entries]
    for entry in task.puzzle.entries:
        assert len(by_label[entry.label]) == cw.LEGAL_CHOICES_PER_SLOT
        assert all(len(word) == len(entry.answer) for word in by_label[entry.label])
    assert RandomLegalPolicy(4).act(task) in actions
    entry = task.puzzle.entries[0]
    task.step(f"{entry.label}: {entry.answer}")
    assert not any(action.startswith(f"{entry.label}:") for action in task.sampled_actions())


def test_random_legal_play_never_ends_early():
    for seed in range(5):
        task = make("lmact/crossword")
        task.reset(seed)
        policy = RandomLegalPolicy(seed)
        while True:
            result = task.step(policy.act(task))
            assert result.legal and result.reward >= 0
            if result.done:
                break
        assert task.steps_taken == 25 or result.end_reason == "solved"


def test_initial_state_key_is_a_hash_of_the_solution(task):
    key = task.initial_state_key()
    assert len(key) == 16
    other = make("lmact/crossword")
    other.reset(4)
    assert other.initial_state_key() == key
    other.reset(5)
    assert other.initial_state_key() != key


def test_the_fixture_lives_in_the_project():
    root = pathlib.Path(__file__).resolve().parents[3]
    assert crossword_words.CLUES_PATH == root / "fixtures" / "lmact" / "crossword_clues.json"
