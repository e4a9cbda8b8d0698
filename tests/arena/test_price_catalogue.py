"""The shipped price catalogue (fixtures/model_prices.json, arena.prices) says where each
price comes from: every entry names its provider's own pricing page, the row read there
and the day; only models whose provider's page confirmed the price are listed, and the
submission page shows a catalogue price with that provenance."""

import json
from decimal import Decimal
from urllib.parse import urlparse

from arena.prices import CATALOGUE_PATH, catalogue_price

# The providers' own hosts: a price read anywhere else is not in the catalogue.
PROVIDER_HOSTS = {"claude": "docs.anthropic.com"}


def _entries():
    return json.loads(CATALOGUE_PATH.read_text(encoding="utf-8"))["models"]


def test_every_price_names_its_providers_page_the_row_and_the_day():
    entries = _entries()
    assert entries
    for entry in entries:
        family = entry["model"].split("-")[0]
        assert urlparse(entry["source"]).hostname == PROVIDER_HOSTS[family], entry["model"]
        assert entry["source_row"] and len(entry["seen"]) == 10 and entry["seen"][4] == "-"
        assert 0 < entry["input_per_mtok"] <= entry["output_per_mtok"]
        assert entry["cached_input_per_mtok"] < entry["input_per_mtok"]


def test_prices_read_on_anthropics_page_and_models_no_provider_page_confirmed():
    haiku = catalogue_price("claude-3-5-haiku-20241022")
    assert (haiku.input_per_mtok, haiku.cached_input_per_mtok, haiku.output_per_mtok) == (
        Decimal("0.8"), Decimal("0.08"), Decimal("4.0"))
    assert catalogue_price("anthropic/claude-opus-4-1").output_per_mtok == Decimal("75.0")
    assert "seen 2026-11-28 on https://docs.anthropic.com/" in haiku.note
    for unconfirmed in ("gpt-4o", "openai/gpt-4o-mini", "gemini-2.5-pro", "deepseek-chat"):
        assert catalogue_price(unconfirmed) is None, unconfirmed
