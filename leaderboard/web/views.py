"""The read side's main pages: the front page, the task catalogue, a task's page, an
experiment's and a run's. A suite's own pages are in suite_views, an episode's in
episode_views."""

import dataclasses
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import render

from arena.endpoints.privacy import can_see_endpoint, public_error
from arena.models import Experiment, Run
from arena.selectors import owners_takedown_notice
from arena.services.submissions import PAPER_EPISODES_PER_RUN
from envs.registry import all_suites, all_tasks, get_suite, tasks_of
from leaderboard.boards import front_page, overall
from leaderboard.web import task_pictures
from leaderboard.web.episode_lists import EPISODES_PER_PAGE, episode_filters_of, filter_links
from leaderboard.web.rendering import render_released
from leaderboard.web.run_waiting import waiting_reason
from leaderboard.reported.display import baselines_chart, scaling_markers, task_reported
from leaderboard.boards.charts import experiment_scaling_figures, replay_heatmap, scaling_figures
from leaderboard.selectors.episodes import end_reasons_of_run, filtered_episodes_of_run
from leaderboard.selectors.submissions import experiment_or_404, runs_of_experiment
from leaderboard.selectors.runs import (
    run_or_404,
    run_error_groups,
    MODE_FILTERS,
    STRATEGY_FILTERS,
    Filters,
    front_page_runs,
    has_model_runs,
    leaderboard_by_suite,
    leaderboard_rows,
)
from leaderboard.selectors.experiment_figures import (
    replay_rows_by_format,
    scaling_points,
    scaling_points_by_format,
)
from leaderboard.selectors.ranking import rate_breakdown_rows
from leaderboard.boards.neighbours import mark_rows
from leaderboard.serializers import RunSerializer


def filter_context(request) -> tuple[Filters, dict]:
    """The leaderboard filters of the query string, and what the filter bar shows."""
    filters = Filters.from_query(request.GET)
    return filters, {"filters": filters, "mode_filters": MODE_FILTERS, "strategy_filters": STRATEGY_FILTERS}


def index(request):
    """The front page, read in a screen or two (leaderboard.boards.front_page): the
    overall leaderboard of the tab and strategy asked for (unknown values fall back to
    LLM / all strategies, and the page says so), its ranked rows and baselines in one
    table and the rows without an average progress apart, then each suite's leaders and
    the links onward. Every task's table is on its task page and its suite's page."""
    filters, context = filter_context(request)
    tab = request.GET.get("tab", "llm")
    ignored = [] if tab in overall.TABS else [f"unknown tab {tab!r}"]
    tab = tab if tab in overall.TABS else "llm"
    # One read of the runs for the board and the suites' leaders.
    _, tab_runs = front_page_runs(filters, tab)
    board = overall.board(tab, filters.strategy, runs=tab_runs)
    all_rows = request.GET.get("rows") == "all"
    query = {"tab": tab, **({"strategy": filters.strategy} if filters.strategy else {})}
    # One column per suite unless the visitor asked for one per task.
    per_task = request.GET.get("columns") == "tasks"
    page_query = {**query, **({"columns": "tasks"} if per_task else {})}
    task_boards = leaderboard_by_suite(Filters(mode=tab, strategy=filters.strategy), top=1, runs=tab_runs)
    rows = front_page.front_rows(board, all_rows=all_rows)
    # Released after rendering: the context holds the board's thousand runs.
    return render_released(
        request,
        "leaderboard/index.html",
        {
            "overall": board, "rows": rows, "all_rows": all_rows,
            # The two tables' boards: the ranked rows with the baselines, and the rows apart.
            "ranked_board": dataclasses.replace(board, rows=rows.ranked, custom_rows=rows.custom),
            "apart_board": dataclasses.replace(board, rows=rows.apart, custom_rows=[]),
            "leaders": front_page.suite_leaders(board, task_boards), "tabs": overall.TABS, "tab": tab,
            "ignored": ignored, "download_query": urlencode(query),
            "tab_links": [(key, label, urlencode({**page_query, "tab": key})) for key, label in overall.TABS.items()],
            "per_task": per_task, "per_task_query": urlencode({**query, "columns": "tasks"}),
            "compact_query": urlencode(query),
            "all_rows_query": urlencode({**page_query, "rows": "all"}),
            "strategy_label": STRATEGY_FILTERS.get(filters.strategy, ""),
            "average_label": overall.AVERAGE_LABEL, "average_digits": overall.AVERAGE_DIGITS, **context,
        },
    )


def tasks(request):
    """Every task, grouped by suite in the suites' order: one line each with a picture
    of its game (leaderboard.web.task_pictures), its formats and its step limit; what the
    task is and how it is played is on its own page."""
    groups = [
        {
            "suite": suite,
            "tasks": [
                {"task": cls, "picture": task_pictures.picture_url(task_id)}
                for task_id, cls in tasks_of(suite.id).items()
            ],
        }
        for suite in all_suites().values()
    ]
    return render(request, "leaderboard/tasks.html", {"groups": [group for group in groups if group["tasks"]]})


def task_picture(request, suite, name):
    """The picture of a task's game for the Tasks page, drawn on first request and
    cached on disk."""
    try:
        path = task_pictures.task_picture_file(f"{suite}/{name}")
    except KeyError:
        raise Http404(f"no task {suite}/{name}") from None
    response = HttpResponse(path.read_bytes(), content_type="image/png")
    response["Cache-Control"] = "public, max-age=86400"
    return response


