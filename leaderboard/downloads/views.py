"""Downloads of an episode (JSON Lines, animated GIF) and of a run (zip): the views only
look the object up and hand over what leaderboard.downloads.exports and leaderboard.frames make."""

from __future__ import annotations

from django.http import HttpResponse, StreamingHttpResponse

from arena.endpoints.privacy import can_see_endpoint
from arena.web.throttles import download_limited
from leaderboard import frames
from leaderboard.downloads import exports
from leaderboard.selectors.episodes import bare_episode_or_404, episode_or_404
from leaderboard.selectors.runs import run_or_404


def _refused(reason: exports.NotExportable) -> HttpResponse:
    # Not found as a file, with the reason in words (a plain 404 page would say nothing).
    return HttpResponse(str(reason), status=404, content_type="text/plain; charset=utf-8")


def _streamed(chunks, filename: str, content_type: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(exports.served_async(chunks), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@download_limited
def episode_jsonl(request, pk):
    """The episode as JSON Lines: a header line, then one line per step (see
    leaderboard.downloads.exports for what they hold)."""
    episode = episode_or_404(pk, request.user)
    try:
        exports.exportable(episode.run.submission)
    except exports.NotExportable as reason:
        return _refused(reason)
    detailed = can_see_endpoint(request.user, episode.run.submission)
    return _streamed(exports.episode_jsonl(episode, detailed), f"arena-episode-{episode.pk}.jsonl",
                     "application/x-ndjson; charset=utf-8")


@download_limited
def run_zip(request, pk):
    """The run's episodes, one JSON Lines file each, with run.json (its aggregates)."""
    run = run_or_404(pk, request.user)
    try:
        exports.exportable(run.submission)
    except exports.NotExportable as reason:
        return _refused(reason)
    detailed = can_see_endpoint(request.user, run.submission)
    return _streamed(exports.run_zip(run, detailed), f"arena-run-{run.pk}-episodes.zip", "application/zip")


@download_limited
def episode_gif(request, pk):
    """The episode's pictures as an animated GIF (leaderboard.frames: sampled, scaled,
    cached on disk by content)."""
    episode = bare_episode_or_404(pk, request.user)
    path = frames.episode_gif(episode)
    if path is None:
        return HttpResponse("This episode has no pictures to animate.", status=404,
                            content_type="text/plain; charset=utf-8")
    # Whole: the GIF is bounded (leaderboard.frames), and a file streamed synchronously
    # would be read whole into memory by the ASGI handler anyway.
    response = HttpResponse(path.read_bytes(), content_type="image/gif")
    response["Content-Disposition"] = f'inline; filename="arena-episode-{episode.pk}.gif"'
    return response
