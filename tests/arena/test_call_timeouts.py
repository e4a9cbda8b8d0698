"""Call timeouts follow the prompt a call re-reads and the speeds the probe measured
(arena.probe.speed): BALROG's sliding window re-sends ~4k tokens from step 16 on, which a
CPU server reading 2–3 tokens per second needs far longer than a fixed timeout for."""

from __future__ import annotations

import pytest

from arena.probe.speed import MAX_CALL_SECONDS, TooSlow, call_timeout


def test_a_fast_server_keeps_the_operators_timeout():
    probe = {"prompt_tokens_per_second": 2000.0, "tokens_per_second": 80.0}
    assert call_timeout(probe, 4000, 256, 120.0) == 120.0


def test_a_slow_server_gets_the_time_its_prompt_and_answer_need():
    probe = {"prompt_tokens_per_second": 25.0, "tokens_per_second": 5.0}
    # 4,000 tokens read at 25/s and 200 written at 5/s, twice over
    assert call_timeout(probe, 4000, 200, 120.0) == pytest.approx(2 * (160 + 40))


def test_an_unmeasured_server_keeps_the_operators_timeout():
    assert call_timeout(None, 4000, 200, 120.0) == 120.0
    assert call_timeout({"tokens_per_second": None}, 4000, 200, 120.0) == 120.0


def test_a_server_too_slow_for_the_protocol_is_told_so():
    probe = {"prompt_tokens_per_second": 2.5, "tokens_per_second": 2.0}
    with pytest.raises(TooSlow) as info:
        call_timeout(probe, 4000, 256, 120.0)
    message = str(info.value)
    assert "too slow for this suite's protocol" in message
    assert "2.5 prompt tokens" in message and "4,000 prompt tokens" in message
    assert f"{MAX_CALL_SECONDS / 60:,.0f} minutes" in message
