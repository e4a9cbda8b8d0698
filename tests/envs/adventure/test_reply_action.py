"""AdventureGame's parsed action is the command the game reads: the reply's first line
(AdventureGame §3.2), not the whole multi-line reply."""

from envs.adventure.tasks import AdventureTask


def test_the_parsed_action_is_the_first_line_of_the_reply():
    reply = "> take the key\nI take the key because the door is locked.\n> open door"
    assert AdventureTask.extract_action(reply) == "> take the key"
    assert AdventureTask.extract_action("\n\n  > go north  \n") == "> go north"
    assert AdventureTask.extract_action("") == ""
