"""How a prompt's size is kept inside a context window it can only estimate."""

import pytest

from arena.strategies.context import ContextBudget, ContextExhausted, oldest_to_drop


def test_the_answer_never_takes_more_than_a_quarter_of_the_window():
    budget = ContextBudget(window=4096, max_tokens=2048)
    assert budget.answer_reserve == 1024 and budget.prompt_limit == 3072
    assert ContextBudget(window=4096, max_tokens=64).prompt_limit == 4032


def test_a_prompt_near_the_end_of_the_window_asks_for_a_shorter_answer():
    budget = ContextBudget(window=4096, max_tokens=1000)
    assert budget.answer_tokens(1000) is None  # room enough: the submission's own
    assert budget.answer_tokens(3500) == 596


def test_the_estimate_follows_the_servers_own_counts():
    budget = ContextBudget(window=4096, max_tokens=64)
    budget.learn(1000, 1500)  # the tokenizer is denser than the estimate
    assert budget.tokens(1000) == pytest.approx(1575, abs=1)
    budget.learn(2000, 2200)  # a later prompt of another make-up
    assert budget.tokens(1000) == pytest.approx(1155, abs=1)
    budget.learn(1000, 500)  # never below the estimate itself
    assert budget.tokens(1000) == 1000


def test_a_refusal_shortens_the_next_prompt_and_is_remembered():
    budget = ContextBudget(window=4096, max_tokens=64)
    assert budget.fits(3900)
    budget.overflowed(3900)
    assert not budget.fits(3900)
    budget.learn(3000, 3000)  # a later accepted call does not forget the refusal
    assert not budget.fits(3900)


def test_an_unknown_window_is_taken_from_the_refusal_message_or_the_refused_prompt():
    stated = ContextBudget(window=None, max_tokens=64)
    stated.overflowed(5000, stated_window=4096)
    assert stated.window == 4096
    guessed = ContextBudget(window=None, max_tokens=64)
    guessed.overflowed(5000)
    assert guessed.window == 4500


def test_the_oldest_items_go_first_and_the_current_one_never():
    budget = ContextBudget(window=1000, max_tokens=100)  # 900 tokens for the prompt
    assert oldest_to_drop(100, [300, 300, 300, 300], budget) == 2
    assert oldest_to_drop(100, [300, 300], None) == 0
    with pytest.raises(ContextExhausted):
        oldest_to_drop(100, [300, 900], budget)
