"""Linear time whatever the input: long adversarial lines of every parser's shape parse at a throughput
comparable to an ordinary log's, and a line over the bound is cut (and counted) before any pattern reads it.

Throughput is compared as a ratio with an ordinary log parsed in the same test on the same machine (CPU
time, best of three), never against a wall-clock bound: ``bench`` parses its ordinary 200 MB log at
62.9 MB/s, so a ratio >= 0.32 is >= 20 MB/s there: the floor asserted (MIN_RATIO).
A pattern that is quadratic in line length (a 4 KiB line costs ~4000x a short one) fails the ratio by
orders of magnitude, whatever the load of the machine. Here each adversarial line is parsed after one context;
tests/perf/test_throughput.py (the full suite, not the quick subset) parses it after every eighth.
"""

from __future__ import annotations

import time

from pr_agent.ci.parsers import parse_log
from pr_agent.ci.parsers.engine import MAX_LINE_CHARS

from .test_perf_guard import realistic_log
from .test_properties import CONTEXTS, FRAGMENTS

# The shapes of the parsers added after test_properties' lists, and their blocks.
MORE_FRAGMENTS = ["[  FAILED  ] ", "[  PASSED  ] ", "x_test.cc:12: Failure", "a.cc(3): error: ", "Test Case '",
                  "Test Case '-[A.B c]' failed (", "T.swift:3: error: -[A.B c] : ", "Executed 1 test, with 1 failure",
                  "\tError Trace:\t", "\tError:      \t", "    assertions.go:1000: ",
                  # Playwright, ExUnit, Catch2, TAP
                  " › ", "  1) [chromium] › a.spec.ts:1:1 › ", "  1) a.spec.ts:", "  ✘  1 [x] › a:1:1 › ", "  1 failed",
                  "  1) test ", "  1) A.B: failure on setup_all callback", "1 test, 1 failure", ": FAILED:",
                  "a.cpp(1): FAILED:", "test cases: 1 | ", "not ok 1 - ", "not ok ", "# fail ", "  at: ",
                  "  location: '", "✘ Test ", "✘ Test x() recorded an issue at ", " recorded an issue with ",
                  "00:01 +1 -1: ", " [E]", "EXCEPTION CAUGHT BY", "#3 main (file:///a_test.dart:",
                  "  1) Failure:", "A#test_b [a_test.rb:", "bin/rails test ", "  Running:  a.cy.js  (1 of 1)",
                  "{0} a.b.C.test_d [0.1s] ... FAILED", "Failed 1 tests - output below:", " - Failed: ",
                  # CTest, sbt/ScalaTest, Kotest under Gradle
                  "1/2 Test #1: ", " ....***Failed  ", "***Exception: ", "100% tests passed, ", " tests failed out of ",
                  "The following tests FAILED:", "\t  1 - ", " (Failed)", "    Start 1: ",
                  "[info] - ", "- t *** FAILED *** ", " *** FAILED *** (", "(A.scala:", " *** ABORTED ***",
                  "Tests: succeeded 1, failed ", "[error] Failed tests:", "[error] \t", "Failed: Total 1, Failed ",
                  "[04-09 22:41:59.531] [info] ", "[info] A:", "should ", "io.kotest.", "A > b FAILED",
                  "    io.kotest.assertions.AssertionFailedError at A.kt:1", "A[jvm] > b[jvm] FAILED"]
MORE_CONTEXTS = ["[ RUN      ] A.B\nx_test.cc:3: Failure", "--- FAIL: TestX (0.00s)\n    assertions.go:1: ",
                 "  1) [chromium] › a.spec.ts:1:1 › t\n\n    Error: x", "  1) test t (M)\n     test/a_test.exs:3",
                 "-" * 79 + "\nT\n" + "-" * 79 + "\na.cpp:1\n" + "." * 79 + "\na.cpp:2: FAILED:",
                 "not ok 1 - t\n  ---\n  error: |-", "✘ Test x() recorded an issue at A.swift:1:1: e",
                 "══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞══\n00:01 +0 -1: t [E]",
                 "  1) Failure:\nA#test_b [a_test.rb:3]:", "  Running:  a.cy.js  (1 of 1)\n  1 failing\n\n  1) S",
                 "Failed 1 tests - output below:\na.b.C.test_d\n---\nCaptured traceback:",
                 "1/2 Test #1: a ....***Failed    0.01 sec", "The following tests FAILED:",
                 "[info] S:\n[info] A\n[info] - should t *** FAILED *** (1 millisecond)", "[error] Failed tests:",
                 "A > b FAILED\n    io.kotest.assertions.AssertionFailedError: x",
                 # Karma, AVA, bun, deno, Cypress's attempts
                 "Chrome 1.0 (Linux) S t FAILED\n\tError: x", "  ✘ [fail]: a › b\n  ─\n\n  a › b\n  a.js:1",
                 "bun test v1.1\na.test.ts:\nerror: x\n(fail) A > b [1ms]",
                 " ERRORS \n\na => ./a_test.ts:1:2\nerror: x",
                 "  Running:  a.cy.js  (1 of 1)\n\n  S\n    (Attempt 1 of 2) t"]
