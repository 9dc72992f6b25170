"""Auto-detection never lets one runner's parser claim another's output: every fixture goes through every
parser (``hint=``), and only the parsers of the fixture's own runners find failures in it.

The one declared overlap: nextest replays libtest's own output inside its sections, so the cargo parser
alone finds those tests in a nextest log; ``parse_log`` keeps the nextest view (``_drop_nextest_echo``).
CTest prints the output of the executables it runs: a fixture of GoogleTest or Catch2 under CTest detects
both runners (``parse_log`` keeps the inner runner's view, ``_drop_ctest_wrapper``), and a Gradle task runs
Kotest specs beside JUnit classes (each failure is one parser's: ``_drop_kotest_echo``;
tests/unit/ci/test_jvm_cpp_runners.py).
Beside the fixtures, Playwright's list reporter is read by its own parser (never vitest's), Cypress's spec
reporter (mocha's) is read as Cypress's (with mocha's own id), and XCTest's
``file.swift:N: error:`` assertion lines are failed tests, not a compile error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pr_agent.ci.parsers import parse_log
from pr_agent.ci.parsers.models import RUNNERS

from .regen_expected import LOGS, cases, expected_path

CASES = cases()
# (the fixture's runner, the parser that may also see failures in it): nextest replays libtest's output,
# Cypress prints mocha's spec reporter (the engine keeps the nextest and the Cypress views).
OVERLAPS = {("nextest", "cargo"), ("cypress", "mocha")}

PLAYWRIGHT = """Running 3 tests using 2 workers

  ✓  1 [chromium] › tests/example.spec.ts:3:5 › has title (1.2s)
  ✘  2 [chromium] › tests/example.spec.ts:8:5 › get started link (5.1s)
  ✓  3 [firefox] › tests/example.spec.ts:3:5 › has title (1.5s)

  1) [chromium] › tests/example.spec.ts:8:5 › get started link ───────────────────────────

    Error: Timed out 5000ms waiting for expect(locator).toBeVisible()

    > 11 |   await expect(page.getByRole('heading', { name: 'Installation' })).toBeVisible();
         |                                                                     ^

        at /home/runner/work/app/app/tests/example.spec.ts:11:69

  1 failed
    [chromium] › tests/example.spec.ts:8:5 › get started link ────────────────────────────
  2 passed (7.3s)
