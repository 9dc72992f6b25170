"""Fields of matched failures: the test's own file:line (not an assertion library's frame), the runner's
own id verbatim, and messages as the runner printed them."""

from __future__ import annotations

import json

from pr_agent.ci.parsers import parse_log
from pr_agent.ci.repro import reproduce_command


def _one(text: str):  # type: ignore[no-untyped-def]
    parsed = parse_log(text.splitlines(keepends=True))
    assert len(parsed.failures) == 1, parsed.failures
    return parsed.failures[0]


TESTIFY_OLD = """=== RUN   TestSum
    assertions.go:1000:\x20
        \tError Trace:\t/home/runner/work/calc/calc/pkg/sum/sum_test.go:14
        \t            \t/home/runner/work/calc/calc/pkg/sum/helpers_test.go:30
        \tError:      \tNot equal:\x20
        \t            \texpected: 3
        \t            \tactual  : 4
        \tTest:       \tTestSum
        \tMessages:   \tsum of 1 and 2
--- FAIL: TestSum (0.00s)
FAIL
FAIL\tgithub.com/acme/calc/pkg/sum\t0.004s
"""


def test_testify_failure_is_located_at_the_tests_own_line() -> None:
    f = _one(TESTIFY_OLD)
    assert (f.test_name, f.file_path, f.line_number) == ("TestSum", "pkg/sum/sum_test.go", 14)
    assert f.error_message == "Not equal:\nexpected: 3\nactual  : 4\nsum of 1 and 2"
    # Newer testify (t.Helper): Go itself prints the test's line; the trace agrees with it.
    new = TESTIFY_OLD.replace("    assertions.go:1000: ", "    sum_test.go:14: ").replace(
        "/home/runner/work/calc/calc/pkg/sum/sum_test.go:14", "sum_test.go:14")
    f2 = _one(new)
    assert (f2.file_path, f2.line_number) == ("sum_test.go", 14)
    assert f2.error_message.startswith("Not equal:")


def test_testify_in_go_test_json_events() -> None:
    lines = ['{"Action":"run","Package":"p","Test":"TestSum"}\n']
    for out in ("=== RUN   TestSum\n", "    assertions.go:1000: \n",
                "        \tError Trace:\t/home/runner/work/calc/calc/sum_test.go:9\n",
                "        \tError:      \tShould be true\n", "--- FAIL: TestSum (0.00s)\n"):
        lines.append(json.dumps({"Action": "output", "Package": "p", "Test": "TestSum", "Output": out}) + "\n")
    lines.append('{"Action":"fail","Package":"p","Test":"TestSum"}\n')
    f = _one("".join(lines))
    assert (f.file_path, f.line_number, f.error_message) == ("sum_test.go", 9, "Should be true")


def test_vitest_ids_are_verbatim_and_repro_matches_them() -> None:
    f = _one(" FAIL  src/math.test.ts > math > adds > two numbers\n"
             "AssertionError: expected 3 to be 4\n"
             " ❯ src/math.test.ts:7:19\n"
             "⎯⎯⎯⎯[1/1]⎯\n")
    assert (f.test_name, f.file_path, f.line_number) == ("math > adds > two numbers", "src/math.test.ts", 7)
    cmd = reproduce_command(f.runner, f.test_name, suite=f.suite, file_path=f.file_path)
    assert cmd == "npx vitest run src/math.test.ts -t '^math adds two numbers$'"


def test_vitest_tree_line_gets_the_file_of_its_group() -> None:
    f = _one(" ❯ src/math.test.ts (2 tests | 1 failed) 5ms\n"
             "   × math > adds > two numbers 3ms\n"
             "     → expected 3 to be 4\n")
    assert (f.test_name, f.file_path, f.suite) == ("math > adds > two numbers", "src/math.test.ts", "src/math.test.ts")


