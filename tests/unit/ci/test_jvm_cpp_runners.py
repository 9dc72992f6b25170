"""CTest, sbt/ScalaTest and Kotest (under Gradle): ids as the runner prints them, the test's own location,
what is not a failure, which parser's view wins where two read the same output, and reproduction commands
that select exactly the failed test (run as regular expressions where the runner reads one)."""

from __future__ import annotations

import re
import shlex

from pr_agent.ci.parsers import parse_log
from pr_agent.ci.repro import reproduce_command


def _parse(text: str, hint: str | None = None):  # type: ignore[no-untyped-def]
    return parse_log(text.splitlines(keepends=True), hint=hint)


def _argv(f, runners=()):  # type: ignore[no-untyped-def]
    cmd = reproduce_command(f.runner, f.test_name, suite=f.suite, file_path=f.file_path, runners=runners)
    return shlex.split(cmd) if cmd else None


# -- CTest -----------------------------------------------------------------------------------------------

CTEST = """Test project /home/runner/work/geo/geo/build
    Start 1: unit
1/5 Test #1: unit .............................   Passed    0.02 sec
    Start 2: unit.vector
2/5 Test #2: unit.vector ......................***Failed    0.11 sec
expected 3 got 4
    Start 3: cli smoke
3/5 Test #3: cli smoke ........................***Exception: SegFault  0.03 sec
    Start 4: gpu.render
4/5 Test #4: gpu.render .......................***Not Run (Disabled)   0.00 sec
    Start 5: io.slow
5/5 Test #5: io.slow ..........................***Timeout  60.01 sec

25% tests passed, 3 tests failed out of 4

The following tests did not run:
\t  4 - gpu.render (Disabled)

The following tests FAILED:
\t  2 - unit.vector (Failed)       fast
\t  3 - cli smoke (SEGFAULT)       fast smoke
\t  5 - io.slow (Timeout)
Errors while running CTest
"""


def test_ctest_names_statuses_and_output_are_the_runners_own() -> None:
    parsed = _parse(CTEST)
    got = [(f.runner, f.test_name, f.error_message) for f in parsed.failures]
    assert got == [("ctest", "unit.vector", "ctest: Failed\nexpected 3 got 4"),
                   ("ctest", "cli smoke", "ctest: Exception: SegFault"),
                   ("ctest", "io.slow", "ctest: Timeout")]  # a disabled test did not run: not a failure
    assert (parsed.passed_count, parsed.failed_count) == (1, 3)
    assert parsed.non_test_failure is None


def test_ctest_rerun_selects_exactly_the_failed_test() -> None:
    for f in _parse(CTEST).failures:
        argv = _argv(f)
        assert argv is not None and argv[:3] == ["ctest", "--output-on-failure", "-R"]
        assert re.search(argv[3], f.test_name)
        for other in ("unit", "unit.vectorX", "xunit.vector", "cli", "io-slow"):  # -R searches: anchored
            assert other == f.test_name or not re.search(argv[3], other), (argv, other)


def test_ctest_gives_way_to_the_googletest_failures_in_its_output() -> None:
    log = """1/1 Test #1: calc_tests .......***Failed    0.01 sec
[ RUN      ] Calc.Divides
/home/runner/work/calc/calc/test/calc_test.cpp:21: Failure
Expected equality of these values:
  3.5
[  FAILED  ] Calc.Divides (0 ms)
[  PASSED  ] 4 tests.
[  FAILED  ] 1 test, listed below:
[  FAILED  ] Calc.Divides

0% tests passed, 1 tests failed out of 1
The following tests FAILED:
\t  1 - calc_tests (Failed)
"""
    parsed = _parse(log)
    assert [(f.runner, f.test_name, f.file_path, f.line_number) for f in parsed.failures] == [
        ("googletest", "Calc.Divides", "test/calc_test.cpp", 21)]
    assert (parsed.passed_count, parsed.failed_count) == (4, 1)  # GoogleTest's counts, not CTest's executables
    assert [f.test_name for f in _parse(log, hint="ctest").failures] == ["calc_tests"]  # asked for: CTest's


