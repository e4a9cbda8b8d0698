"""The `task_url` filter: a task's page, or for a task the catalogue does not hold
(imported results of an environment the arena does not play), its suite's page."""

from envs.registry import all_tasks
from leaderboard.templatetags.arena_format import task_url


def test_a_known_task_links_to_its_page_by_class_or_id():
    cls = all_tasks()["lmact/gridworld"]
    assert task_url(cls) == task_url("lmact/gridworld") == "/tasks/lmact/gridworld/"


def test_an_unknown_task_links_to_its_suites_page_when_the_suite_has_one():
    assert task_url("balrog/an-environment-not-played-here") == "/suites/balrog/"
    assert task_url("nosuchsuite/game") == "/tasks/nosuchsuite/game/"
