"""An answer read into its SDK's type (a pydantic model of the openai or anthropic SDK),
and its parts given back as the JSON they came as."""

from __future__ import annotations

from typing import Any

import pydantic


def sdk_object(model: type, data: dict) -> Any:
    """`data` as the SDK type `model` (a pydantic model of the openai or anthropic SDK).

    The SDKs' own reading (``parse()``) builds the object in pure Python without
    validating it: about 0.2 ms of CPU for a chat completion, as much as the rest of a
    step. pydantic's validator reads a well-formed answer into the same type twenty
    times faster; an answer a server left short of a required field (an id, a creation
    time: many OpenAI-compatible servers omit them) is built as the SDK builds it."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError:
        return model.construct(**data)


def sdk_json(item: Any) -> dict:
    """An SDK object of an answer (a content block, an output item) as the JSON it came
    as: it is stored with the step and sent back to the provider."""
    return item.model_dump(mode="json", exclude_unset=True, by_alias=True) if hasattr(item, "model_dump") else dict(item)
