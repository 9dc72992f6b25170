"""Golden tests over fixtures/logs, plus the runner shapes the fixtures do not cover."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pr_agent.ci.parsers import HINTS, ParsedLog, TestFailure, parse_log

from .regen_expected import LOGS, cases, dumps, expected_path, render

CASES = cases()


def _ids(path: Path) -> str:
    return path.relative_to(LOGS).as_posix()


def parse(text: str, **kw: str) -> ParsedLog:
    return parse_log(text.splitlines(), **kw)


def names(parsed: ParsedLog) -> list[str]:
    return [f.test_name for f in parsed.failures]


def one(parsed: ParsedLog) -> TestFailure:
    assert len(parsed.failures) == 1, parsed.failures
    return parsed.failures[0]


# -- golden ------------------------------------------------------------------------------------------


def test_there_are_enough_fixtures() -> None:
    runners = {p.parent.name for p in CASES}
    assert {"pytest", "unittest", "jest", "vitest", "mocha", "go", "cargo", "nextest", "rspec", "phpunit",
            "dotnet", "junit", "gradle", "maven", "nontest"} <= runners
    for runner in runners - {"nontest"}:
        assert sum(p.parent.name == runner for p in CASES) >= 2, runner
    assert len(CASES) >= 40


@pytest.mark.parametrize("log", CASES, ids=_ids)
def test_golden(log: Path) -> None:
    target = expected_path(log)
    assert target.exists(), f"run tests/unit/ci/regen_expected.py to create {target.name}"
    assert dumps(render(log)) == target.read_text(encoding="utf-8")


@pytest.mark.parametrize("log", CASES, ids=_ids)
def test_every_failure_is_actionable(log: Path) -> None:
    data = json.loads(expected_path(log).read_text(encoding="utf-8"))
    for failure in data["failures"]:
        assert failure["test_name"].strip()
        assert failure["error_message"].strip()
        assert len(failure["error_message"]) <= 500
        assert "unknown test" not in failure["test_name"].lower()
    if not data["failures"] and log.parent.name == "nontest":
        ntf = data["non_test_failure"]
        assert ntf is not None and ntf["decisive_lines"] and len(ntf["decisive_lines"]) <= 20


@pytest.mark.parametrize("log", CASES, ids=_ids)
def test_plain_runner_output_parses_like_the_actions_log(log: Path) -> None:
    """The same output without timestamps/ANSI (what ``parse-log`` gets from a local run) agrees."""
    from pr_agent.ci.logs import clean_lines

    with log.open(encoding="utf-8", newline="") as fh:
        plain = list(clean_lines(fh))
    with log.open(encoding="utf-8", newline="") as fh:
        raw = parse_log(fh)
    assert parse_log(plain) == raw


def test_check_name_and_hint() -> None:
    log = LOGS / "pytest" / "single_failure.log"
    with log.open(encoding="utf-8") as fh:
        parsed = parse_log(fh, check_name="tests (3.12)", hint="pytest")
    assert one(parsed).check_name == "tests (3.12)"
    with log.open(encoding="utf-8") as fh:
        assert parse_log(fh, hint="jest").failures == []
    with pytest.raises(ValueError, match="unknown log format"):
        parse_log([], hint="nose")
    assert "auto" in HINTS and "pytest" in HINTS


def test_empty_and_passing_logs() -> None:
    assert parse_log([]) == ParsedLog()
    assert parse("hello\nworld").non_test_failure is None


# -- pytest ------------------------------------------------------------------------------------------


def test_pytest_summary_only_with_tb_no() -> None:
    parsed = parse(
        "FAILED tests/test_a.py::test_x - assert 1 == 2\n"
        "ERROR tests/test_b.py::TestB::test_y[p - q] - RuntimeError: boom\n"
        "2 failed in 0.10s\n"
    )
    assert names(parsed) == ["tests/test_a.py::test_x", "tests/test_b.py::TestB::test_y[p - q]"]
    assert parsed.failures[1].error_message == "RuntimeError: boom"
    assert parsed.failures[1].file_path == "tests/test_b.py"
    assert parsed.failures[0].confidence == "medium"
    assert parsed.failed_count == 2


def test_pytest_verbose_only() -> None:
    parsed = parse("tests/test_a.py::test_x PASSED  [ 50%]\ntests/test_a.py::test_y FAILED  [100%]\n")
    f = one(parsed)
    assert (f.test_name, f.confidence) == ("tests/test_a.py::test_y", "low")
    assert f.error_message


def test_pytest_ignores_logging_lines_that_start_with_error() -> None:
    assert parse("ERROR    root:app.py:12 something bad\nERROR: Could not open file\n").failures == []


# -- unittest ----------------------------------------------------------------------------------------


def test_unittest_python_before_3_11_and_errors() -> None:
    parsed = parse(
        "======================================================================\n"
        "ERROR: test_load (tests.test_io.IOTests)\n"
        "----------------------------------------------------------------------\n"
        "Traceback (most recent call last):\n"
        '  File "/home/runner/work/p/p/tests/test_io.py", line 9, in test_load\n'
        "    load('x')\n"
        '  File "/home/runner/work/p/p/p/io.py", line 3, in load\n'
        "    raise FileNotFoundError(path)\n"
        "FileNotFoundError: x\n"
        "\n"
        "----------------------------------------------------------------------\n"
        "Ran 2 tests in 0.001s\n"
        "\n"
        "FAILED (errors=1)\n"
    )
    f = one(parsed)
    assert f.test_name == "tests.test_io.IOTests.test_load"
    assert (f.error_message, f.file_path, f.line_number) == ("FileNotFoundError: x", "tests/test_io.py", 9)
    assert (parsed.passed_count, parsed.failed_count) == (1, 1)


# -- JS ----------------------------------------------------------------------------------------------


def test_jest_verbose_cross_without_blocks_is_low_confidence() -> None:
    parsed = parse("FAIL src/a.test.js\n  math\n    ✕ adds (3 ms)\n")
    f = one(parsed)
    assert (f.test_name, f.runner, f.confidence, f.suite) == ("adds", "jest", "low", "src/a.test.js")


def test_vitest_tree_only() -> None:
    parsed = parse(
        " ❯ src/a.test.ts (2 tests | 1 failed) 4ms\n"
        "   × math > adds 2ms\n"
        "     → expected 3 to be 4 // Object.is equality\n"
    )
    f = one(parsed)
    assert (f.test_name, f.error_message, f.file_path) == (
        "math > adds", "expected 3 to be 4 // Object.is equality", "src/a.test.ts")  # vitest's own id
    assert f.confidence == "medium"


def test_vitest_groups_identical_errors() -> None:
    parsed = parse(
        " FAIL  src/a.test.ts > s > one\n"
        " FAIL  src/a.test.ts > s > two\n"
        "Error: setup exploded\n"
        " ❯ src/a.test.ts:3:9\n"
        "⎯⎯⎯⎯⎯⎯[1/1]⎯\n"
    )
    assert names(parsed) == ["s > one", "s > two"]
    assert {f.error_message for f in parsed.failures} == {"Error: setup exploded"}
    assert {f.line_number for f in parsed.failures} == {3}


# -- Go ----------------------------------------------------------------------------------------------


def test_gotestsum_output() -> None:
    parsed = parse(
        "=== FAIL: internal/cache TestEvict (0.00s)\n"
        "    cache_test.go:40: len = 3, want 2\n"
        "\n"
        "DONE 12 tests, 1 failure in 0.912s\n"
    )
    f = one(parsed)
    assert (f.test_name, f.suite, f.file_path, f.line_number) == ("TestEvict", "internal/cache", "cache_test.go", 40)


def test_go_test_timeout_panic() -> None:
    parsed = parse(
        "panic: test timed out after 10m0s\n"
        "\trunning tests:\n"
        "\t\tTestSlowSync (10m0s)\n"
        "\n"
        "goroutine 33 [running]:\n"
        "FAIL\tgithub.com/acme/sync\t600.012s\n"
    )
    f = one(parsed)
    assert (f.test_name, f.error_message) == ("TestSlowSync", "panic: test timed out after 10m0s")
    assert parsed.non_test_failure is not None and parsed.non_test_failure.kind == "timeout"


def test_go_parent_with_own_message_is_kept() -> None:
    parsed = parse(
        "--- FAIL: TestA (0.00s)\n"
        "    a_test.go:5: setup failed\n"
        "    --- FAIL: TestA/sub (0.00s)\n"
        "        a_test.go:9: boom\n"
        "FAIL\texample.com/a\t0.01s\n"
    )
    assert names(parsed) == ["TestA", "TestA/sub"]
    assert [f.error_message for f in parsed.failures] == ["setup failed", "boom"]


# -- Rust --------------------------------------------------------------------------------------------


def test_nextest_flaky_pass_is_not_a_failure() -> None:
    parsed = parse(
        "    Starting 2 tests across 1 binary\n"
        "   TRY 1 FAIL [   0.010s] app tests::flaky\n"
        "  RETRY 2/2 [         ] app tests::flaky\n"
        "   TRY 2 PASS [   0.009s] app tests::flaky\n"
        "        FAIL [   0.004s] app tests::broken\n"
        "     Summary [   0.030s] 2 tests run: 1 passed (1 flaky), 1 failed, 0 skipped\n"
    )
    assert names(parsed) == ["tests::broken"]
    assert (parsed.passed_count, parsed.failed_count) == (1, 1)


# -- JVM ---------------------------------------------------------------------------------------------


def test_maven_old_surefire_summary() -> None:
    parsed = parse(
        "Results :\n"
        "\n"
        "Failed tests:   testJavaVersion(marytts.tests.junit4.EnvironmentTest): expected:<[tru]e> but was:<[fals]e>\n"
        "  formatRow(de.gwdg.CollocationTest): expected:<lcsh;udc>\n"
        "\n"
        "Tests run: 48, Failures: 2, Errors: 0, Skipped: 0\n"
    )
    assert names(parsed) == [
        "marytts.tests.junit4.EnvironmentTest.testJavaVersion",
        "de.gwdg.CollocationTest.formatRow",
    ]
    assert parsed.failures[0].error_message == "expected:<[tru]e> but was:<[fals]e>"
    assert (parsed.passed_count, parsed.failed_count) == (46, 2)


def test_junit_self_closing_failure_uses_type() -> None:
    parsed = parse('<testcase classname="a.B" name="c"><failure type="AssertionError"/></testcase>')
    f = one(parsed)
    assert (f.test_name, f.error_message, f.runner) == ("a.B.c", "AssertionError", "junit")


def test_dotnet_xunit_fail_line_only() -> None:
    parsed = parse("[xUnit.net 00:00:00.52]     Ns.Tests.Thing.Works [FAIL]\n")
    f = one(parsed)
    assert (f.test_name, f.runner, f.confidence) == ("Ns.Tests.Thing.Works", "dotnet", "low")


# -- non-test failures ------------------------------------------------------------------------------


def test_exit_code_without_anything_recognisable() -> None:
    parsed = parse(
        "##[group]Run ./deploy.sh\n"
        "##[endgroup]\n"
        "uploading artefacts\n"
        "permission denied: /srv/www\n"
        "##[error]Process completed with exit code 126.\n"
    )
    ntf = parsed.non_test_failure
    assert ntf is not None and ntf.kind == "unknown"
    # the last error-looking lines (uploading artefacts is not one)
    assert ntf.decisive_lines == ["permission denied: /srv/www", "##[error]Process completed with exit code 126."]
    assert ntf.summary == "Unrecognised failure: permission denied: /srv/www"
    assert parsed.exit_code == 126


def test_failures_and_oom_are_both_reported() -> None:
    parsed = parse("FAILED tests/t.py::test_a - assert 0\nKilled\n##[error]Process completed with exit code 137.\n")
    assert names(parsed) == ["tests/t.py::test_a"]
    assert parsed.non_test_failure is not None and parsed.non_test_failure.kind == "out_of_memory"


def test_test_failures_hide_ordinary_non_test_noise() -> None:
    parsed = parse("npm ERR! Test failed.  See above for more details.\n--- FAIL: TestX (0.00s)\n    x_test.go:1: no\n")
    assert names(parsed) == ["TestX"]
    assert parsed.non_test_failure is None


def test_npm_lifecycle_error_alone_is_not_a_dependency_problem() -> None:
    parsed = parse("npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n##[error]Process completed with exit code 1.\n")
    assert parsed.non_test_failure is not None and parsed.non_test_failure.kind == "unknown"


def test_mypy_is_a_type_check_and_gcc_is_compile() -> None:
    mypy = parse("src/a.py:3: error: Incompatible types in assignment\nFound 1 error in 1 file (checked 9 files)\n")
    assert mypy.non_test_failure is not None
    assert (mypy.non_test_failure.kind, mypy.non_test_failure.tool) == ("type_check", "mypy")
    gcc = parse("src/main.c:12:5: error: implicit declaration of function 'foo'\nmake: *** [all] Error 1\n")
    assert gcc.non_test_failure is not None and gcc.non_test_failure.kind == "compile_error"


def test_flake8_lines_before_exit_code_are_lint() -> None:
    parsed = parse("./src/a.py:1:1: F401 'os' imported but unused\n##[error]Process completed with exit code 1.\n")
    ntf = parsed.non_test_failure
    assert ntf is not None and ntf.kind == "lint"
    assert ntf.decisive_lines[0] == "./src/a.py:1:1: F401 'os' imported but unused"


def test_rspec_failed_examples_list_alone() -> None:
    parsed = parse(
        "2 examples, 1 failure\n\nFailed examples:\n\n"
        "rspec ./spec/models/user_spec.rb:14 # User validates the email\n\nRandomized with seed 1\n"
    )
    f = one(parsed)
    assert (f.test_name, f.file_path, f.line_number) == ("User validates the email", "spec/models/user_spec.rb", 14)
