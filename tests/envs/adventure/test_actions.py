"""Each action's preconditions, effects and failure messages (Table 5)."""

from envs.adventure.engine import Game
from envs.adventure.sample import sample_world


def game(**kwargs) -> Game:
    return Game(sample_world(**kwargs))


def run(g: Game, *commands: str):
    return [g.execute(c) for c in commands][-1]


def test_look_describes_the_room():
    record = run(game(), "look")
    assert record.success and record.action == "look"
    text = record.feedback
    assert text.startswith("You are in the kitchen.")
    assert "On the counter you see an apple." in text
    assert "The refrigerator is closed." in text
    assert "From here you can go to the hallway and the pantry." in text
    assert record.removed == record.added == []


def test_go_moves_the_player_and_what_it_carries():
    g = game()
    run(g, "take apple")
    record = run(g, "go hallway")
    assert record.success
    assert ["at", "player", "hallway"] in record.added and ["at", "apple", "hallway"] in record.added
    assert ["at", "player", "kitchen"] in record.removed
    assert "You are in the hallway." in record.feedback


def test_go_failures():
    g = game()
    assert run(g, "go kitchen").failure == "already_here"
    assert run(g, "go kitchen").feedback == "You are already in the kitchen."
    no_way = run(g, "go living room")
    assert no_way.failure == "no_passage"
    assert no_way.feedback == "There is no passage from the kitchen to the living room."
    table = run(g, "go table")
    assert table.failure == "not_a_room" and "not a place you can go to" in table.feedback
    assert run(g, "go couch").failure == "entity_not_here"


def test_take_preconditions():
    g = game()
    assert run(g, "take table").failure == "not_takeable"
    assert run(g, "take table").feedback == "The table can't be carried around."
    hidden = run(g, "take banana")  # in the closed refrigerator, never seen
    assert hidden.failure == "entity_not_here" and hidden.feedback == "You don't see any banana here."
    assert run(g, "take book").failure == "entity_not_here"  # in another room
    ok = run(g, "take apple")
    assert ok.success and ok.feedback == "The apple is now in your inventory."
    assert ok.added == [["in", "apple", "inventory"]] and ok.removed == [["on", "apple", "counter"]]
    again = run(g, "take apple")
    assert again.failure == "already_carried" and again.feedback == "You already have the apple."


def test_take_from_a_container_seen_open_then_closed_is_not_reachable():
    g = game()
    run(g, "open refrigerator", "close refrigerator")
    record = run(g, "take banana")
    assert record.failure == "not_reachable"
    assert record.feedback == "You can't get at the banana: the refrigerator is closed."


def test_put_preconditions():
    g = game()
    assert run(g, "put apple on table").failure == "not_carried"
    assert run(g, "put apple on table").feedback == "You are not carrying the apple."
    run(g, "take apple", "take peach")
    assert run(g, "put apple on peach").failure == "not_receptacle"
    assert run(g, "put apple on peach").feedback == "You can't put anything on the peach."
    wrong = run(g, "put apple in table")
    assert wrong.failure == "wrong_preposition" and wrong.feedback == "Things go on the table, not in it."
    assert run(g, "put apple on refrigerator").feedback == "Things go in the refrigerator, not on it."
    closed = run(g, "put apple in refrigerator")
    assert closed.failure == "container_closed" and closed.feedback == "The refrigerator is closed."
    assert run(g, "put apple on shelf").failure == "entity_not_here"
    ok = run(g, "put apple on table")
    assert ok.success and ok.feedback == "The apple is now on the table."
    assert ok.added == [["on", "apple", "table"]] and ok.removed == [["in", "apple", "inventory"]]
    run(g, "open refrigerator")
    inside = run(g, "put peach refrigerator")  # preposition taken from the target
    assert inside.success and inside.added == [["in", "peach", "refrigerator"]]


def test_put_on_the_floor_of_the_current_room():
    g = game()
    run(g, "take apple", "go hallway")
    record = run(g, "put apple on floor")
    assert record.success and record.added == [["on", "apple", "floor_hallway"]]