def test_googletest_parameterised_id_is_the_runners_own() -> None:
    parsed = parse_log(["[ RUN      ] Params/PrimeTest.IsPrime/1\n",
                        "/__w/calc/calc/tests/prime_test.cc:14: Failure\n", "Value of: IsPrime(GetParam())\n",
                        "  Actual: false\n", "Expected: true\n",
                        "[  FAILED  ] Params/PrimeTest.IsPrime/1, where GetParam() = 4 (0 ms)\n",
                        "[  FAILED  ] 1 test, listed below:\n",
                        "[  FAILED  ] Params/PrimeTest.IsPrime/1, where GetParam() = 4\n"])
    assert [(f.test_name, f.file_path, f.line_number) for f in parsed.failures] == [
        ("Params/PrimeTest.IsPrime/1", "tests/prime_test.cc", 14)]
    assert parsed.failures[0].error_message == "Value of: IsPrime(GetParam())\n  Actual: false\nExpected: true"
    assert parsed.failed_count == 1


def test_googletest_msvc_location_and_gtest_not_claimed_by_other_parsers() -> None:
    parsed = parse_log(["[ RUN      ] Net.Parses\n",
                        "D:\\a\\net\\net\\tests\\parse_test.cpp(31): error: Value of: ok\n",
                        "  Actual: false\n",
                        "[  FAILED  ] Net.Parses (1 ms)\n"])
    assert [(f.runner, f.test_name, f.file_path, f.line_number) for f in parsed.failures] == [
        ("googletest", "Net.Parses", "tests/parse_test.cpp", 31)]
    assert parsed.runners_detected == ["googletest"]


def test_pytest_rerunfailures_pass_is_flaky_not_a_failure() -> None:
    log = ["tests/test_a.py::test_flaky RERUN                                        [ 50%]\n",
           "tests/test_a.py::test_flaky PASSED                                       [ 50%]\n",
           "tests/test_a.py::test_broken RERUN                                       [100%]\n",
           "tests/test_a.py::test_broken FAILED                                      [100%]\n",
           "=========================== short test summary info ============================\n",
           "RERUN tests/test_a.py::test_flaky\n",
           "RERUN tests/test_a.py::test_broken\n",
           "FAILED tests/test_a.py::test_broken - assert 1 == 2\n",
           "==================== 1 failed, 1 passed, 2 rerun in 0.12s =====================\n"]
    parsed = parse_log(log)
    assert [f.test_name for f in parsed.failures] == ["tests/test_a.py::test_broken"]
    assert parsed.flaky == ["tests/test_a.py::test_flaky"]
    assert parse_log(log[:2]).flaky == ["tests/test_a.py::test_flaky"] and not parse_log(log[:2]).failures


def test_cypress_retry_that_passed_is_flaky_and_one_that_failed_every_attempt_is_a_failure() -> None:
    log = ["  Running:  cart.cy.js                                                      (1 of 1)\n", "\n",
           "  Cart\n", "    (Attempt 1 of 3) adds an item\n", "    ✓ adds an item (812ms)\n",
           "    (Attempt 1 of 2) removes an item\n", "    (Attempt 2 of 2) removes an item\n",
           "    1) removes an item\n", "  Totals\n", "    ✓ sums (20ms)\n", "\n", "  2 passing (3s)\n", "  1 failing\n",
           "\n", "  1) Cart\n", "       removes an item:\n", "     AssertionError: expected 1 to equal 0\n",
           "      at Context.eval (webpack://shop/./cypress/e2e/cart.cy.js:18:30)\n", "\n", "  (Results)\n"]
    parsed = parse_log(log)
    assert [f.test_name for f in parsed.failures] == ["Cart removes an item"]
    assert parsed.flaky == ["Cart adds an item"]  # mocha's own id: the suite and the title
    assert parse_log([line for line in log if "(Attempt" not in line]).flaky == []  # no retry: a plain pass


