from __future__ import annotations

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.paging import decode_cursor, encode_cursor

SCOPE = {"pr": "a/b#1", "sort": "chronological"}


def test_round_trip() -> None:
    cur = encode_cursor("t", SCOPE, ["2026-01-01T00:00:00Z", 5])
    assert decode_cursor(cur, "t", SCOPE) == ["2026-01-01T00:00:00Z", 5]


@pytest.mark.parametrize("mangle", [
    lambda c: c[:-2],
    lambda c: c.replace(".", ""),
    lambda c: "x" + c,
    lambda c: c.split(".")[0][:-3] + "AAA." + c.split(".")[1],
    lambda c: "not-a-cursor",
    lambda c: "",
    lambda c: "é.é",
])
def test_tampered_cursor(mangle) -> None:
    cur = encode_cursor("t", SCOPE, [1])
    with pytest.raises(PrAgentError) as exc:
        decode_cursor(mangle(cur), "t", SCOPE)
    assert exc.value.code == "invalid_cursor"
    assert exc.value.details["field"] == "cursor"


def test_foreign_cursor() -> None:
    cur = encode_cursor("t", SCOPE, [1])
    for tool, scope in (("other", SCOPE), ("t", {**SCOPE, "pr": "a/b#2"})):
        with pytest.raises(PrAgentError) as exc:
            decode_cursor(cur, tool, scope)
        assert exc.value.code == "cursor_mismatch"


def test_expired_cursor() -> None:
    cur = encode_cursor("t", SCOPE, [1], now=1_000_000)
    with pytest.raises(PrAgentError) as exc:
        decode_cursor(cur, "t", SCOPE, now=1_000_000 + 25 * 3600)
    assert exc.value.code == "cursor_expired"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_is_only_ever_a_typed_error(text: str) -> None:
    try:
        decode_cursor(text, "t", SCOPE)
    except PrAgentError as err:
        assert err.code in ("invalid_cursor", "cursor_mismatch", "cursor_expired")
    else:  # pragma: no cover - would mean a forged cursor passed the MAC
        raise AssertionError("random text accepted as a cursor")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64), st.integers(min_value=0, max_value=30))
def test_bit_flips_are_detected(noise: bytes, index: int) -> None:
    position = ["2026-01-01T00:00:00Z", "PRRT_x"]
    cur = encode_cursor("t", SCOPE, position)
    flipped = cur[:index] + noise.decode("latin-1") + cur[index + len(noise):]
    try:
        decoded = decode_cursor(flipped, "t", SCOPE)
    except PrAgentError as err:
        assert err.code in ("invalid_cursor", "cursor_mismatch")
    else:  # only a change base64 ignores (unused padding bits) can pass, and then nothing changed
        assert decoded == position