# Of the ordinary log's MB/s: 0.32 is 20 MB/s (the floor) where the ordinary log runs at the 62.9
# MB/s bench measures for its 200 MB log (docs/benchmarks.md figure 3). Measured 2026-12-02 on the loaded
# 2-core machine (load 8-12), each context's log: slowest 0.36-0.38 (stestr's captured section, GoogleTest's
# block, Catch2's header), most 0.4-0.5; the ordinary log itself ran at 50-55 MB/s there, the slowest
# adversarial log at 18-19 MB/s. Before: 0.23-0.29 (a line of colour codes read eight times over by the
# scan, a line of tabs tried tab by tab for a ``gh`` prefix, a quadratic ``\s*….*`` gate rule on the 40
# lines before the exit code). A pattern quadratic in a run of one character within the 4096-character
# bound (a digit run under ``(\d+) `` without ``(?<!\d)``) measured 0.11-0.16.
MIN_RATIO = 0.32
STRIDE = 8
FILLERS = ("a", " ", "\t", "1", "[", "(", ".", ":", "_", "=", "'", '"', "/", "\x1b[0m", "^[[", "\r")


def _fill(head: str, filler: str, n: int = MAX_LINE_CHARS) -> str:
    return (head + filler * (n // len(filler) + 1))[:n]


def adversarial_lines() -> list[str]:
    """Each fragment a parser reacts to, followed by runs of every filler and repeated to the bound; runs
    of escape codes (CSI, OSC, caret notation), "\\r", timestamps and tabs."""
    lines: list[str] = []
    for frag in [*FRAGMENTS, *MORE_FRAGMENTS]:
        if len(frag.strip()) < 2:
            continue
        lines.append(_fill("", frag))
        lines.extend(_fill(frag, f) for f in FILLERS)
    for run in ("\x1b[", "\x1b]", "\x1b[1;", "^[[1;", "x\r", "2026-11-30T10:00:00.1234567Z ", "Z ##[", "\x1b[31mF"):
        lines.append(_fill("", run))
    return lines


def _cpu_rate(lines: list[str]) -> float:
    """MB/s of parse_log over ``lines`` (as the raw bytes offline.log_lines reads), CPU time, best of three."""
    data = "".join(line + "\n" for line in lines).encode()
    pieces = [data[i : i + (1 << 20)] for i in range(0, len(data), 1 << 20)]
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        parse_log(pieces)
        best = min(best, time.process_time() - start)
    return len(data) / max(best, 1e-6) / 1e6


def assert_adversarial_lines_are_linear(stride: int, ordinary_bytes: int) -> None:
    """Every adversarial line parsed after some context (line i after the contexts k with k % stride == i %
    stride), each log at >= MIN_RATIO of an ordinary log's throughput."""
    ordinary = _cpu_rate([line.rstrip("\n") for line in realistic_log(ordinary_bytes)])
    lines = adversarial_lines()
    contexts = [*CONTEXTS, *MORE_CONTEXTS]
    assert stride <= len(contexts)  # so that every line is parsed after at least one context
    ordinary_lines = [line.rstrip("\n") for line in realistic_log(ordinary_bytes)]
    worst: list[tuple[float, str, list[str]]] = []
    for k, context in enumerate(contexts):  # each line after one or more contexts (parsers in a block)
        log = [*context.split("\n"), *lines[k % stride :: stride], "##[error]Process completed with exit code 1."]
        worst.append((_cpu_rate(log), context[:30], log))
    worst.sort(key=lambda w: w[0])
    print(f"ordinary {ordinary:.1f} MB/s; slowest adversarial {worst[0][0]:.1f} MB/s after {worst[0][1]!r}")
    for rate, context, log in worst:
        # a busy machine slows one measurement and not the other: a log under the floor is measured again,
        # side by side with the ordinary log, and fails only if it stays under it (a quadratic pattern stays
        # at 0.11-0.16 however often it is measured)
        ratio, base = rate / ordinary, ordinary
        for _ in range(3):
            if ratio >= MIN_RATIO:
                break
            base = _cpu_rate(ordinary_lines)
            rate = _cpu_rate(log)
            ratio = max(ratio, rate / base)
        assert ratio >= MIN_RATIO, (context, rate, base)


def test_adversarial_lines_parse_in_linear_time() -> None:
    """Each adversarial line after one context (the quick variant: a fifth of the work of the full one in
    tests/perf/test_throughput.py, which parses each line after every eighth context)."""
    assert_adversarial_lines_are_linear(stride=len(CONTEXTS) + len(MORE_CONTEXTS), ordinary_bytes=500_000)


def test_a_line_over_the_bound_is_cut_and_counted() -> None:
    huge = "FAILED tests/test_a.py::test_b - AssertionError: " + "x" * (5 * MAX_LINE_CHARS)
    for given in ([huge, "=== 1 failed in 0.1s ==="], [(huge + "\n").encode(), b"=== 1 failed in 0.1s ===\n"]):
        parsed = parse_log(given)
        assert parsed.lines_cut == 1
        assert [f.test_name for f in parsed.failures] == ["tests/test_a.py::test_b"]
        assert len(parsed.failures[0].error_message) <= 500
    assert parse_log(["FAILED tests/test_a.py::test_b - x"]).lines_cut == 0


def test_one_line_of_many_megabytes_is_read_in_pieces() -> None:
    # 8 MiB without a newline, as offline.log_lines streams it: joined once, cut, parsed.
    piece = b"\x1b[31m" + b"a( " * 100_000
    parsed = parse_log([piece] * 26 + [b"\n--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\n"])
    assert parsed.lines_cut == 1
    assert [(f.test_name, f.line_number) for f in parsed.failures] == [("TestX", 3)]
