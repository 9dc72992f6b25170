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