"""
CYPRESS = """  Running:  login.cy.js                                                                     (1 of 1)


  Login
    ✓ shows the form (312ms)
    1) logs in with valid credentials


  1 passing (4s)
  1 failing

  1) Login
       logs in with valid credentials:
     AssertionError: Timed out retrying after 4000ms: Expected to find element: `.dashboard`, but never found it.
      at Context.eval (webpack://app/./cypress/e2e/login.cy.js:12:8)

  (Run Finished)
"""
XCTEST = """Test Case '-[FooTests.FooTests testBar]' started.
/Users/runner/work/app/app/Tests/FooTests/FooTests.swift:12: error: -[FooTests.FooTests testBar] : \
XCTAssertEqual failed: ("1") is not equal to ("2")
Test Case '-[FooTests.FooTests testBar]' failed (0.002 seconds).
\t Executed 2 tests, with 1 failure (0 unexpected) in 0.003 (0.004) seconds
** TEST FAILED **
##[error]Process completed with exit code 65.
"""


@pytest.mark.parametrize("log", CASES, ids=lambda p: p.relative_to(LOGS).as_posix())
def test_no_parser_claims_another_runners_fixture(log: Path) -> None:
    own = set(json.loads(expected_path(log).read_text(encoding="utf-8"))["runners_detected"])
    data = log.read_bytes()
    for runner in RUNNERS:
        if runner in own or any((o, runner) in OVERLAPS for o in own):
            continue
        got = parse_log([data], hint=runner)
        assert not got.failures, (runner, [f.test_name for f in got.failures])


def test_playwright_is_not_vitest_and_cypress_is_not_a_wrong_mocha_id() -> None:
    pw = parse_log(PLAYWRIGHT.splitlines(keepends=True))
    assert pw.runners_detected == ["playwright"]  # never vitest's or jest's
    assert [(f.runner, f.test_name, f.file_path, f.line_number) for f in pw.failures] == [
        ("playwright", "[chromium] › tests/example.spec.ts:8:5 › get started link", "tests/example.spec.ts", 8)]
    assert (pw.passed_count, pw.failed_count) == (2, 1)
    cy = parse_log(CYPRESS.splitlines(keepends=True))
    # Cypress's spec reporter is mocha's: read as Cypress's (the spec is the suite), with mocha's own id.
    assert [(f.runner, f.test_name, f.suite) for f in cy.failures] == [
        ("cypress", "Login logs in with valid credentials", "login.cy.js")]
    assert cy.runners_detected == ["cypress"]


def test_xctest_assertion_is_a_failed_test_not_a_compile_error() -> None:
    got = parse_log(XCTEST.splitlines(keepends=True))  # (the "\\" above continues the line)
    assert [(f.runner, f.test_name, f.line_number) for f in got.failures] == [
        ("xctest", "-[FooTests.FooTests testBar]", 12)]
    assert got.non_test_failure is None
    swiftc = parse_log(["Sources/App/Foo.swift:12:5: error: cannot find 'bar' in scope\n",
                        "##[error]Process completed with exit code 1.\n"])
    assert not swiftc.failures and swiftc.non_test_failure and swiftc.non_test_failure.kind == "compile_error"


def test_out_of_memory_is_claimed_only_from_a_line_that_says_it() -> None:
    tail = "##[error]Process completed with exit code 1.\n"
    for says in ("fatal error: runtime: out of memory\n", "Out of memory: Killed process 4242 (node)\n",
                 "clang: error: out of memory allocating 4096 bytes\n"):
        got = parse_log([says, tail])
        assert got.non_test_failure and got.non_test_failure.kind == "out_of_memory", says
        assert says.strip() in got.non_test_failure.decisive_lines
    for mentions in ("tests/test_mem.py::test_out_of_memory_is_reported PASSED\n",
                     "INFO worker: handled an out of memory condition from the cache, continuing\n"):
        got = parse_log([mentions, "make: *** [Makefile:12: check] Error 2\n", tail])
        assert got.non_test_failure and got.non_test_failure.kind != "out_of_memory", mentions


def test_karma_ava_bun_deno_claim_only_their_own_lines() -> None:
    """Lines of other runners that look like Karma's, AVA's, bun's or deno's, through those four parsers."""
    others = [
        "test tests::parses ... FAILED",  # libtest
        "{0} pkg.tests.T.test_a [0.1s] ... FAILED",  # stestr
        "tests/test_a.py::test_b[x (1)] FAILED",  # pytest -v
        "FooTest > testBar() FAILED",  # Gradle
        "  ✘  1 [chromium] › tests/a.spec.ts:3:5 › has title (1.2s)",  # Playwright
        "    ✕ adds (3 ms)", "   × s > t 3ms",  # jest, vitest
        "not ok 1 - (fail) parses",  # TAP
        "==================================== ERRORS ====================================",  # pytest
        "ERRORS!", "FAILURES!", "Tests: 2, Assertions: 2, Errors: 1.",  # PHPUnit
        "  2 passing (3ms)", "  1 failing",  # mocha
        "##[error]Process completed with exit code 1.",
    ]
    for runner in ("karma", "ava", "bun", "deno"):
        got = parse_log(others, hint=runner)
        assert not got.failures and got.runners_detected == [], runner
    # their own shapes without their own totals are no failures either ("FAILED" and "(fail)" are common words)
    assert not parse_log(["Chrome 120.0 (Linux x86_64) Cart adds FAILED", "\tError: x"], hint="karma").failures
    assert not parse_log(["(fail) Cart > adds [1.00ms]"], hint="bun").failures
    assert not parse_log(["ERRORS", "", "not a => deno:1:2 entry"], hint="deno").failures
    karma = parse_log(["Chrome 120.0 (Linux x86_64) Cart adds (x) FAILED", "\tError: x",
                       "Chrome 120.0 (Linux x86_64): Executed 2 of 2 (1 FAILED) (0.1 secs / 0 secs)"])
    assert [(f.runner, f.test_name) for f in karma.failures] == [("karma", "Cart adds (x)")]
    assert karma.runners_detected == ["karma"]
