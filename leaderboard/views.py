from django.http import Http404
from django.shortcuts import get_object_or_404, render

from arena.models import Episode, Run
from envs.registry import all_tasks
from leaderboard.charts import scaling_figures
from leaderboard.selectors import leaderboard_by_task, leaderboard_rows
from leaderboard.serializers import EpisodeSerializer, RunSerializer


def index(request):
    return render(request, "leaderboard/index.html", {"sections": leaderboard_by_task()})


def tasks(request):
    return render(request, "leaderboard/tasks.html", {"tasks": [cls for _, cls in sorted(all_tasks().items())]})


def task_detail(request, suite, name):
    task_id = f"{suite}/{name}"
    cls = all_tasks().get(task_id)
    if cls is None:
        raise Http404(f"no task {task_id}")
    charts = []
    for fmt in cls.formats:
        figures = scaling_figures(task_id, fmt)
        charts.append({"format": fmt, "score_id": f"fig-score-{fmt}", "illegal_id": f"fig-illegal-{fmt}", **figures})
    return render(
        request,
        "leaderboard/task.html",
        {"task": cls, "rows": leaderboard_rows(task_id), "charts": charts},
    )


def run_detail(request, pk):
    run = get_object_or_404(Run.objects.select_related("submission"), pk=pk)
    episodes = run.episodes.order_by("index")
    return render(
        request,
        "leaderboard/run.html",
        {"run": run, "episodes": episodes, "run_data": RunSerializer(run).data},
    )


def episode_detail(request, pk):
    episode = get_object_or_404(Episode.objects.select_related("run__submission"), pk=pk)
    return render(
        request,
        "leaderboard/episode.html",
        {"episode": episode, "episode_data": EpisodeSerializer(episode).data},
    )
