import dataclasses
from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render

from arena.endpoints.privacy import can_see_endpoint, public_error
from arena.models import Episode, Experiment, Run
from arena.services.submissions import PAPER_EPISODES_PER_RUN
from envs.registry import all_suites, all_tasks, get_suite, tasks_of
from envs.suite import Suite
from leaderboard import frames
from leaderboard.boards import front_page, overall
from leaderboard.suites import adventure, balrog, infogather, textatari
from leaderboard.web import task_pictures
from leaderboard.web.episode_lists import episode_filters_of, filter_links
from leaderboard.web.rendering import render_released
from leaderboard.web.run_waiting import waiting_reason
from leaderboard.reported.adventure import paper_tables
from leaderboard.reported.balrog import paper_board
from leaderboard.reported.figures import reported_set
from leaderboard.reported.display import baselines_chart, scaling_markers, task_reported
from leaderboard.boards.charts import (
    best_score_bars,
    experiment_scaling_figures,
    replay_heatmap,
    scaling_figures,
)
from leaderboard.selectors.episodes import (
    MIN_STEP_SEARCH_CHARS,
    STEP_SEARCH_LIMIT,
    bare_episode_or_404,
    end_reasons_of_run,
    filtered_episodes_of_run,
    search_steps,
    episode_or_404,
    episodes_of_runs,
    executed_actions,
    same_game_episodes,
)
from leaderboard.selectors.submissions import experiment_or_404, runs_of_experiment
from leaderboard.selectors.runs import (
    run_or_404,
    suite_runs_by_id,
    run_error_groups,
    MODE_FILTERS,
    STRATEGY_FILTERS,
    Filters,
    front_page_runs,
    has_model_runs,
    leaderboard_by_suite,
    leaderboard_rows,
    lean_runs_of_tasks,
)
from leaderboard.selectors.experiment_figures import (
    best_scores_by_task,
    replay_rows_by_format,
    scaling_points,
    scaling_points_by_format,
)
from leaderboard.selectors.ranking import metric_value, rate_breakdown_rows
from leaderboard.boards.neighbours import mark_rows
from leaderboard.serializers import EpisodeSerializer, RunSerializer


def _filter_context(request) -> tuple[Filters, dict]:
    filters = Filters.from_query(request.GET)
    return filters, {"filters": filters, "mode_filters": MODE_FILTERS, "strategy_filters": STRATEGY_FILTERS}


def index(request):
    """The front page, read in a screen or two (leaderboard.boards.front_page): the
    overall leaderboard of the tab and strategy asked for (unknown values fall back to
    LLM / all strategies, and the page says so), its ranked rows and baselines in one
    table and the rows without an average progress apart, then each suite's leaders and
    the links onward. Every task's table is on its task page and its suite's page."""
    filters, context = _filter_context(request)
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
    filters, context = _filter_context(request)
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


def suite_detail(request, suite):
    try:
        descriptor = get_suite(suite)
    except KeyError:
        raise Http404(f"no suite {suite}") from None
    page = SUITE_PAGES.get(descriptor.page)
    if page is None:
        raise Http404(f"the suite {suite} has no page")
    return page(request, descriptor)


# Ranked rows per task in a suite page's task tables; the task's page lists them all.
SUITE_PAGE_TASK_ROWS = 10


def best_score_page(request, suite: Suite):
    """LMAct Fig. 2: per task, each model's best run over every setting; then each
    task's leaderboard under the filters (its top SUITE_PAGE_TASK_ROWS ranked runs and
    its baselines; every run on the task's page), which the front page showed before."""
    filters, context = _filter_context(request)
    sections = best_scores_by_task(suite.id)
    runs = lean_runs_of_tasks(tasks_of(suite.id), filters)
    boards = [board for board in leaderboard_by_suite(filters, top=SUITE_PAGE_TASK_ROWS, runs=runs) if board.suite.id == suite.id]
    return render(
        request,
        "leaderboard/suite.html",
        {
            "suite": suite, "charts": best_score_bars(sections), "boards": boards, "shown_rows": SUITE_PAGE_TASK_ROWS,
            "task_filter_query": urlencode({key: value for key, value in vars(filters).items() if value}), **context,
        },
    )