def test_jest_retry_that_passed_is_flaky_and_one_that_failed_every_retry_is_a_failure() -> None:
    log = [" LOGGING RETRY ERRORS  Cart adds an item\n", " RETRY 1 \n", "\n", "    expect(received).toBe(expected)\n",
           "\n", "PASS src/cart.test.js\n", " LOGGING RETRY ERRORS  Cart removes an item\n", " RETRY 1 \n",
           "FAIL src/cart.test.js\n", "  ● Cart › removes an item\n", "\n", "    expect(received).toBe(expected)\n",
           "\n", "      at Object.toBe (src/cart.test.js:9:20)\n", "\n",
           "Tests:       1 failed, 1 passed, 2 total\n"]
    parsed = parse_log(log)
    assert [(f.test_name, f.line_number) for f in parsed.failures] == [("Cart › removes an item", 9)]
    assert parsed.flaky == ["Cart adds an item"]  # jest names a retried test by its full name
    assert parsed.runners_detected == ["jest"]


def test_bun_closing_recap_repeats_failures_without_adding_any() -> None:
    log = ["bun test v1.2.5", "", "test/a.test.ts:", "error: boom", "(fail) A > x [0.10ms]", "", "test/b.test.ts:",
           "(pass) B > y [0.10ms]", "", "1 tests failed:", "(fail) A > x [0.10ms]", "", " 1 pass", " 1 fail",
           "Ran 2 tests across 2 files. [5.00ms]"]
    parsed = parse_log(log)
    # once, in its own file (the recap comes after b.test.ts's header), with its error
    assert [(f.test_name, f.file_path, f.error_message) for f in parsed.failures] == [
        ("A > x", "test/a.test.ts", "error: boom")]
    assert (parsed.passed_count, parsed.failed_count) == (1, 1)


def test_deno_uncaught_error_outside_any_test_is_the_module() -> None:
    log = ["running 1 test from ./a_test.ts", "", " ERRORS ", "", "./a_test.ts (uncaught error)",
           "error: (in promise) TypeError: boom", "    at file:///home/runner/work/x/x/a_test.ts:3:9", "",
           " FAILURES ", "", "./a_test.ts (uncaught error)", "", "FAILED | 0 passed | 1 failed (5ms)"]
    parsed = parse_log(log)
    assert [(f.runner, f.test_name, f.file_path, f.error_message) for f in parsed.failures] == [
        ("deno", "./a_test.ts (uncaught error)", "a_test.ts", "error: (in promise) TypeError: boom")]


def test_googletest_failure_without_a_location_line_keeps_what_the_test_printed() -> None:
    log = ["[ RUN      ] A.First", "a_test.cc:3: Failure", "Expected: 1", "[  FAILED  ] A.First (1 ms)",
           "[ RUN      ] A.Load", "unknown file: Failure", 'C++ exception with description "no plugin" thrown in the '
           "test body.", "[  FAILED  ] A.Load (2 ms)", "[ RUN      ] A.Quiet", "[  FAILED  ] A.Quiet (0 ms)"]
    got = {f.test_name: (f.error_message, f.file_path) for f in parse_log(log).failures}
    assert got["A.First"] == ("Expected: 1", "a_test.cc")
    assert got["A.Load"] == ('unknown file: Failure\nC++ exception with description "no plugin" thrown in the test '
                             "body.", None)
    assert got["A.Quiet"][0] is not None and "shows no assertion" in got["A.Quiet"][0]  # nothing printed: said so


def test_minitest_spec_class_named_by_its_describe_text_and_a_test_x_rb_frame() -> None:
    log = ["  1) Error:", "my gem: parser#test_0001_reads:", "RuntimeError: boom",
           "    test/test_parser.rb:18:in `block (2 levels) in <top (required)>'", "",
           "1 runs, 0 assertions, 0 failures, 1 errors, 0 skips"]
    [f] = parse_log(log).failures
    assert (f.test_name, f.file_path, f.line_number) == ("my gem: parser#test_0001_reads", "test/test_parser.rb", 18)
    assert parse_log(["  1) Failure:", "not a test name:", "x", "1 runs, 1 assertions, 1 failures, 0 errors, 0 skips"]
                     ).failures == []
