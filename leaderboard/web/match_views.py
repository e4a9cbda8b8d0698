"""Head-to-head matches: the list (/matches/), one match's page with its replay and
live view (/matches/<id>/), and its moves as JSON (/matches/<id>/moves.json?after=N)."""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import render

from arena.matches.catalogue import GAME_TITLES, MAX_ATTEMPTS
from arena.matches.public_errors import match_error_for
from leaderboard.match_payloads import match_payload, moves_after
from leaderboard.selectors.match_replays import match_or_404, recent_matches


def _score_text(result) -> str:
    return {1.0: "1–0", 0.5: "½–½", 0.0: "0–1"}.get(result, "")


def match_list(request):
    game = request.GET.get("game") if request.GET.get("game") in GAME_TITLES else None
    try:
        submission_id = int(request.GET.get("submission", "")) or None
    except ValueError:
        submission_id = None
    matches = recent_matches(game=game, submission_id=submission_id, viewer=request.user)
    rows = [{"match": m, "score": _score_text(m.result), "title": GAME_TITLES.get(m.game, m.game),
             "error": match_error_for(request.user, m)} for m in matches]
    return render(request, "leaderboard/matches.html", {
        "rows": rows, "game": game, "games": list(GAME_TITLES.items()),
    })


def match_detail(request, pk):
    match = match_or_404(pk, request.user)
    payload = match_payload(match, request.user)
    moves = moves_after(match.pk, -1)
    return render(request, "leaderboard/match.html", {
        "match": match,
        "data": {"match": payload, "moves": moves},
        "moves": moves,
        "seats": payload["seats"],
        "score": _score_text(match.result),
        "max_attempts": MAX_ATTEMPTS,
        "live": match.status in (match.QUEUED, match.RUNNING),
    })


def match_moves_json(request, pk):
    match = match_or_404(pk, request.user)
    try:
        after = int(request.GET.get("after", "-1"))
    except ValueError:
        return JsonResponse({"detail": "after must be a move index"}, status=400)
    return JsonResponse({"match": match_payload(match, request.user), "moves": moves_after(match.pk, after)})
