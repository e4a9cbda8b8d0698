"""An episode's pages: its replay, two episodes of one seed compared step by step, and a
chess game's PGN."""

from django.http import Http404, HttpResponse
from django.shortcuts import render

from arena.models import Episode
from arena.selectors import owners_takedown_notice
from leaderboard import frames
from leaderboard.selectors.episodes import (
    MIN_STEP_SEARCH_CHARS,
    STEP_SEARCH_LIMIT,
    bare_episode_or_404,
    search_steps,
    episode_or_404,
    executed_actions,
    same_game_episodes,
)
from leaderboard.serializers import EpisodeSerializer


def _same_seed(episode: Episode):
    """Finished episodes of other runs that played the very same game (task, format,
    options, seed): the natural comparison (docs/design.md §1.2); none for an imported episode
    whose seed was not logged: its game is unknown."""
    if episode.seed is None:
        return []
    return [other for other in same_game_episodes(episode) if other.run.options == episode.run.options]


def episode_detail(request, pk):
    episode = episode_or_404(pk, request.user, owner_reads=True)
    search = request.GET.get("q", "").strip()[:200]
    matches = search_steps(episode, search) if len(search) >= MIN_STEP_SEARCH_CHARS else None
    return render(
        request,
        "leaderboard/episode.html",
        {"episode": episode, "episode_data": EpisodeSerializer(episode, context={"request": request}).data,
         "same_seed": _same_seed(episode), "frames": frames.frames_state(episode), "search": search,
         "min_search": MIN_STEP_SEARCH_CHARS, "matches": None if matches is None else matches[:STEP_SEARCH_LIMIT],
         "more_matches": matches is not None and len(matches) > STEP_SEARCH_LIMIT, "search_limit": STEP_SEARCH_LIMIT,
         "takedown": owners_takedown_notice(request.user, episode.run.submission, episode.run),
         "prompt_opening": prompt_opening(episode)},
    )


# A prompt's opening can hold hundreds of LMAct demonstrations: the page shows its start,
# the JSONL download holds it whole.
SHOWN_OPENING_CHARS = 20_000


def prompt_opening(episode: Episode) -> dict | None:
    """What the model was sent before the first step's observation (Episode.prompt_prefix:
    the suite's instructions, LMAct's demonstrations), as the page shows it: its text in
    order, a picture named where it was sent, cut after SHOWN_OPENING_CHARS characters.
    None for an episode with no stored opening (a baseline's, an agent endpoint's)."""
    parts = episode.prompt_prefix or []
    text = "".join(part.get("text", "") if part.get("type") == "text" else "[picture]" for part in parts)
    if not text:
        return None
    return {"text": text[:SHOWN_OPENING_CHARS], "more": max(0, len(text) - SHOWN_OPENING_CHARS)}


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
    # The owner of a taken-down episode may set it beside another (arena.moderation: owner_reads).
    left = episode_or_404(pk, request.user, owner_reads=True)
    right = episode_or_404(other_pk, request.user, owner_reads=True)
    takedown = (owners_takedown_notice(request.user, left.run.submission, left.run)
                or owners_takedown_notice(request.user, right.run.submission, right.run))
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
            "compare_data": compare_data, "takedown": takedown,
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