# -- sbt / ScalaTest -------------------------------------------------------------------------------------

SBT = """[info] CartSpec:
[info] A Cart
[info] - should start empty
[info] - should add an item *** FAILED *** (12 milliseconds)
[info]   List() had length 0 instead of expected length 1 (CartSpec.scala:18)
[info]   org.scalatest.exceptions.TestFailedException:
[info]   at shop.CartSpec.$anonfun$new$2(CartSpec.scala:18)
[info] PriceSuite:
14:00:01.123 INFO  shop.Prices - loading the table
[info] - should round "half" even *** FAILED ***
[info]   java.lang.ArithmeticException: / by zero
[info]   at shop.Prices.round(Prices.scala:31)
[info]   at shop.PriceSuite.$anonfun$new$1(PriceSuite.scala:9)
[info] Tests: succeeded 1, failed 2, canceled 0, ignored 0, pending 0
[info] *** 2 TESTS FAILED ***
[error] Failed: Total 3, Failed 2, Errors 0, Passed 1
[error] Failed tests:
[error] \tshop.CartSpec
[error] \tshop.PriceSuite
[error] \tshop.LegacyJUnitTest
[error] (Test / test) sbt.TestsFailedException: Tests unsuccessful
"""


def test_scalatest_ids_locations_and_sbts_suite_list() -> None:
    parsed = _parse(SBT)
    got = [(f.runner, f.test_name, f.suite, f.file_path, f.line_number) for f in parsed.failures]
    assert got == [
        ("sbt", "A Cart should add an item", "shop.CartSpec", "CartSpec.scala", 18),  # FlatSpec: its subject
        ("sbt", 'should round "half" even', "shop.PriceSuite", "PriceSuite.scala", 9),  # the log line is no scope
        ("sbt", "shop.LegacyJUnitTest", "shop.LegacyJUnitTest", None, None),  # listed by sbt only
    ]
    assert parsed.failures[0].error_message.startswith("List() had length 0 instead of expected length 1")
    assert parsed.failures[1].error_message == "java.lang.ArithmeticException: / by zero"
    assert (parsed.passed_count, parsed.failed_count) == (1, 2)  # ScalaTest's totals, not counted twice


def test_sbt_rerun_commands() -> None:
    cart, price, legacy = _parse(SBT).failures
    assert _argv(cart) == ["sbt", 'testOnly shop.CartSpec -- -z "A Cart should add an item"']
    assert _argv(price) == ["sbt", "testOnly shop.PriceSuite"]  # a quote in the name: the suite, whole
    assert _argv(legacy) == ["sbt", "testOnly shop.LegacyJUnitTest"]
    assert _argv(cart, runners=["maven", "sbt"]) is None  # ScalaTest under Maven: no sbt command


def test_aborted_suite_and_surefires_old_list_are_not_confused() -> None:
    aborted = _parse("[info] Exception encountered when attempting to run a suite with class name: "
                     "shop.db.MigrationsSpec *** ABORTED *** (201 milliseconds)\n"
                     "[info]   java.sql.SQLException: No suitable driver\n")
    assert [(f.test_name, f.error_message) for f in aborted.failures] == [
        ("shop.db.MigrationsSpec", "java.sql.SQLException: No suitable driver")]
    surefire = _parse("Failed tests:\n  testAdd(com.acme.CalcTest): expected:<3> but was:<4>\n\n"
                      "Tests run: 3, Failures: 1, Errors: 0, Skipped: 0\n")
    assert [(f.runner, f.test_name) for f in surefire.failures] == [("maven", "com.acme.CalcTest.testAdd")]


# -- Kotest under Gradle ---------------------------------------------------------------------------------

KOTEST = """io.acme.CartSpec > adding an item > increases the count (by one) FAILED
    io.kotest.assertions.AssertionFailedError: expected:<1> but was:<0>
        at app//io.acme.CartSpec$1$1$1.invokeSuspend(CartSpec.kt:14)

CartSpec[jvm] > totals: zero[jvm] FAILED
    io.kotest.assertions.AssertionFailedError at CartSpec.kt:22

io.acme.LegacyTest > removes() FAILED
    org.opentest4j.AssertionFailedError: expected: <0> but was: <1>
        at app//io.acme.LegacyTest.removes(LegacyTest.kt:19)

12 tests completed, 3 failed
"""


