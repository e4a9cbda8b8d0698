"""What the probe tells the submitter: each finding as a note, each problem as an error
on the form field it belongs to (the base URL, the key, the model), in words that say
what to check. Mixed into the probe (`arena.probe.run._Probe`), whose `result`, `facts`,
`api_key` and `model` it reads.
"""

from __future__ import annotations

import re

from arena.clients.base import ModelCallError
from arena.clients.urlguard import PUBLIC_ONLY
from arena.probe.lookups import is_key_problem
from arena.probe.wording import quote as _quote, sentence as _sentence, server_words as _server_words

MODEL_NAMES_IN_ERROR = 8

_MODEL_PROBLEM = re.compile(
    r"\bmodel\b.{0,80}?\b(?:not found|does not exist|not exist|unknown|invalid|not supported|no such)"
    r"|\b(?:unknown|invalid|unsupported) model|not a valid model",
    re.IGNORECASE,
)


class ProbeVerdicts:
    """The probe's findings and field errors, worded."""

    def blame(self, field: str, message: str) -> None:
        self.result.field_errors.setdefault(field, message)

    def note(self, text: str) -> None:
        self.result.notes.append(text)

    def blame_unreachable(self, detail: str, refused_by_guard: bool) -> None:
        if refused_by_guard:
            self.blame("base_url", f"The arena will not call this address: {_sentence(detail)}.")
            return
        self.blame(
            "base_url",
            f"The arena could not reach the endpoint ({_sentence(detail)}). Check that the server is running "
            "and reachable from the arena, and that the URL is right (OpenAI-compatible servers usually end "
            "in /v1).",
        )

    def blame_key(self, detail: str) -> None:
        if not self.api_key:
            self.blame("api_key", f"The endpoint asks for an API key ({_sentence(detail)}). Enter the key.")
            return
        self.blame(
            "api_key",
            f"The endpoint refused the API key ({_sentence(detail)}). Check that the key is right, active, "
            "and allowed to use this model.",
        )

    def unknown_model_message(self, detail: str = "") -> str:
        text = f"The endpoint does not serve a model called “{self.model}”."
        names = self.result.models_listed
        if names:
            shown = ", ".join(names[:MODEL_NAMES_IN_ERROR])
            more = len(self.facts.model_names or names) - min(len(names), MODEL_NAMES_IN_ERROR)
            text += f" It offers: {shown}" + (f" and {more:,} more." if more > 0 else ".")
        else:
            text += " Check the exact name the server expects."
        if detail:
            text += f" ({_sentence(detail)}.)"
        return text

    def blame_completion(self, exc: ModelCallError) -> None:
        status, detail = exc.http_status, _quote(exc)
        if status is None:
            self.blame_unreachable(detail, refused_by_guard=PUBLIC_ONLY in detail)
        elif is_key_problem(status, exc.message):
            self.blame_key(detail)
        elif status in (402, 429):
            self.blame(
                "api_key",
                f"The endpoint turned the test request down for this key's credits or rate limits "
                f"({_sentence(detail)}). Try again later, or check the account behind the key.",
            )
        elif self.result.model_found is False or (
            status in (400, 404, 422) and _MODEL_PROBLEM.search(_server_words(exc.message) or exc.message)
        ):
            self.blame("model", self.unknown_model_message(detail))
        elif status == 404:
            self.blame(
                "base_url",
                f"There is no chat endpoint at this URL ({_sentence(detail)}). Check the base URL "
                "(for OpenAI-compatible servers it usually ends in /v1).",
            )
        else:
            self.blame(
                "base_url",
                f"The endpoint failed the one-token test request ({_sentence(detail)}). Check the URL "
                "and the server's logs.",
            )
