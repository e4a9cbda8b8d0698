"""The shipped price catalogue (fixtures/model_prices.json): the list prices of well-known
hosted models, each as read on its provider's pricing page (the page, the row of its
table, the day it was read), and only those a provider's own page confirmed. A
submission that gives no price of its own is costed at its model's catalogue price, so
that the cost view has one axis (dollars) whenever the models are well known; the
submission's own prices always win (Submission.effective_prices)."""

from __future__ import annotations

import dataclasses
import functools
import json
from decimal import Decimal
from pathlib import Path

CATALOGUE_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "model_prices.json"


@dataclasses.dataclass(frozen=True)
class CataloguePrice:
    model: str
    input_per_mtok: Decimal
    output_per_mtok: Decimal
    cached_input_per_mtok: Decimal | None
    seen: str  # the day it was read on the provider's page, ISO
    source: str  # the provider's pricing page

    @property
    def note(self) -> str:
        return f"the catalogue's list price of {self.model} (seen {self.seen} on {self.source})"


@functools.cache
def _catalogue() -> dict[str, CataloguePrice]:
    entries = json.loads(CATALOGUE_PATH.read_text(encoding="utf-8"))["models"]
    by_name = {}
    for entry in entries:
        cached = entry.get("cached_input_per_mtok")
        price = CataloguePrice(
            entry["model"], Decimal(str(entry["input_per_mtok"])), Decimal(str(entry["output_per_mtok"])),
            None if cached is None else Decimal(str(cached)), entry["seen"], entry["source"],
        )
        for name in [entry["model"], *entry.get("aliases", ())]:
            by_name[name.lower()] = price
    return by_name


def catalogue_price(model: str) -> CataloguePrice | None:
    """The catalogue's price of a model name as a submission gives it: exact (any case),
    or after a router's provider prefix ("openai/gpt-4o" as OpenRouter names it)."""
    name = (model or "").strip().lower()
    if not name:
        return None
    prices = _catalogue()
    return prices.get(name) or prices.get(name.rsplit("/", 1)[-1])
