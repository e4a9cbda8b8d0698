"""arena.variant.Variant.from_dict: what older rows and hand-made JSON hold is read the
one way every page and the runner read it."""

from arena.variant import Variant


def test_numbers_written_as_strings_or_floats_and_flags_as_numbers_are_normalised():
    options = {"colours": 3}
    variant = Variant.from_dict({
        "format": "ascii", "options": options, "num_demonstrations": "4", "history_window": 0.0,
        "chain_of_thought": 1, "show_legal_actions": 0, "temperature": "0.5", "max_tokens": 12.0,
        "lenient_parsing": "yes", "reflection": "best", "unknown": "ignored", "self_correction": None,
    })
    assert variant == Variant(
        format="ascii", options={"colours": 3}, num_demonstrations=4, history_window=1, chain_of_thought=True,
        show_legal_actions=False, temperature=0.5, max_tokens=12, lenient_parsing=True, reflection="best",
    )
    assert variant.options is not options  # a copy: the run's JSON is not shared
    assert isinstance(variant.num_demonstrations, int) and isinstance(variant.max_tokens, int)


def test_missing_or_null_values_take_the_defaults():
    assert Variant.from_dict(None) == Variant.from_dict({}) == Variant()
    assert Variant.from_dict({"temperature": None, "max_tokens": None}).temperature is None
    assert Variant.from_dict({}).history_window == 16 and Variant.from_dict({}).options == {}
