"""Task classes reach page templates as values; Django's templates call any callable
they meet, and a task class called would start a new game. The Django side tells its
templates not to (arena.apps); envs knows nothing of it."""

from django.template import Context, Template

from envs.registry import get_task_class


def test_a_template_reads_a_task_class_without_starting_a_game(monkeypatch):
    cls = get_task_class("lmact/chess")
    started = []
    monkeypatch.setattr(cls, "__init__", lambda self, *args, **kwargs: started.append(args))
    html = Template("{{ task.title }} · {{ task.max_steps }} steps · {{ task.formats|join:', ' }}").render(
        Context({"task": cls})
    )
    assert html == "Chess · 100 steps · ascii, ascii-annotated, fen, pgn, rgb"
    assert started == []
