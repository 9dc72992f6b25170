"""The hang guard for a 5 MB review body (tests/unit/review/test_parsers.py checks linear cost on 100-400 KB)."""

from __future__ import annotations

import time

from tests.unit.review.test_parsers import _timed, coderabbit_like


def test_five_megabyte_body_finishes() -> None:
    started = time.perf_counter()
    body = coderabbit_like(5_000_000)
    elapsed = _timed(body)
    print(f"5 MB CodeRabbit-like body, all parsers: {elapsed:.2f}s (built in {time.perf_counter() - started:.1f}s)")
    # a hang guard, not a benchmark: ~35 s on a quiet 2-core machine for 13 parsers; a quadratic parser takes hours
    assert elapsed < 300.0
