"""The heavier LMAct tasks end to end on the arena: chess, crossword, cheetah, Phoenix."""

import pytest

from arena.models import Episode
from tests.conftest import new_run
from tests.support.fake_openai import Fault, message_text

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_random_baseline_plays_cheetah_with_drawn_continuous_actions(baseline, play):
    run = new_run(baseline("random"), task="lmact/cheetah", fmt="dict", episodes=1)
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.num_steps == 100 and episode.end_reason == "step limit"
    assert episode.steps.first().executed_action.startswith("[")


def test_a_model_plays_cheetah_and_a_malformed_action_is_replaced(make_model_submission, fake_model, play):
    run = new_run(make_model_submission(), task="lmact/cheetah", fmt="dict", episodes=1)
    fake_model.enqueue(Fault.reply("Action: [0.5, -0.5, 0.1, 0.0, 1.0, -1.0]"), Fault.reply("Action: run fast"))
    play(run.episodes.get().id)
    first, second = run.episodes.get().steps.order_by("index")[:2]
    assert first.legal and first.executed_action.startswith("[0.5")
    assert second.legal is False and second.executed_action.startswith("[")
    prompt = message_text(fake_model.requests[0].json["messages"][0])
    assert "A legal action has this form" in prompt and "position" in prompt


def test_a_model_plays_phoenix_from_frames(make_model_submission, fake_model, play):
    run = new_run(make_model_submission(), task="lmact/phoenix", fmt="rgb", episodes=1)
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    step = episode.steps.first()
    assert step.observation_image is not None and step.parsed_action == step.executed_action
    assert episode.final_observation_image is not None


def test_a_chess_game_against_stockfish_is_stored_with_its_pgn(make_model_submission, fake_model, play, client):
    run = new_run(make_model_submission(), task="lmact/chess", fmt="fen", episodes=1)
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.end_reason
    response = client.get(f"/episodes/{episode.pk}/pgn")
    assert response.status_code == 200 and b"[Result" in response.content


def test_a_wrong_crossword_word_length_ends_the_episode_with_minus_one(make_model_submission, fake_model, play):
    run = new_run(make_model_submission(), task="lmact/crossword", fmt="ascii", episodes=1)
    fake_model.enqueue(Fault.reply("Action: A1: abcdefghijklmnop"))
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.score == -1 and episode.num_steps == 1


def test_a_model_answering_crossword_words_scores_and_sees_no_decoy_list(make_model_submission, fake_model, play):
    # LMAct fidelity (issue 18, item 1): the prompt shows the form of a legal action,
    # not a handful of random words that exclude the answer.
    from envs.lmact.crossword_puzzle import generate

    run = new_run(make_model_submission(), task="lmact/crossword", fmt="ascii", episodes=1)
    puzzle = generate(run.episodes.get().seed)
    fake_model.enqueue(*(Fault.reply(f"Action: {e.label}: {e.answer.lower()}") for e in puzzle.entries))
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.score == len(puzzle.entries) and episode.end_reason == "solved"
    prompt = message_text(fake_model.requests[0].json["messages"][0])
    assert "A legal action has this form" in prompt and "'A<n>: <word>'" in prompt
    assert "The legal actions in this situation are" not in prompt
