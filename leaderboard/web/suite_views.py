"""A suite's own pages: its page at /suites/<id>/ (chosen by its descriptor's suite_page,
one function per kind of page), its episodes across runs, and its fidelity notes."""

from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import render

from arena.models import Episode
from envs.registry import get_suite, tasks_of
from envs.suite import Suite
from leaderboard.boards.charts import best_score_bars
from leaderboard.reported.adventure import paper_tables
from leaderboard.reported.balrog import paper_board
from leaderboard.reported.figures import reported_set
from leaderboard.selectors.episodes import episodes_of_runs
from leaderboard.selectors.experiment_figures import best_scores_by_task
from leaderboard.selectors.ranking import metric_value
from leaderboard.selectors.runs import suite_runs_by_id, leaderboard_by_suite, lean_runs_of_tasks
from leaderboard.suites import adventure, balrog, infogather, textatari
from leaderboard.web.episode_lists import EPISODES_PER_PAGE
from leaderboard.web.views import filter_context


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
    filters, context = filter_context(request)
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
    filters, context = filter_context(request)
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
    filters, context = filter_context(request)
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
    runs = suite_runs_by_id(ids, descriptor.id, request.user)
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
