"""The spec tables (envs.spec): what a row holds, what the registry makes of it, and
the measured figures read from envs/data/measured.json."""

import dataclasses
import json

import pytest

from envs import measured
from envs.adventure.engine import TURN_LIMIT
from envs.infogather.tasks import DEFAULT_COLOURS, DEFAULT_SHAPES, DEFAULT_TEXTURES, default_budget
from envs.registry import all_suites, all_tasks, catalogue, get_task_class, tasks_of
from envs.spec import TaskSpec
from envs.textatari.games import VERBALISERS


def _row(**fields):
    return TaskSpec(**{"id": "lmact/x", "entry_point": "envs.lmact.tictactoe:TicTacToe", "title": "X",
                       "max_steps": 10, "formats": ("ascii",), **fields})


def test_a_row_is_frozen_and_its_mappings_read_only():
    row = _row(settings={"max_steps": (10, 5)}, game={"board": 3})
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.title = "Y"
    with pytest.raises(TypeError):
        row.settings["extra"] = (1,)
    assert row.suite == "lmact" and row.game["board"] == 3


@pytest.mark.parametrize("fields, message", [
    ({"id": "tictactoe"}, "<suite>/<name>"),
    ({"formats": ()}, "observation format"),
    ({"max_steps": 0}, "at least 1"),
    ({"settings": {"max_steps": (5, 10)}}, "first value is the step limit"),
    ({"game": {"title": "Other"}}, "spec's own fields"),
])
def test_a_malformed_row_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        _row(**fields)


def test_the_registry_hands_out_the_game_with_the_rows_values():
    cls = get_task_class("balrog/minihack-boxoban-hard")
    assert cls.spec.id == cls.id == "balrog/minihack-boxoban-hard"
    assert (cls.title, cls.max_steps, cls.formats) == (cls.spec.title, cls.spec.max_steps, cls.spec.formats)
    assert cls.difficulty == "hard" and cls.balrog_name == "MiniHack-Boxoban-Hard-v0"
    # The game's own settings with the row's: BALROG's feedback switch on every task,
    # the step-limit choices on Crafter's row.
    crafter = get_task_class("balrog/crafter")
    assert set(crafter.settings) == {"silent_invalid_actions", "max_steps"}
    assert crafter.settings["max_steps"] == crafter.spec.settings["max_steps"]


def test_near_copies_are_rows_over_one_class():
    def game_classes(prefix):
        return {cls.__mro__[1] for task_id, cls in all_tasks().items() if task_id.startswith(prefix)}

    assert len(game_classes("balrog/babyai-")) == 1
    assert len(game_classes("adventure/")) == 1
    assert len(game_classes("textatari/")) == 1
    # MiniHack: three games (an explorer's levels, the quests, Boxoban) over eight rows.
    assert len(game_classes("balrog/minihack-")) == 3


def test_a_task_declared_twice_or_in_another_suites_table_is_refused():
    lmact, balrog = all_suites()["lmact"], all_suites()["balrog"]
    row = get_task_class("lmact/tictactoe").spec
    with pytest.raises(ValueError, match="declared twice"):
        catalogue([(lmact, (row, row))])
    with pytest.raises(ValueError, match="spec table of suite 'balrog'"):
        catalogue([(balrog, (row,))])


def test_an_entry_point_that_is_not_a_task_is_refused():
    with pytest.raises(TypeError, match="not an envs.core.Task"):
        catalogue([(all_suites()["lmact"], (_row(entry_point="envs.spec:TaskSpec"),))])


def test_limits_written_in_the_tables_match_the_games_rules():
    # The tables import no game, so the limits the games also know are checked here.
    assert get_task_class("infogather/single-feature").max_steps == default_budget(DEFAULT_COLOURS * DEFAULT_SHAPES)
    assert get_task_class("infogather/conjunction").max_steps == default_budget(
        DEFAULT_COLOURS * DEFAULT_SHAPES * DEFAULT_TEXTURES
    )
    assert {cls.max_steps for cls in tasks_of("adventure").values()} == {TURN_LIMIT}
    titles = {f"textatari/{verbaliser.game}": verbaliser.title for verbaliser in VERBALISERS}
    assert {task_id: cls.title for task_id, cls in tasks_of("textatari").items()} == titles


def test_every_task_and_format_has_measured_figures():
    missing = [
        f"{task_id}:{fmt}" for task_id, cls in all_tasks().items() for fmt in cls.formats
        if fmt not in cls.spec.prompt_sizes
    ]
    assert not missing, "run bench/prompt_sizes.py --write --task …: " + ", ".join(missing)
    unknown = set(json.loads(measured.MEASURED_PATH.read_text())["tasks"]) - set(all_tasks())
    assert not unknown, f"figures of tasks no table declares: {sorted(unknown)}"


def test_write_measured_replaces_only_the_measured_tasks(tmp_path, monkeypatch):
    path = tmp_path / "measured.json"
    path.write_text(measured.MEASURED_PATH.read_text())
    monkeypatch.setattr(measured, "MEASURED_PATH", path)
    measured._table.cache_clear()
    try:
        before = measured.measured("lmact/chess")
        figure = measured.Measured({"text": measured.PromptSize(first=1, per_step=2, answer=3)}, typical_steps=4.5)
        measured.write_measured({"balrog/nethack": figure}, path)
        assert measured.measured("balrog/nethack") == figure
        assert measured.measured("lmact/chess") == before
        assert measured.measured("lmact/unknown") == measured.NOTHING_MEASURED
    finally:
        measured._table.cache_clear()
