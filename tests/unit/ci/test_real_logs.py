"""The real-log corpus (``fixtures/logs/real``) and the log shapes it brought in.

The golden, actionable and plain-vs-Actions checks of every real log run in ``test_parsers.py`` (its
case list is every ``*.log`` under ``fixtures/logs``); here: the corpus keeps its promises (sources,
size, variety, README rows) and the shapes found in real logs stay understood.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pr_agent.ci.logs import clean_line, clean_lines
from pr_agent.ci.parsers import ParsedLog, parse_log
from pr_agent.ci.parsers.models import RUNNERS

from .regen_expected import LOGS, expected_path

REAL = LOGS / "real"
REAL_LOGS = sorted(REAL.rglob("*.log"))


def _case(log: Path) -> str:
    return log.relative_to(REAL).as_posix()[: -len(".log")]


def _expected(log: Path) -> dict:
    return json.loads(expected_path(log).read_text(encoding="utf-8"))


def parse(text: str) -> ParsedLog:
    return parse_log(text.splitlines())


@pytest.mark.parametrize("log", REAL_LOGS, ids=_case)
def test_real_log_has_its_sidecars(log: Path) -> None:
    source = json.loads(log.with_name(log.name[: -len(".log")] + ".source.json").read_text(encoding="utf-8"))
    assert set(source) == {"source", "captured", "format", "notes"}
    assert all(isinstance(v, str) and v.strip() for v in source.values())
    assert expected_path(log).exists()


def test_real_corpus_is_large_and_varied() -> None:
    assert len(REAL_LOGS) >= 30
    data = {_case(log): _expected(log) for log in REAL_LOGS}
    all_passed = [c for c, d in data.items() if not d["failures"] and d["non_test_failure"] is None]
    non_test = [c for c, d in data.items() if not d["failures"] and d["non_test_failure"] is not None]
    assert len(all_passed) >= 3, all_passed
    assert len(non_test) >= 5, non_test
    assert {log.parent.name for log in REAL_LOGS} >= {*RUNNERS, "nontest"}
    for case, d in data.items():  # a log filed under a runner shows that runner's own output
        runner = case.split("/", 1)[0]
        if runner != "nontest" and d["failures"]:
            got = {f["runner"] for f in d["failures"]}
            # a Gradle task runs Kotest specs beside JUnit/kotlin.test classes: those stay Gradle's
            assert runner in got and got <= {runner, *BESIDE.get(runner, ())}, case


BESIDE = {"kotest": ("gradle",)}


def test_real_logs_are_listed_in_the_readme() -> None:
    readme = (LOGS / "README.md").read_text(encoding="utf-8")
    missing = [c for c in map(_case, REAL_LOGS) if f"| `{c}` |" not in readme]
    assert not missing
    # each row says where its text comes from: a CI log, a local run, another tool's test data, a doc sample
    origins = {}
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and "/" in cells[0]:
            origins[cells[0].strip("`")] = cells[3]
    assert set(origins) == set(map(_case, REAL_LOGS))
    assert set(origins.values()) <= {"CI", "local run", "test fixture", "documentation"}, set(origins.values())
    assert origins["xctest/02-store-reviews-ui-tests-actions"] == "CI"  # XCTest: more than a README's sample


# -- shapes the real logs brought in ---------------------------------------------------------------


def test_gh_run_view_log_failed_prefix_is_stripped() -> None:
    raw = [
        "build (3.12)\tRun tests\t2026-10-05T02:19:06.5338034Z FAIL: test_x (pkg.T.test_x)",
        "build (3.12)\tRun tests\t2026-10-05T02:19:06.5342119Z ##[error]Expected: 1",
        "build (3.12)\tRun tests\tReceived: 2",  # an annotation's continuation line has no timestamp
        "FAIL\tgithub.com/acme/x\t0.01s",  # tabs of ordinary output are left alone
    ]
    assert list(clean_lines(raw)) == ["FAIL: test_x (pkg.T.test_x)", "##[error]Expected: 1", "Received: 2",
                                      "FAIL\tgithub.com/acme/x\t0.01s"]
    assert clean_line(raw[0]) == "FAIL: test_x (pkg.T.test_x)"


def test_caret_notation_ansi_is_stripped() -> None:
    assert clean_line("^[[41m^[[1m FAIL ^[[22m^[[49m a.test.ts^[[2m > ^[[22mt") == " FAIL  a.test.ts > t"
    assert list(clean_lines(["^[[32m✓^[[39m ok"])) == ["✓ ok"]


def test_go_package_that_panics_outside_any_test_is_a_non_test_failure() -> None:
    parsed = parse(
        "panic: open testdata/config.yaml: no such file or directory\n"
        "\n"
        "goroutine 1 [running]:\n"
        "github.com/acme/app.init.0()\n"
        "\t/home/runner/work/app/app/config_test.go:14 +0x1d\n"
        "exit status 2\n"
        "FAIL\tgithub.com/acme/app\t0.004s\n"
        "ok  \tgithub.com/acme/app/util\t0.002s\n"
    )
    assert parsed.failures == []
    ntf = parsed.non_test_failure
    assert ntf is not None and ntf.kind == "unknown"
    assert "github.com/acme/app" in ntf.summary and "no such file" in ntf.summary
    assert ntf.decisive_lines[-1] == "FAIL\tgithub.com/acme/app\t0.004s"


def test_jest_coloured_badge_header_names_the_suite() -> None:
    parsed = parse(" FAIL  src/a.test.ts (6.1 s)\n  ● math › adds\n\n    expected 3\n\n      at Object.<anonymous> "
                   "(src/a.test.ts:4:9)\n")
    assert [(f.test_name, f.suite) for f in parsed.failures] == [("math › adds", "src/a.test.ts")]


def test_go_build_failure_with_expanded_tabs_is_not_vitest() -> None:
    parsed = parse("# example.com/a\na/a_test.go:3: undefined: x\nFAIL    example.com/a [build failed]\n")
    assert parsed.failures == []
    assert parsed.non_test_failure is not None and parsed.non_test_failure.kind == "compile_error"
    assert parsed.non_test_failure.decisive_lines[0] == "a/a_test.go:3: undefined: x"


def test_build_tool_names_the_kind_of_non_test_failure() -> None:
    gradle = parse("> Task :app:compileJava FAILED\n* What went wrong:\nExecution failed for task ':app:compileJava'.\n"
                   "> Compilation failed; see the compiler error output for details.\n")
    assert gradle.non_test_failure is not None and gradle.non_test_failure.kind == "compile_error"
    spotless = parse("Execution failed for task ':spotlessJavaCheck'.\n> The following files had format violations:\n")
    assert spotless.non_test_failure is not None and spotless.non_test_failure.kind == "lint"
    surefire = parse("[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test "
                     "(default-test) on project x: There are test failures.\n")
    assert surefire.non_test_failure is None  # test failures are not a lint or compile problem
    warned = parse("[WARNING] Could not transfer metadata org.x:y/maven-metadata.xml from/to central: 503\n")
    assert warned.non_test_failure is None  # a warning never decides it


def test_nextest_retry_lines_without_a_progress_counter() -> None:
    parsed = parse(
        "  TRY 1 FAIL [   0.005s] (───) crate::it a_test\n"
        "  TRY 2 PASS [   0.006s] (2/2) crate::it a_test\n"
        "     Summary [   0.014s] 2 tests run: 2 passed (1 flaky), 0 skipped\n"
    )
    assert parsed.failures == [] and (parsed.passed_count, parsed.failed_count) == (2, 0)


def test_recall_and_precision_on_the_real_logs() -> None:
    """scripts/log-parser-scores: against what people wrote by reading the logs (truth.json names, the
    README's counts), the goals of the issue hold on the corpus (a development set: the parsers were fixed
    on these logs, so this guards against regressions; it is no measure on logs never seen)."""
    import importlib.machinery
    import importlib.util

    path = str(LOGS.parent.parent / "scripts" / "log-parser-scores")
    loader = importlib.machinery.SourceFileLoader("log_parser_scores", path)
    spec = importlib.util.spec_from_loader("log_parser_scores", loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    truth = json.loads((REAL / "truth.json").read_text(encoding="utf-8"))
    assert all((REAL / f"{case}.log").exists() for case in truth if not case.startswith("_"))
    got = mod.scores()
    assert got["recall"] >= 0.95 and got["precision"] >= 0.97 and got["nontest"] >= 0.9, got
