"""The frame a viewer of a live episode gets for a step: the step as lists of steps show
it (the steps API's pages, the live channel's catch-up), long texts cut.

The publisher (arena.live.publish) renders each committed step once, here, and sends it
with its announcement; the read side's consumer sends it on as it is, and renders the
steps it reads from the database with the same `step_preview`, so a viewer gets the
same message whichever way a step reached it. The API's step endpoints serialize with
the same StepSerializer.
"""

from __future__ import annotations

import functools
import json

from django.urls import reverse
from rest_framework import serializers
from rest_framework.utils.encoders import JSONEncoder

from arena.models import Step, StoredImage
from arena.endpoints.public_errors import public_step_error


def _image_url(sha: str) -> str:
    return StoredImage.url_of(sha)


def _part_for_client(part: dict) -> dict:
    if part.get("type") == "image":
        return {"type": "image", "url": _image_url(part["sha"]), "section": part.get("section", "")}
    return {"type": "text", "text": part.get("text", ""), "section": part.get("section", "")}


# Model output is untrusted and may be huge (a completion of megabytes). Lists of steps
# (API pages, the live channel) cut every text longer than this many characters and
# name the cut fields in `truncated`; `full_url` serves one step in full.
STEP_TEXT_PREVIEW_CHARS = 8_000


def _cut_long_texts(value, path: str, cut: list[str]):
    """`value` with every string longer than the preview cut to it; the dotted paths of
    the cut strings ("completion", "calls.0.completion") are appended to `cut`."""
    if isinstance(value, str):
        if len(value) > STEP_TEXT_PREVIEW_CHARS:
            cut.append(path)
            return value[:STEP_TEXT_PREVIEW_CHARS]
        return value
    if isinstance(value, dict):
        return {key: _cut_long_texts(item, f"{path}.{key}" if path else str(key), cut) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut_long_texts(item, f"{path}.{i}", cut) for i, item in enumerate(value)]
    return value


class StepSerializer(serializers.ModelSerializer):
    """One step. In full by default; with the context {"preview": True} (lists of steps)
    every text longer than STEP_TEXT_PREVIEW_CHARS is cut and named in `truncated`. Its
    error is the kind of what the endpoint did (arena.endpoints.public_errors) unless the context
    says {"detailed": True}: a reader who may see the endpoint (its owner, staff)."""

    observation_image = serializers.SerializerMethodField()
    viewer_frame = serializers.SerializerMethodField(
        help_text="URL of the game's picture at this step for the viewer (TextAtari's screen), which the agent "
        "never sees; the latest stored one when screens are sampled; null for tasks without one."
    )
    prompt_added = serializers.SerializerMethodField()
    calls = serializers.SerializerMethodField()
    truncated = serializers.SerializerMethodField(
        help_text=f"fields cut to their first {STEP_TEXT_PREVIEW_CHARS} characters in this list, as dotted "
        "paths (e.g. completion, calls.0.completion); empty when the step is whole. full_url serves it whole."
    )
    full_url = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField(
        help_text="a note of what went wrong on the way (a call that succeeded after retries, an answer that "
        "was no action): the endpoint's message for the submission's owner and staff, its kind for others"
    )

    class Meta:
        model = Step
        fields = [
            "index",
            "observation_text",
            "observation_image",
            "viewer_frame",
            "prompt_added",
            "completion",
            "reasoning",
            "parsed_action",
            "executed_action",
            "legal",
            "cut_off",
            "reward",
            "done",
            "end_reason",
            "tokens_in",
            "tokens_out",
            "cached_tokens_in",
            "latency_ms",
            "error",
            "info",
            "calls",
            "created_at",
            "truncated",
            "full_url",
        ]

    def to_representation(self, step):
        data = super().to_representation(step)
        if self.context.get("preview"):
            cut: list[str] = []
            data = _cut_long_texts(data, "", cut)
            data["truncated"] = cut
        return data

    def get_error(self, step) -> str:
        return step.error if self.context.get("detailed") else public_step_error(step.error)

    def get_truncated(self, step) -> list[str]:
        return []  # a whole step; to_representation names what a preview cuts

    def get_full_url(self, step) -> str:
        return reverse("api:episode-step", args=[step.episode_id, step.index])

    def get_observation_image(self, step) -> str | None:
        sha = step.observation_image_id
        return _image_url(sha) if sha else None

    def get_viewer_frame(self, step) -> str | None:
        sha = (step.info or {}).get("viewer_frame")
        return _image_url(sha) if sha else None

    def get_prompt_added(self, step) -> list[dict]:
        return [_part_for_client(p) for p in step.prompt_added]

    def get_calls(self, step) -> list[dict]:
        """Every model call of the step, each with its completion (stored once, on the
        step, when it is the step's own)."""
        return step.calls_with_completions


@functools.cache
def _preview_serializer(detailed: bool) -> StepSerializer:
    # Building a model serializer's fields costs far more than rendering one step with
    # them, and a live worker renders every step it commits: one instance serves all
    # (rendering keeps no state on it).
    return StepSerializer(context={"preview": True, "detailed": detailed})


def step_preview(step: Step, detailed: bool = False) -> dict:
    """One step as lists of steps show it (long texts cut); its error in full only when
    `detailed` (the reader may see the endpoint)."""
    return _preview_serializer(detailed).to_representation(step)


def step_frame(step: Step) -> str:
    """The client message of one step, as JSON text: what the live channel, which every
    reader shares, sends for it (its error as a kind)."""
    return json.dumps({"type": "step", "step": step_preview(step)}, cls=JSONEncoder, separators=(",", ":"))