def adventure_page(request, suite: Suite):
    """AdventureGame §4.2: Table 1, Table 2 and the turns chart."""
    filters, context = _filter_context(request)
    rows = adventure.leaderboard(suite.id, filters)
    return render(
        request,
        "leaderboard/adventure.html",
        {
            "suite": suite,
            "rows": rows,
            "table": adventure.experiment_cells(rows),
            "experiments": adventure.EXPERIMENTS,
            "turns": adventure.turns_chart(rows),
            "paper": paper_tables(suite.id),
            **context,
        },
    )


def infogather_page(request, suite: Suite):
    """Ke et al. §4: both metrics per run, Figs. 3–4 and Fig. 6."""
    filters, context = _filter_context(request)
    try:
        colours = int(request.GET.get("colours", 3))
    except ValueError:
        colours = 3
    sections = []
    for task_id, cls in tasks_of(suite.id).items():
        sections.append(
            {
                "task": cls,
                "rows": infogather.leaderboard(task_id, filters),
                "steps_id": f"fig-steps-{cls.id.split('/')[1]}",
                "steps": infogather.steps_chart(task_id, f"{cls.title}: steps to sufficient information"),
                "curve_id": f"fig-curve-{cls.id.split('/')[1]}",
                "curve": infogather.exploitation_chart(
                    task_id, colours, f"{cls.title}: exploitation curve, {colours} colours"
                ),
            }
        )
    return render(
        request,
        "leaderboard/infogather.html",
        {
            "suite": suite, "sections": sections, "colours": colours, "colour_choices": range(3, 11),
            "paper_set": reported_set(suite.id), **context,
        },
    )


def balrog_page(request, suite: Suite):
    """BALROG's leaderboard (BALROG §3): progress ± SE per environment and on average,
    LLM and VLM tabs; imported results apart unless ?imported=1 ranks them too."""
    mode = request.GET.get("mode", "llm")
    if mode not in balrog.MODES:
        mode = "llm"
    rank_imported = request.GET.get("imported") == "1"
    return render(
        request,
        "leaderboard/balrog.html",
        {
            "suite": suite,
            "board": balrog.board(suite, mode=mode, rank_imported=rank_imported),
            "modes": balrog.MODES,
            "mode": mode,
            "rank_imported": rank_imported,
            "paper_board": paper_board(suite, mode),
            "arena_tasks": balrog.arena_tasks(suite),
            # rank, submission, strategy, average, one per environment, tokens
            "columns": 5 + len(balrog.ENVIRONMENTS),
        },
    )


def textatari_page(request, suite: Suite):
    """TextAtari §3.3, App. E: the normalised score per game for every submission ×
    scenario × agent (baselines as reference rows), and the relative-performance chart
    of the two rows picked with ?a=…&b=… (Figs. 6–39)."""
    context = textatari.page_context(suite, request.GET)
    return render(request, "leaderboard/textatari.html", {**context, "paper_set": reported_set(suite.id)})


# The suite pages a descriptor may name (envs.suite.Suite.page).
SUITE_PAGES = {
    "best-score-per-task": best_score_page,
    "information-gathering": infogather_page,
    "clemscore-tables": adventure_page,
    "balrog-leaderboard": balrog_page,
    "textatari-scores": textatari_page,
}

# An episode list names its runs in the query string (?runs=3,4,5): at most this many.
MAX_LISTED_RUNS = 500
EPISODES_PER_PAGE = 200