def test_kotest_failures_are_kotests_and_junits_stay_gradles() -> None:
    parsed = _parse(KOTEST)
    got = [(f.runner, f.test_name, f.suite, f.file_path, f.line_number) for f in parsed.failures]
    assert got == [
        ("gradle", "io.acme.LegacyTest.removes", "io.acme.LegacyTest", "LegacyTest.kt", 19),
        ("kotest", "io.acme.CartSpec > adding an item > increases the count (by one)", "io.acme.CartSpec",
         "CartSpec.kt", 14),  # verbatim: nested scopes, parentheses
        ("kotest", "CartSpec[jvm] > totals: zero[jvm]", "CartSpec[jvm]", "CartSpec.kt", 22),
    ]
    assert (parsed.passed_count, parsed.failed_count) == (9, 3)  # Gradle's totals, once
    assert [_argv(f) for f in parsed.failures[1:]] == [["./gradlew", "test", "--tests", "io.acme.CartSpec"],
                                                      ["./gradlew", "jvmTest", "--tests", "CartSpec"]]
    forced = _parse(KOTEST, hint="gradle")  # asked for Gradle: Gradle's view of every test
    assert {f.runner for f in forced.failures} == {"gradle"} and len(forced.failures) == 3


def test_xctest_counts_are_the_largest_suite_total() -> None:
    # every suite prints its own total; a summary that sorts the lines must not make the smallest win
    parsed = _parse("\t Executed 46 tests, with 2 failures (0 unexpected) in 2.1 (2.2) seconds\n"
                    "\t Executed 8 tests, with 0 failures (0 unexpected) in 0.1 (0.1) seconds\n"
                    "Test Case '-[A.B testOne]' failed (0.1 seconds).\n"
                    "Test Case '-[A.C testTwo]' failed (0.1 seconds).\n")
    assert (parsed.passed_count, parsed.failed_count) == (44, 2)


def test_kotests_assertions_in_a_junit_method_stay_gradles() -> None:
    # kotest-assertions-core is used from plain JUnit tests too: the method (its `()`, or its own frame) says so
    parsed = _parse("io.acme.LegacyTest > removes() FAILED\n"
                    "    io.kotest.assertions.AssertionFailedError: expected:<0> but was:<1>\n"
                    "        at app//io.acme.LegacyTest.removes(LegacyTest.kt:19)\n\n"
                    "io.acme.OldTest > testTotal FAILED\n"
                    "    io.kotest.assertions.AssertionFailedError: expected:<2> but was:<3>\n"
                    "        at app//io.kotest.assertions.ErrorsKt.failure(Errors.kt:12)\n"
                    "        at app//io.acme.OldTest.testTotal(OldTest.kt:31)\n\n"
                    "2 tests completed, 2 failed\n")
    assert [(f.runner, f.test_name, f.line_number) for f in parsed.failures] == [
        ("gradle", "io.acme.LegacyTest.removes", 19), ("gradle", "io.acme.OldTest.testTotal", 31)]


def test_kotlin_native_and_js_events_need_an_exception_under_them() -> None:
    parsed = _parse("T.t FAILED\n"
                    "    AssertionError at /var/folders/5r/T/_karma_webpack_5638/commons.js:84\n\n"
                    "io.acme.CartSpec.adds an item FAILED\n"
                    "    io.kotest.assertions.AssertionFailedError at /opt/buildAgent/work/1/kotlin/Throwable.kt:24\n\n"
                    "setup.sh FAILED\n\nBUILD FAILED\nbuild.gradle FAILED\n  see the log\n\n"
                    "2 tests completed, 2 failed\n")
    assert [(f.runner, f.test_name, f.suite, f.file_path) for f in parsed.failures] == [
        ("gradle", "T.t", "T", None),  # the runtime's location is not the test's
        ("kotest", "io.acme.CartSpec.adds an item", "io.acme.CartSpec", None)]
