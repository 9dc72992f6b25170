"""Hang guard: a ~20 MB realistic job log parses in one pass within a generous bound.

Throughput is printed (run with ``-s`` to see it), never asserted tightly: benchmarks live in ``bench/``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from pr_agent.ci.logs import StepTiming, slice_failed_step
from pr_agent.ci.parsers import parse_log

TARGET_BYTES = 20_000_000
BOUND_SECONDS = 60.0

# What long CI logs are made of: passing tests in several runners, installs, builds, and now and then a
# failure. Raw Actions format (timestamp prefix, some ANSI colour).
_NOISE = [
    "tests/unit/test_models.py::TestInvoice::test_field_{i} PASSED                     [ 42%]",
    "=== RUN   TestHandler/case_{i}",
    "--- PASS: TestHandler/case_{i} (0.00s)",
    "npm warn deprecated inflight@1.0.{i}: This module is not supported, and leaks memory.",
    "      \x1b[32m✓\x1b[39m \x1b[90mrenders the component with props {i} (5 ms)\x1b[39m",
    "  Downloading https://files.pythonhosted.org/packages/ab/cd/requests-2.{i}.0-py3-none-any.whl (64 kB)",
    "[INFO] Tests run: {i}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.012 s -- in com.acme.FooTest",
    "test tests::case_{i} ... ok",
    "   Compiling serde_json v1.0.{i}",
    "  ✔ returns the cached value for key {i}",
    "[2026-11-30 10:00:00,123] INFO app.worker: processed batch {i} in 12ms",
    "  Passed Acme.Tests.OrderTests.Creates_order_{i} [3 ms]",
]
_FAILURE_BLOCKS = [
    [
        "--- FAIL: TestRetry/case_{i} (0.01s)",
        "    retry_test.go:48: attempts = 4, want 3",
    ],
    [
        "  ● Ledger › balance › sums credits {i}",
        "",
        "    expect(received).toBe(expected) // Object.is equality",
        "",
        "      at Object.toBe (src/ledger/balance.test.js:20:30)",
        "",
    ],
    [
        "FAILED tests/test_api.py::test_case_{i} - AssertionError: assert 1 == 2",
    ],
]


def realistic_log(target_bytes: int = TARGET_BYTES) -> Iterator[str]:
    size = 0
    i = 0
    yield "\ufeff2026-11-30T10:00:00.0000000Z ##[group]Run make test\n"
    while size < target_bytes:
        i += 1
        sec = 1 + i // 20000
        ts = f"2026-11-30T10:{sec // 60 % 60:02d}:{sec % 60:02d}.{i % 10_000_000:07d}Z "
        if i % 1000 == 0:
            for tmpl in _FAILURE_BLOCKS[(i // 1000) % len(_FAILURE_BLOCKS)]:
                line = ts + tmpl.format(i=i) + "\n"
                size += len(line)
                yield line
            continue
        line = ts + _NOISE[i % len(_NOISE)].format(i=i) + "\n"
        size += len(line)
        yield line
    yield "2026-11-30T11:00:00.0000000Z ##[error]Process completed with exit code 1.\n"


def _write_log(path: Path) -> int:
    with path.open("w", encoding="utf-8") as fh:
        fh.writelines(realistic_log())
    return path.stat().st_size


def test_parse_20mb_log_finishes(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    nbytes = _write_log(log)
    start = time.perf_counter()
    with log.open(encoding="utf-8", newline="") as fh:  # streamed, as the CLI reads a saved log
        parsed = parse_log(fh)
    elapsed = time.perf_counter() - start
    print(f"\nparse_log: {nbytes / 1e6:.1f} MB in {elapsed:.2f}s = {nbytes / 1e6 / elapsed:.1f} MB/s, "
          f"{len(parsed.failures)} failures")
    assert elapsed < BOUND_SECONDS
    assert len(parsed.failures) > 100
    assert {"go", "jest", "pytest"} <= set(parsed.runners_detected)


def test_slice_20mb_log_finishes(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    nbytes = _write_log(log)
    steps = [StepTiming("Run make test", 1, "failure", "2026-11-30T10:00:00Z", "2026-11-30T11:00:00Z")]
    start = time.perf_counter()
    with log.open(encoding="utf-8", newline="") as fh:
        sl = slice_failed_step(fh, steps, None, max_lines=50_000)
    elapsed = time.perf_counter() - start
    print(f"\nslice_failed_step: {nbytes / 1e6:.1f} MB in {elapsed:.2f}s = {nbytes / 1e6 / elapsed:.1f} MB/s")
    assert elapsed < BOUND_SECONDS
    assert sl.method == "timestamps" and len(sl.lines) == 50_000 and sl.dropped_lines > 0
