"""The compact, deterministic JSON layout AdventureGame's instance fixture is written in
(`python -m envs.adventure.generate`): short lists and objects on one line, so the
fixture reads and diffs well."""

from __future__ import annotations


# -- a compact, deterministic JSON layout ----------------------------------------------
def dumps(value, indent: int = 0, width: int = 100) -> str:
    import json

    pad = "  " * indent
    inner = "  " * (indent + 1)

    def scalar(v) -> str:
        return json.dumps(v, ensure_ascii=False)

    def flat(v) -> str | None:
        """One-line form for scalars and lists of scalars."""
        if isinstance(v, (str, int, float, bool)) or v is None:
            return scalar(v)
        if isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) or x is None for x in v):
            return "[" + ", ".join(scalar(x) for x in v) + "]"
        return None

    one_line = flat(value)
    if one_line is not None and (not isinstance(value, list) or len(pad) + len(one_line) <= width):
        return one_line
    if isinstance(value, dict):
        if not value:
            return "{}"
        pairs = [f"{scalar(k)}: {flat(v)}" if flat(v) is not None and not isinstance(v, list) else None
                 for k, v in value.items()]
        if all(pair is not None for pair in pairs):
            inline = "{" + ", ".join(pairs) + "}"
            if len(pad) + len(inline) <= width:
                return inline
            return "{\n" + ",\n".join(inner + row for row in _pack(pairs, width - len(inner))) + "\n" + pad + "}"
        lines = [f"{inner}{scalar(k)}: {dumps(v, indent + 1, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(lines) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [flat(x) for x in value]
        if all(item is not None for item in items):
            return "[\n" + ",\n".join(inner + row for row in _pack(items, width - len(inner))) + "\n" + pad + "]"
        lines = [inner + dumps(x, indent + 1, width) for x in value]
        return "[\n" + ",\n".join(lines) + "\n" + pad + "]"
    raise TypeError(f"cannot write {type(value).__name__}")


def _pack(items: list[str], width: int) -> list[str]:
    """Short items several to a line (joined by ", ", each line at most `width`)."""
    rows, row = [], ""
    for item in items:
        candidate = item if not row else row + ", " + item
        if row and len(candidate) + 1 > width:
            rows.append(row)
            row = item
        else:
            row = candidate
    rows.append(row)
    return rows