def _run_ids(text: str) -> list[int] | None:
    parts = [part for part in text.split(",") if part.strip()]
    if not parts or len(parts) > MAX_LISTED_RUNS or not all(part.strip().isdigit() for part in parts):
        return None
    return [int(part) for part in parts]


FIDELITY_DIR = settings.BASE_DIR / "docs" / "fidelity"


def fidelity_page_exists(suite_id: str) -> bool:
    return (FIDELITY_DIR / f"{suite_id}.md").is_file()


def suite_fidelity(request, suite):
    """A suite's fidelity page (docs/fidelity/<suite>.md): each element of the protocol
    against the reference implementation, shown as written."""
    try:
        descriptor = get_suite(suite)
    except KeyError:
        raise Http404(f"no suite {suite}") from None
    if not fidelity_page_exists(descriptor.id):
        raise Http404(f"{descriptor.title} has no fidelity page")
    text = (FIDELITY_DIR / f"{descriptor.id}.md").read_text(encoding="utf-8")
    return render(request, "leaderboard/fidelity.html", {"suite": descriptor, "text": text})


def suite_episodes(request, suite):
    """The episodes behind a figure of a suite page (e.g. one cell of BALROG's
    leaderboard): the episodes of the runs named by ?runs=, with each episode's value
    of the suite's ranking metric."""
    try:
        descriptor = get_suite(suite)
    except KeyError:
        raise Http404(f"no suite {suite}") from None
    ids = _run_ids(request.GET.get("runs", ""))
    if ids is None:
        return HttpResponseBadRequest(f"runs= takes up to {MAX_LISTED_RUNS} run ids separated by commas")
    runs = suite_runs_by_id(ids, descriptor.id)
    if not runs:
        raise Http404("none of these runs belongs to the suite")
    metric = descriptor.primary_metric
    page = Paginator(episodes_of_runs(runs), EPISODES_PER_PAGE).get_page(request.GET.get("page"))
    rows = [
        {"episode": episode, "value": _episode_value(episode, metric)}
        for episode in page.object_list
    ]
    return render(
        request,
        "leaderboard/episodes.html",
        {
            "suite": descriptor, "metric": metric, "rows": rows, "page": page,
            "runs": [{"run": run, "value": metric_value(run, metric)} for run in runs],
            "runs_query": ",".join(str(run.pk) for run in runs),
        },
    )


def _episode_value(episode: Episode, metric) -> float | None:
    """An episode's value of a suite's metric as the leaderboard shows it."""
    value = episode.score if metric.is_summed_reward else (episode.metrics or {}).get(metric.episode_metric)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value * metric.scale


def experiment_detail(request, pk):
    experiment = experiment_or_404(pk, request.user)
    runs = runs_of_experiment(experiment)
    context = {"experiment": experiment, "runs": runs}
    if experiment.kind == Experiment.SWEEP:
        _, baselines = scaling_points(experiment.task, experiment.format)
        context["figures"] = experiment_scaling_figures(experiment, baselines)
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
    run = run_or_404(pk, request.user)
    episode_filters, ignored = episode_filters_of(request)
    page = Paginator(filtered_episodes_of_run(run, episode_filters), EPISODES_PER_PAGE).get_page(request.GET.get("page"))
    owner = request.user.is_authenticated and run.submission.owner_id == request.user.pk
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
            "paper_episodes": _paper_episodes(run),
        },
    )


def _paper_episodes(run: Run) -> int | None:
    """The paper's episodes per point when this experiment run plays fewer (LMAct §2.4)."""
    if run.experiment_id and run.num_episodes < PAPER_EPISODES_PER_RUN:
        return PAPER_EPISODES_PER_RUN
    return None


def _same_seed(episode: Episode):
    """Finished episodes of other runs that played the very same game (task, format,
    options, seed): the natural comparison (docs/design.md §1.2); none for an imported episode
    whose seed was not logged: its game is unknown."""
    if episode.seed is None:
        return []
    return [other for other in same_game_episodes(episode) if other.run.options == episode.run.options]


