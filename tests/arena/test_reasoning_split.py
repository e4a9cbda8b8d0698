"""`<think>` blocks taken apart from the answer (arena.clients.reasoning)."""

import pytest

from arena.clients.reasoning import is_cut_off, opened_by_template, split_think


@pytest.mark.parametrize(
    "text, answer, reasoning",
    [
        ("Action: up", "Action: up", ""),
        ("<think>\nhmm, Action: down?\n</think>\n\nAction: up", "Action: up", "hmm, Action: down?"),
        ("<think>a</think>Action: up<think>b</think>", "Action: up", "a\n\nb"),
        # DeepSeek-R1 / Qwen3 templates open the block in the prompt: only its end comes back.
        ("weighing it\n</think>\n\nAction: left", "Action: left", "weighing it"),
        # Cut off while thinking: the block never closes, no answer came.
        ("<think>\nstill weighing Action: down", "", "still weighing Action: down"),
        ("<think></think>\n\nAction: up", "Action: up", ""),
    ],
)
def test_think_blocks_go_to_the_reasoning_and_the_answer_keeps_the_rest(text, answer, reasoning):
    assert split_think(text) == (answer, reasoning)


def test_a_cut_off_answer_without_tags_is_reasoning_only_when_the_template_opens_the_block():
    assert opened_by_template("why\n</think>\nAction: up")
    assert not opened_by_template("<think>why</think>Action: up")
    assert split_think("still thinking, Action: down", unfinished_thinking=True) == ("", "still thinking, Action: down")
    assert split_think("Action: up") == ("Action: up", "")


@pytest.mark.parametrize("reason", ["length", "max_tokens", "MAX_TOKENS", "max_output_tokens"])
def test_every_providers_token_limit_is_a_cut_off(reason):
    assert is_cut_off(reason)


@pytest.mark.parametrize("reason", [None, "stop", "end_turn", "STOP", "content_filter"])
def test_other_stop_reasons_are_not(reason):
    assert not is_cut_off(reason)


def test_earlier_answers_are_found_whole_rewritten_or_by_position():
    from arena.clients.reasoning import AnswerMemory

    memory = AnswerMemory()
    for turn in range(1, 5):
        memory.remember(f"I think.\nAction: move {turn}", [f"items {turn}"])
    # Whole, then reduced to the action (BALROG), then rewritten (InfoGather's summary),
    # the oldest turn dropped by the history window.
    found = memory.match(["I think.\nAction: move 2", "move 3", "action: move-4; stop: no"])
    assert found == [(["items 2"], True), (["items 3"], False), (["items 4"], False)]
    assert memory.match(["something else entirely"]) == [(["items 4"], False)]
    assert memory.match(["a", "b", "c", "d", "e"])[0] is None  # more turns than answers