def test_open_and_close():
    g = game()
    assert run(g, "open table").failure == "not_openable"
    assert run(g, "open table").feedback == "The table is not something that opens or closes."
    assert run(g, "close refrigerator").failure == "already_closed"
    assert run(g, "close refrigerator").feedback == "The refrigerator is already closed."
    opened = run(g, "open refrigerator")
    assert opened.success and opened.feedback == "The refrigerator is now open. Inside it you see a banana."
    assert opened.added == [["open", "refrigerator"]] and opened.removed == [["closed", "refrigerator"]]
    again = run(g, "open refrigerator")
    assert again.failure == "already_open" and again.feedback == "The refrigerator is already open."
    closed = run(g, "close refrigerator")
    assert closed.success and closed.feedback == "The refrigerator is now closed."
    assert run(g, "open freezer").failure == "entity_not_here"


def test_open_an_empty_container():
    g = game()
    run(g, "open cupboard", "take plate", "close cupboard")
    assert run(g, "open cupboard").feedback == "The cupboard is now open. It is empty."


def test_examine():
    g = game()
    assert run(g, "examine refrigerator").feedback == "The refrigerator is closed."
    assert run(g, "examine counter").feedback == "On the counter you see an apple."
    assert run(g, "examine apple").feedback == "The apple is on the counter."
    assert run(g, "examine inventory").feedback == "You are not carrying anything."
    run(g, "take apple")
    assert run(g, "examine apple").feedback == "You are carrying the apple."
    assert run(g, "examine inventory").feedback == "You are carrying an apple."
    assert run(g, "examine counter").feedback == "There is nothing on the counter."
    assert run(g, "examine kitchen").feedback.startswith("You are in the kitchen.")
    assert run(g, "examine pantry").feedback == "You are not in the pantry."
    assert run(g, "examine banana").failure == "entity_not_here"


def test_parse_failures_are_recorded_with_their_text():
    g = game()
    record = run(g, "dance")
    assert (record.success, record.failure, record.action) == (False, "unknown_verb", None)
    assert record.feedback == "I don't know how to 'dance'."
    assert run(g, "take unicorn").feedback == "I don't know what 'unicorn' means here."
    assert run(g, "take").feedback == "What do you want to take?"
    assert run(g, "put apple").feedback == "Where do you want to put the apple?"
    assert run(g, "").feedback == "You wrote no action after the >. What do you want to do?"


def test_failures_change_nothing():
    g = game()
    before = g.state
    for command in ("go living room", "take table", "put apple on table", "open table", "dance"):
        record = run(g, command)
        assert not record.success and record.added == record.removed == []
    assert g.state == before


def test_labels_follow_table_5():
    g = game()
    labels = {}
    for command in ("open refrigerator", "close refrigerator", "take apple", "put apple on table",
                    "examine table", "look", "go hallway"):
        record = run(g, command)
        assert record.success, command
        labels[record.action] = (record.epistemic, record.pragmatic)
    assert labels == {
        "open": (True, True),
        "close": (False, True),
        "take": (False, True),
        "put": (False, True),
        "examine": (True, False),
        "look": (False, False),
        "go": (True, True),
    }
    done = g.reply("> done")
    assert (done.epistemic, done.pragmatic) == (False, True)


def test_epistemic_gain_counts_facts_newly_observed():
    g = game()
    opened = run(g, "open refrigerator")
    # the banana's room and holder are revealed; the open state is the action's own effect
    assert opened.observed == [["at", "banana", "kitchen"], ["in", "banana", "refrigerator"], ["open", "refrigerator"]]
    assert opened.epistemic_gain == 2
    assert run(g, "look").epistemic_gain == 0
    walked = run(g, "go pantry")
    assert walked.epistemic_gain > 0
    assert ["on", "sandwich", "floor_pantry"] in walked.observed
    assert run(g, "go kitchen").epistemic_gain == 0  # seen before
