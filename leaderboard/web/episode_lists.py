"""The lists of episodes a visitor filters (issue #42, item 7): the filters read from the
query string, the links of a filtered list's pages, and a task's episodes across its runs.
The run page's list is leaderboard.web.views.run_detail."""

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render

from arena.endpoints.privacy import error_for
from envs.registry import all_tasks
from leaderboard.selectors.episodes import EpisodeFilters, end_reasons_of_task, filtered_episodes_of_task

EPISODES_PER_PAGE = 200


def episode_filters_of(request) -> tuple[EpisodeFilters, str]:
    """The episode filters of the query string, and what was ignored ("" if nothing)."""
    try:
        return EpisodeFilters.from_query(request.GET), ""
    except ValueError as error:
        return EpisodeFilters(), f"Filters ignored: {error}."


def filter_links(filters: EpisodeFilters, page) -> dict:
    """The query strings of the filtered list's other pages."""
    query = filters.query()
    return {
        "filter_query": urlencode(query),
        "previous_query": urlencode({**query, "page": page.previous_page_number()}) if page.has_previous() else "",
        "next_query": urlencode({**query, "page": page.next_page_number()}) if page.has_next() else "",
    }


def task_episodes(request, suite, name):
    """Every episode of a task, across its runs, under the episode filters (illegal, cut
    off, error, end reason, score range), newest run first, a page at a time."""
    task_id = f"{suite}/{name}"
    cls = all_tasks().get(task_id)
    if cls is None:
        raise Http404(f"no task {task_id}")
    episode_filters, ignored = episode_filters_of(request)
    page = Paginator(filtered_episodes_of_task(task_id, episode_filters), EPISODES_PER_PAGE).get_page(request.GET.get("page"))
    episodes = list(page.object_list)
    for episode in episodes:
        # An endpoint's own words reach only its owner and staff (arena.endpoints.privacy).
        episode.shown_error = error_for(request.user, episode)
    return render(
        request,
        "leaderboard/task_episodes.html",
        {
            "task": cls, "episodes": episodes, "page": page, "episode_filters": episode_filters,
            "filters_ignored": ignored, "end_reasons": end_reasons_of_task(task_id), **filter_links(episode_filters, page),
        },
    )
