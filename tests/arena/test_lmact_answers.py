"""LMAct answer format (issue 18, items 3 and the zero-shot wording): without chain of
thought the reference asks for the action alone, and with no demonstrations its closing
instruction does not mention any (LMAct §2.3–2.4)."""

import pytest

from arena.strategies.lmact_prompt import LMActPrompter, parse_action, parse_reasoning
from tests.conftest import new_run
from tests.support.fake_openai import Fault, message_text

LEGAL = ("a1", "b2", "c3")


class _Images:
    def sha(self, observation):  # pragma: no cover - text observations only here
        raise AssertionError


def _instruction(*, demonstrations=True, show_legal=True, chain_of_thought=False, legal=LEGAL) -> str:
    prompter = LMActPrompter(
        show_legal_actions=show_legal, chain_of_thought=chain_of_thought, images=_Images(), demonstrations=demonstrations
    )
    return "".join(part["text"] for part in prompter.tail_parts(legal, "six numbers"))


@pytest.mark.parametrize("completion", ["b2", "  b2\n", "\nb2"])
def test_a_completion_that_is_exactly_a_legal_action_is_that_action(completion):
    assert parse_action(completion, LEGAL) == "b2"
    assert parse_reasoning(completion) == ""


@pytest.mark.parametrize("completion", ["b2 please", "I play b2", "d4", "", "   "])
def test_anything_else_without_the_keyword_stays_illegal(completion):
    assert parse_action(completion, LEGAL) is None


def test_the_keyword_form_is_still_accepted_and_wins_over_a_bare_reading():
    assert parse_action("Reasoning: centre.\nAction: b2", LEGAL) == "b2"
    assert parse_action("Action: d4", LEGAL) == "d4"  # parsed, then judged illegal by the task
    # No legal list (a continuous action space): only the keyword form.
    assert parse_action("[0.1, 0.2]", ()) is None


def test_without_chain_of_thought_the_prompt_asks_for_the_action_alone():
    listed = _instruction(show_legal=True)
    assert "legal action alone, without any other text" in listed
    assert "Action: ..." not in listed
    hidden = _instruction(show_legal=False)
    assert "action alone, without any other text, written exactly like the earlier actions" in hidden
    assert "Action: ..." not in hidden


def test_the_keyword_form_is_asked_for_when_the_legal_actions_cannot_be_listed():
    text = _instruction(show_legal=True, legal=())
    assert "six numbers" in text and text.endswith("Action: ...\n")


def test_chain_of_thought_keeps_reasoning_then_action():
    assert _instruction(chain_of_thought=True).endswith("Reasoning: ...\nAction: ...\n")


@pytest.mark.parametrize("show_legal", [True, False])
@pytest.mark.parametrize("chain_of_thought", [True, False])
def test_the_zero_shot_instruction_mentions_no_demonstrations(show_legal, chain_of_thought):
    zero = _instruction(demonstrations=False, show_legal=show_legal, chain_of_thought=chain_of_thought)
    assert "demonstration" not in zero and "Given the situation above" in zero
    few = _instruction(demonstrations=True, show_legal=show_legal, chain_of_thought=chain_of_thought)
    assert "Given the demonstrations and the situation above" in few


@pytest.mark.django_db(transaction=True)
def test_a_model_answering_a_bare_legal_move_plays_it(make_model_submission, fake_model, play):
    run = new_run(make_model_submission(), task="lmact/gridworld", fmt="ascii", episodes=1)
    fake_model.enqueue(Fault.reply("up\n"), Fault.reply("go up"))
    play(run.episodes.get().id)
    first, second = run.episodes.get().steps.order_by("index")[:2]
    assert first.parsed_action == "up" and first.legal is True and first.executed_action == "up"
    assert second.parsed_action is None and second.legal is False
    prompt = message_text(fake_model.requests[0].json["messages"][0])
    assert "demonstration" not in prompt.split("This is the situation you are in now:")[1]


@pytest.mark.django_db(transaction=True)
def test_a_run_with_demonstrations_names_them_in_the_instruction(make_model_submission, fake_model, play):
    run = new_run(make_model_submission(num_demonstrations=2), task="lmact/tictactoe", fmt="ascii", episodes=1)
    play(run.episodes.get().id)
    prompt = message_text(fake_model.requests[0].json["messages"][0])
    assert "Given the demonstrations and the situation above" in prompt


def test_a_zero_shot_prompt_never_mentions_demonstrations():
    from arena.strategies.lmact_prompt import build_prefix

    prefix_text = "".join(part["text"] for part in build_prefix([], images=None))
    assert "demonstration" not in prefix_text.lower()


def test_an_answer_without_the_keyword_is_not_also_stored_as_reasoning():
    assert parse_reasoning("I would go up, I think") == ""
    assert parse_reasoning("Reasoning: the target is above.\nAction: up") == "the target is above."
