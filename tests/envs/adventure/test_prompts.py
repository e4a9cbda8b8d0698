"""Prompt templates with the layout of App. D."""

from envs.adventure import prompts


def test_basic_template_layout():
    text = prompts.instructions("basic-easy", "Put the book on the table.")
    blocks = text.split("\n\n")
    assert blocks[0].startswith("We are playing a text adventure.") and ">" in blocks[0]
    assert blocks[1] == "Here is what an answer looks like:"
    assert blocks[2] == "> open cupboard"
    assert blocks[3] == "What you have to achieve in this game: Put the book on the table."
    assert blocks[4] == "As soon as you have achieved it, answer\n> done\nto finish the game."


def test_limit_template_adds_the_limit_before_the_goal():
    blocks = prompts.instructions("limit-hard", "G.").split("\n\n")
    assert blocks[3] == prompts.LIMIT and blocks[4].endswith("G.")


def test_preexploration_uses_the_basic_template():
    assert prompts.instructions("preexplore-easy", "G.") == prompts.instructions("basic-easy", "G.")


def test_synthetic_template_adds_the_new_words():
    easy = prompts.new_words_text(["aphile"], "put")
    assert easy.startswith("Besides the usual actions, you can also aphile. To aphile something is")
    listed = prompts.new_words_text(["drosk", "plimet", "varnod"])
    assert listed == "Besides the usual actions, you can also drosk, plimet and varnod."
    blocks = prompts.instructions("synthetic-medium", "G.", listed).split("\n\n")
    assert blocks[2] == "> examine floor" and blocks[3] == listed and blocks[4].endswith("G.")


def test_goal_sentences():
    parts = [("pillow", "on", "table"), ("book", "in", "wardrobe"), ("plate", "on", "counter")]
    assert prompts.delivery_goal(parts) == (
        "Put the pillow on the table, the book in the wardrobe and the plate on the counter."
    )
    assert prompts.state_goal([("drosk", "plimet"), ("varnod", "gleb")]) == "Make the drosk plimet and the varnod gleb."
