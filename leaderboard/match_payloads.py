"""A head-to-head match and its moves as the match page, its JSON and its live channel
send them: the same dicts everywhere, so the replay and the live view draw alike."""

from __future__ import annotations

from arena.matches.catalogue import GAME_SPECS, MAX_ATTEMPTS
from arena.matches.public_errors import match_error_for
from leaderboard.selectors.match_replays import match_moves_after

# Completions and prompts are shown whole up to this many characters.
SHOWN_CHARS = 20_000


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"… [{len(text) - SHOWN_CHARS:,} more characters]"


def _seat(submission, side: str) -> dict:
    return {
        "id": submission.pk,
        "name": submission.name,
        "side": side,
        "url": submission.get_absolute_url(),
        "is_model": not submission.is_baseline,
    }


def match_payload(match, reader=None) -> dict:
    """The match as `reader` may read it: its error in full for staff and the failing
    seat's owner, its kind for everyone else and on the live channel, which everyone
    shares (arena.endpoints.public_errors)."""
    game = GAME_SPECS.get(match.game)
    sides = game.seat_names if game else ("first", "second")
    return {
        "id": match.pk,
        "game": match.game,
        "title": game.title if game else match.game,
        "renderer": game.renderer if game else "text",
        "status": match.status,
        "result": match.result,
        "end_reason": match.end_reason,
        "error": match_error_for(reader, match),
        "opening": match.opening,
        "opening_moves": match.opening_moves,
        "start_board": match.start_board,
        "num_moves": match.num_moves,
        "pair_key": match.pair_key,
        "round": match.round,
        "max_attempts": MAX_ATTEMPTS,
        "seats": [_seat(match.first, sides[0]), _seat(match.second, sides[1])],
    }


def move_payload(move) -> dict:
    return {
        "index": move.index,
        "seat": move.seat,
        "observation": move.observation,
        "messages": [{"role": m.get("role", ""), "content": _cut(str(m.get("content", "")))} for m in move.messages],
        "completion": _cut(move.completion),
        "reasoning": _cut(move.reasoning),
        "parsed_action": move.parsed_action,
        "action": move.action,
        "legal": move.legal,
        "num_attempts": move.num_attempts,
        "attempts": [
            {
                "completion": _cut(a.get("completion", "")),
                "reasoning": _cut(a.get("reasoning", "")),
                "parsed_action": a.get("parsed_action", ""),
                "legal": a.get("legal", False),
                "feedback": a.get("feedback", ""),
                "tokens_in": a.get("tokens_in"),
                "tokens_out": a.get("tokens_out"),
                "latency_ms": a.get("latency_ms"),
            }
            for a in move.attempts
        ],
        "tokens_in": move.tokens_in,
        "tokens_out": move.tokens_out,
        "reasoning_tokens": move.reasoning_tokens,
        "latency_ms": move.latency_ms,
        "board_after": move.board_after,
    }


def moves_after(match_id: int, after_index: int, limit: int = 500) -> list[dict]:
    return [move_payload(move) for move in match_moves_after(match_id, after_index, limit)]
