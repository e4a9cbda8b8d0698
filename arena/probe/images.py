"""Step 6 of the endpoint probe (`arena.probe.run`): whether images are accepted.

An 8×8 PNG goes as an OpenAI-style image_url part (the Anthropic and Gemini clients
convert it), max_tokens 1, no retry. An answer means yes; an error that
`is_image_refusal` recognises means no; anything else leaves it to the server's
metadata, else unknown (None).
"""

from __future__ import annotations

import base64
import functools

from PIL import Image

from arena.clients.base import ModelCallError
from arena.clients.errors import is_image_refusal
from arena.probe.wording import answered as _answered, fresh, quote as _quote
from envs.render import encode_png

IMAGE_QUESTION = "What colour is this picture? Answer with one word."


@functools.cache
def tiny_png_data_url() -> str:
    """An 8×8 red square as a data: URL (about 80 bytes of PNG)."""
    png = encode_png(Image.new("RGB", (8, 8), (200, 40, 40)))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


async def check_images(probe) -> None:
    """Step 6 of the probe (arena.probe.run): whether the endpoint takes an image."""
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": fresh(IMAGE_QUESTION)},
                {"type": "image_url", "image_url": {"url": tiny_png_data_url()}},
            ],
        }
    ]
    verdict: bool | None = True
    try:
        await probe.client(max_tokens=1, retries=0).complete(messages)
    except ModelCallError as exc:
        if _answered(exc):
            verdict = True
        elif is_image_refusal(exc.http_status, exc.message):
            verdict = False
            probe.note(
                f"It refuses images ({_quote(exc)}). Image tasks need a model that accepts "
                "them (a llama.cpp server needs the model's --mmproj file)."
            )
        else:
            verdict = None
            probe.note(f"The image test was inconclusive ({_quote(exc)}).")
    if verdict is None and (probe.result.message_shape or {}).get("content_parts") is False:
        verdict = False
        probe.note("It refuses content parts, so it cannot be sent images.")
    elif verdict is None and probe.facts.image_hint is not None:
        verdict, where = probe.facts.image_hint
        probe.note(f"Going by {where}, it {'accepts' if verdict else 'does not accept'} images.")
    elif verdict:
        probe.note("It accepts images.")
    probe.result.accepts_images = verdict
