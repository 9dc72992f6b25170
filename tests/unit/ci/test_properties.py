"""Property tests: arbitrary input never raises, always terminates, and keeps the output promises."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pr_agent.ci.logs import StepTiming, clean_line, clean_lines, slice_failed_step
from pr_agent.ci.parsers import parse_log
from pr_agent.ci.parsers.models import ParsedLog

# Fragments of every format the parsers react to, so random lines reach deep into their state machines.
FRAGMENTS = [
    "FAILED ", "ERROR ", "tests/test_a.py::test_b", "[gw0] [ 50%] FAILED ", " FAILED", "E       assert ",
    "=================================== FAILURES ===================================",
    "==================================== ERRORS ====================================",
    "=========================== short test summary info ============================",
    "_________________________ test_x _________________________", "tests/test_a.py:12: AssertionError",
    "FAIL: test_x (a.B.test_x)", "ERROR: test_y (a.B)", "-" * 70, "=" * 70, "Ran 3 tests in 0.1s",
    "FAILED (failures=1)", '  File "/home/runner/work/r/r/t.py", line 3, in f', "Traceback (most recent call last):",
    "FAIL src/a.test.ts", "PASS src/b.test.ts", "  ● Suite › test", "  ● Test suite failed to run",
    "      at Object.<anonymous> (src/a.test.ts:12:5)", "    > 12 |   expect(x)", "Tests:       1 failed, 2 total",
    " FAIL  src/a.test.ts > s > t", " ❯ src/a.test.ts:3:9", " ❯ src/a.test.ts (2 tests | 1 failed)",
    "   × s > t 3ms", "     → expected 1 to be 2", "⎯⎯⎯⎯[1/1]⎯", "  1 failing", "  2 passing (3ms)", "  1) Suite",
    "       test:", "--- FAIL: TestX/sub (0.00s)", "    x_test.go:12: msg", "=== RUN   TestX", "=== NAME  TestX",
    "FAIL\tgithub.com/a/b\t0.01s", "ok  \tgithub.com/a/c\t0.01s", "panic: boom [recovered]",
    "panic: test timed out after 1m0s", "\t\tTestSlow (1m0s)", "=== FAIL: pkg TestY (0.00s)",
    '{"Action":"fail","Package":"p","Test":"T"}',
    '{"Action":"output","Package":"p","Test":"T","Output":"x.go:1: m\\n"}',
    '{"Action":', "test a::b ... FAILED", "failures:", "---- a::b stdout ----",
    "thread 'a::b' panicked at src/lib.rs:1:2:", "thread 'a' panicked at 'msg', src/lib.rs:1:2",
    "test result: FAILED. 1 passed; 1 failed;", "     Running unittests src/lib.rs (target/x)",
    "        FAIL [   0.003s] crate tests::t", "   TRY 2 PASS [   0.003s] crate tests::t", "  stderr ───",
    "--- STDERR:              crate tests::t ---", "     Summary [   0.1s] 2 tests run: 1 passed, 1 failed",
    "Failures:", "  1) Desc does x", "     Failure/Error: expect(a).to eq(b)", "     # ./spec/a_spec.rb:3:in `x'",
    "rspec ./spec/a_spec.rb:3 # Desc does x", "3 examples, 1 failure", "There was 1 failure:", "There were 2 errors:",
    "1) Tests\\FooTest::testBar", "/home/runner/work/r/r/tests/FooTest.php:12", "--", "FAILURES!",
    "Tests: 5, Assertions: 5, Failures: 1.", "  Failed Ns.C.M [12 ms]", "  Error Message:", "  Stack Trace:",
    "   at Ns.C.M() in /home/runner/work/r/r/C.cs:line 12", "Failed!  - Failed:     1, Passed:     2,",
    "Total tests: 3", "     Passed: 2", '<testsuite tests="2" failures="1">', '<testcase classname="a.B" name="c">',
    '<failure message="m">', "</failure>", "</testcase>", "<testcase", "FooTest > testBar() FAILED",
    "    java.lang.AssertionError at FooTest.java:38", "        at app//a.FooTest.testBar(FooTest.java:12)",
    "4 tests completed, 1 failed", "[ERROR] a.FooTest.testBar -- Time elapsed: 0.01 s <<< FAILURE!",
    "[ERROR] Failures: ", "[ERROR]   FooTest.testBar:12 expected",
    "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
    "Failed tests:   t(a.B): m", "##[error]Process completed with exit code 1.", "##[group]Run make",
    "##[endgroup]", "##[error]The operation was canceled.", "Killed", "npm ERR! code ERESOLVE", "npm error code E404",
    "error TS2322: x", "error[E0308]: mismatched types", "Found 3 errors.", "  1:2  error  x  rule",
    "JavaScript heap out of memory", "has exceeded the maximum execution time of 5 minutes",
    "2026-11-30T10:00:00.1234567Z ", "\x1b[31m", "\x1b[0m", "\r", "\ufeff", "'", "(", ")", "[", "]", ":", " > ", " › ",
    # Karma, AVA, bun, deno; Cypress's and jest's retries
    "Chrome Headless 1.2 (Linux x86_64) ", "Firefox 3.0 (Ubuntu 0.0.0) S t FAILED",
    "\tat U.<anonymous> (a.spec.ts:1:2 <- ", "\tf@src/a.js:1:2", ": Executed 2 of 3 (1 FAILED) (0.1 secs / 0 secs)",
    "TOTAL: 1 FAILED, 1 SUCCESS", "  ✘ [fail]: a › b ", "  ✘ [unexpected pass]: t", "  ✔ [expected fail]: t",
    "  ✘ a.js exited with a non-zero exit code: 1", "Uncaught exception in a.js", "  test/a.js:12", "   12: ",
    "  › file:///a/test/a.js:1:2", "  ─", "  2 tests failed", "1 test passed", "(fail) A > b [1.20ms]", "(pass) A > b",
    "✗ A > b [0.1ms]", "test/a.test.ts:", "12 |   expect(", " 3 pass", " 1 fail", "Ran 4 tests across 2 files.",
    "a ... FAILED (1ms)", "a ... FAILED (due to 1 failed step)", " ERRORS ", " FAILURES ", "a ... b => ./a_test.ts:3:6",
    "FAILED | 1 passed | 1 failed (3ms)", "ok | 2 passed | 0 failed", "  (Attempt 1 of 3) t", "    ✓ t (12ms)",
    " LOGGING RETRY ERRORS  A t", " RETRY 1 ",
]

line_st = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40)), min_size=0, max_size=6
).map("".join)
log_st = st.lists(line_st, max_size=80)

# No per-example deadline: a wall-clock limit fails on a busy machine; speed is measured in bench/ (figure 3).
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(log_st)
def test_parse_log_never_raises_and_keeps_its_promises(lines: list[str]) -> None:
    _keeps_promises(parse_log(lines))


def _keeps_promises(parsed: ParsedLog) -> None:
    """What every answer promises a caller, whatever the log: named failures with a message, bounded."""
    for f in parsed.failures:
        assert f.test_name.strip()
        assert f.error_message.strip()
        assert len(f.error_message) <= 500
        assert f.line_number is None or f.line_number >= 0
    if parsed.non_test_failure is not None:
        assert 0 < len(parsed.non_test_failure.decisive_lines) <= 20 or parsed.non_test_failure.kind != "unknown"
        assert len(parsed.non_test_failure.decisive_lines) <= 20
        assert parsed.non_test_failure.summary


@SETTINGS
@given(log_st, st.sampled_from(["pytest", "go", "jest", "maven", "junit", None]))
def test_parse_log_with_hint_keeps_the_same_promises(lines: list[str], hint: str | None) -> None:
    parsed = parse_log(lines, hint=hint, check_name="c")
    _keeps_promises(parsed)
    if not any(line.strip() for line in lines):
        assert parsed.failures == [] and parsed.non_test_failure is None  # nothing to report from nothing


@SETTINGS
@given(st.lists(st.text(max_size=80), max_size=30))
def test_clean_is_idempotent(lines: list[str]) -> None:
    once = list(clean_lines(lines))
    assert list(clean_lines(once)) == once
    assert [clean_line(s) for s in lines] == once


step_st = st.builds(
    StepTiming,
    name=st.sampled_from(["Set up job", "Run make", "Run tests", "Build", ""]),
    number=st.integers(0, 8),
    conclusion=st.sampled_from(["success", "failure", "cancelled", "skipped", None]),
    started_at=st.one_of(st.none(), st.sampled_from(["2026-11-30T10:00:00Z", "2026-11-30T10:00:01Z", "bad"])),
    completed_at=st.one_of(st.none(), st.sampled_from(["2026-11-30T10:00:01Z", "2026-11-30T10:00:05Z"])),
)


@SETTINGS
@given(log_st, st.one_of(st.none(), st.lists(step_st, max_size=6)),
       st.one_of(st.none(), st.sampled_from(["Run tests", "Run make", "nope"])), st.integers(1, 50))
def test_slice_never_raises(lines: list[str], steps: list[StepTiming] | None, name: str | None, cap: int) -> None:
    sl = slice_failed_step(lines, steps, name, max_lines=cap)
    assert sl.method in ("timestamps", "groups", "whole_log")
    assert len(sl.lines) <= cap + 20
    parse_log(sl.lines)


PATHOLOGICAL = [
    "at " + "a." * 20000,
    "      at " + "(" * 20000,
    "thread '" + "'" * 20000 + " panicked at " + ":" * 20000,
    "=" * 50000,
    "_" * 30000 + " x " + "_" * 3,
    "FAILED " + "[" * 30000 + " - x",
    "tests/" + "a" * 30000 + ".py:",
    "[ERROR] " + "a " * 20000 + "Time elapsed: <<< FAILURE!",
    "<testcase " + 'a="' * 10000,
    "rspec ./" + "x" * 30000 + " # y",
    "  Failed " + "[" * 20000 + "]",
    "    " + "x_test.go:" * 5000,
    "FooTest > " + " > " * 10000 + " FAILED",
]


CONTEXTS = [
    "", "=================================== FAILURES ===================================", "FAIL: t (a.B.t)",
    "  ● Suite › test", " FAIL  src/a.test.ts > s > t", "  1 failing\n  1) Suite", "--- FAIL: TestX (0.00s)",
    "failures:\n---- a::b stdout ----", "        FAIL [   0.003s] crate tests::t", "Failures:\n  1) Desc",
    "There was 1 failure:\n1) A::b", "  Failed Ns.C.M [12 ms]\n  Error Message:", '<testcase name="x"><failure>',
    "FooTest > testBar() FAILED", "[ERROR] a.FooTest.testBar -- Time elapsed: 0.01 s <<< FAILURE!",
    "[ERROR] Failures: ", "panic: boom",
]


def test_pathological_lines_are_linear() -> None:
    for context in CONTEXTS:
        for line in PATHOLOGICAL:
            start = time.perf_counter()
            parse_log([*context.split("\n"), line, line, "##[error]Process completed with exit code 1."])
            slice_failed_step([line], None, None)
            # a hang guard (a quadratic pattern on these lines took minutes), not a benchmark: speed is
            # measured in bench/ and by tests/unit/ci/test_perf_guard.py
            assert time.perf_counter() - start < 20.0, (context, line[:40])