def task_detail(request, suite, name):
    task_id = f"{suite}/{name}"
    cls = all_tasks().get(task_id)
    if cls is None:
        raise Http404(f"no task {task_id}")
    descriptor = get_suite(cls.suite)
    filters, context = filter_context(request)
    context["picture"] = task_pictures.picture_url(task_id)
    rows = mark_rows(leaderboard_rows(task_id, filters))
    reported = task_reported(task_id, descriptor, filters.mode)
    # The table as CSV, with the same filters (leaderboard.downloads.leaderboards).
    context["csv_query"] = urlencode(
        {"task": task_id, **{k: v for k, v in vars(filters).items() if v}, "format": "csv"}, safe="/"
    )
    if not has_model_runs(task_id):
        # Nothing but baselines: one chart that reads on its own instead of empty
        # model axes, and an invitation to submit (issue #17, item 7).
        return render(
            request,
            "leaderboard/task.html",
            {
                "task": cls, "suite": descriptor, "rows": rows, "reported": reported, "no_models": True,
                "baselines_chart": baselines_chart(cls.title, rows, reported, descriptor),
                "breakdown": rate_breakdown_rows(cls, rows), **context,
            },
        )
    charts, replays = [], []
    # Scores against the number of demonstrations (LMAct §3.2), and the replay-control
    # experiment (LMAct App. C.2), for the suites that have them.
    # The task's runs read once for every format's charts (once per format before).
    points = scaling_points_by_format(task_id) if descriptor.demonstrations else {}
    replays_by_format = replay_rows_by_format(task_id) if descriptor.demonstrations and descriptor.experiments else {}
    for fmt in cls.formats if descriptor.demonstrations else ():
        markers = scaling_markers(reported, fmt, descriptor.primary_metric)
        figures = scaling_figures(task_id, fmt, markers, points=points.get(fmt, ({}, {})))
        charts.append({"format": fmt, "score_id": f"fig-score-{fmt}", "illegal_id": f"fig-illegal-{fmt}", **figures})
        replay = replays_by_format.get(fmt, [])
        if replay:
            replays.append(
                {"id": f"fig-replay-{fmt}", "figure": replay_heatmap(replay, f"Replaying one demonstration · {fmt}")}
            )
    return render(
        request,
        "leaderboard/task.html",
        {
            "task": cls, "suite": descriptor, "rows": rows, "charts": charts, "replays": replays, "reported": reported,
            "breakdown": rate_breakdown_rows(cls, rows), **context,
        },
    )


def experiment_detail(request, pk):
    experiment = experiment_or_404(pk, request.user, owner_reads=True)
    runs = runs_of_experiment(experiment, request.user)
    context = {"experiment": experiment, "runs": runs,
               "takedown": owners_takedown_notice(request.user, experiment.submission)}
    if experiment.kind == Experiment.SWEEP:
        _, baselines = scaling_points(experiment.task, experiment.format)
        context["figures"] = experiment_scaling_figures(experiment, baselines, request.user)
    elif experiment.kind == Experiment.ABLATION:
        cells = {(r.settings.show_legal_actions, r.settings.chain_of_thought): r for r in runs}
        context["ablation"] = [
            {"legal": legal, "cells": [cells.get((legal, cot)) for cot in (False, True)]} for legal in (False, True)
        ]
    elif experiment.kind == Experiment.REPLAY:
        entry = runs[0].metric_sums.get("replay_accuracy") if runs else None
        if entry:
            curve = [s / n for s, n in zip(entry["curve_sum"], entry["curve_n"])]
            label = experiment.submission.model or experiment.submission.name
            context["heatmap"] = replay_heatmap([(label, curve, entry["curve_n"])], "Replay accuracy per step")
    return render(request, "leaderboard/experiment.html", context)


def run_detail(request, pk):
    run = run_or_404(pk, request.user, owner_reads=True)
    takedown = owners_takedown_notice(request.user, run.submission, run)
    episode_filters, ignored = episode_filters_of(request)
    page = Paginator(filtered_episodes_of_run(run, episode_filters), EPISODES_PER_PAGE).get_page(request.GET.get("page"))
    # A taken-down run takes no writes: its owner reads the banner instead of the buttons.
    owner = request.user.is_authenticated and run.submission.owner_id == request.user.pk and takedown is None
    error_groups = run_error_groups(run) if run.episodes_failed else []
    episodes = page.object_list
    if not can_see_endpoint(request.user, run.submission):
        # Others read the kind of each failure, not the endpoint's own words (arena.endpoints.privacy).
        episodes = list(episodes)
        for episode in episodes:
            episode.error = public_error(episode.error, episode.error_kind)
        for group in error_groups:  # the group's line says the kind already
            group.example = group.example if public_error(group.example, group.kind) == group.example else ""
    return render(
        request,
        "leaderboard/run.html",
        {
            "run": run, "episodes": episodes, "page": page, "episode_filters": episode_filters,
            "filters_ignored": ignored, "end_reasons": end_reasons_of_run(run), **filter_links(episode_filters, page),
            "run_data": RunSerializer(run).data, "waiting": waiting_reason(run),
            "error_groups": error_groups, "is_owner": owner,
            "run_terminal_statuses": Run.TERMINAL,
            "paper_episodes": _paper_episodes(run), "takedown": takedown,
        },
    )


def _paper_episodes(run: Run) -> int | None:
    """The paper's episodes per point when this experiment run plays fewer (LMAct §2.4)."""
    if run.experiment_id and run.num_episodes < PAPER_EPISODES_PER_RUN:
        return PAPER_EPISODES_PER_RUN
    return None