def episode_detail(request, pk):
    episode = episode_or_404(pk, request.user)
    search = request.GET.get("q", "").strip()[:200]
    matches = search_steps(episode, search) if len(search) >= MIN_STEP_SEARCH_CHARS else None
    return render(
        request,
        "leaderboard/episode.html",
        {"episode": episode, "episode_data": EpisodeSerializer(episode, context={"request": request}).data,
         "same_seed": _same_seed(episode), "frames": frames.frames_state(episode), "search": search,
         "min_search": MIN_STEP_SEARCH_CHARS, "matches": None if matches is None else matches[:STEP_SEARCH_LIMIT],
         "more_matches": matches is not None and len(matches) > STEP_SEARCH_LIMIT, "search_limit": STEP_SEARCH_LIMIT},
    )


# The first difference names both actions in a sentence. An action can be a model's
# whole reply (AdventureGame executes the reply), megabytes long: the page shows its start.
SHOWN_ACTION_CHARS = 200


def _shown_action(action: str | None) -> str | None:
    if action is None or len(action) <= SHOWN_ACTION_CHARS:
        return action
    return action[:SHOWN_ACTION_CHARS] + "…"


def first_difference(left: Episode, right: Episode) -> dict | None:
    """The first step index at which the two episodes' executed actions differ, with
    the start of each side's action there (None for a side that had already ended);
    None when they executed the same actions at every step."""
    left_actions = executed_actions(left)
    right_actions = executed_actions(right)
    for index in sorted(left_actions.keys() | right_actions.keys()):
        if left_actions.get(index) != right_actions.get(index):
            return {
                "index": index,
                "left": _shown_action(left_actions.get(index)),
                "right": _shown_action(right_actions.get(index)),
            }
    return None


def _difference_in_words(difference: dict | None, left: Episode, right: Episode) -> str:
    if difference is None:
        if not left.num_steps and not right.num_steps:
            return "Neither episode has recorded steps."
        return "The executed actions are the same at every step."
    words = f"Executed actions first differ at step {difference['index']}"
    if difference["left"] is None or difference["right"] is None:
        still_playing = left if difference["left"] is not None else right
        return f"{words}, where only {still_playing.run.submission.name} still plays."
    return (
        f"{words}: {left.run.submission.name} played {difference['left']}, "
        f"{right.run.submission.name} played {difference['right']}."
    )


def compare(request, pk, other_pk):
    """Two episodes of the same game side by side on one scrubber (?step=N), drawn by
    the player's renderers, with the first step where their actions differ."""
    left = episode_or_404(pk, request.user)
    right = episode_or_404(other_pk, request.user)
    last = max(left.num_steps, right.num_steps, 1) - 1
    try:
        index = min(max(int(request.GET.get("step", 0)), 0), last)
    except ValueError:
        index = 0
    difference = first_difference(left, right)
    sides = [{"episode": left, "prefix": "left-"}, {"episode": right, "prefix": "right-"}]
    compare_data = {
        "left": EpisodeSerializer(left, context={"request": request}).data,
        "right": EpisodeSerializer(right, context={"request": request}).data,
        "step": index,
        "last": last,
        "first_difference": difference,
    }
    return render(
        request,
        "leaderboard/compare.html",
        {
            "left": left, "right": right, "sides": sides, "index": index, "last": last,
            "difference": difference, "difference_words": _difference_in_words(difference, left, right),
            "compare_data": compare_data,
        },
    )


def episode_pgn(request, pk):
    """A chess episode as a PGN file (lmact/chess stores it when the game ends)."""
    episode = bare_episode_or_404(pk, request.user)
    pgn = (episode.metrics or {}).get("pgn")
    if not pgn:
        raise Http404("this episode has no PGN")
    response = HttpResponse(pgn, content_type="application/x-chess-pgn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="arena-episode-{episode.pk}.pgn"'
    return response
