"""Write serializers that refuse fields they do not have.

DRF drops unknown keys without a word, so a script that sends `num_episodes` to the
submissions API (the experiments API's spelling) got the default ten episodes per task
and no hint. Refusing the request instead, with the field named and the nearest real
one suggested, changes nothing and tells the user what to send. A read-only field
(`id`, `status`, `moderation`…) sent in a write is refused the same way: the arena sets
it, and a script that sent it believed it would be taken.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from rest_framework import serializers


class RejectsUnknownFields:
    """Mix into a serializer before its DRF base. `FIELD_ALIASES` maps names users reach
    for (other APIs', other suites') to this serializer's own spelling."""

    FIELD_ALIASES: Mapping[str, str] = {}

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(str(name) for name in data if name not in self.fields)
            read_only = sorted(str(name) for name in data if name in self.fields and self.fields[name].read_only)
            if unknown or read_only:
                errors = {name: [self._unknown_field_message(name)] for name in unknown}
                errors.update({name: ["Read-only field: the arena sets it; leave it out."] for name in read_only})
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)

    def _unknown_field_message(self, name: str) -> str:
        writable = [field for field, spec in self.fields.items() if not spec.read_only]
        suggestion = self.FIELD_ALIASES.get(name) or next(iter(difflib.get_close_matches(name, writable, n=1)), None)
        hint = f' Did you mean "{suggestion}"?' if suggestion else ""
        return f"Unknown field.{hint}"
