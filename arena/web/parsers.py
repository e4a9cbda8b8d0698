"""Request bodies of the REST API: JSON of bounded nesting depth."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

# Nothing the API takes is more than three levels deep; the margin is for clients that
# wrap what they send.
MAX_JSON_DEPTH = 32
TOO_DEEP = f"JSON parse error - the body is nested deeper than {MAX_JSON_DEPTH} levels."


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser that answers a deeply nested body with a 400. Python's json
    module descends one level per bracket: a body of 100,000 brackets raised
    RecursionError, a server error, and a shallower one could still reach code that
    recurses on what it was given."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(TOO_DEEP) from None
        if nesting_depth(data) > MAX_JSON_DEPTH:
            raise ParseError(TOO_DEEP)
        return data


def nesting_depth(value) -> int:
    """How many objects and arrays deep `value` goes (0 for a scalar), counted without
    recursion, and only up to one level past MAX_JSON_DEPTH."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            break
        pending.extend((child, depth + 1) for child in children)
    return deepest
