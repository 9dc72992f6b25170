"""Result models of the log parsers."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

Runner = Literal[
    "pytest",
    "unittest",
    "jest",
    "vitest",
    "mocha",
    "go",
    "cargo",
    "nextest",
    "rspec",
    "phpunit",
    "dotnet",
    "junit",
    "gradle",
    "maven",
    "googletest",
    "xctest",
    "playwright",
    "exunit",
    "catch2",
    "tap",
    "swift-testing",
    "dart",
    "minitest",
    "cypress",
    "stestr",
    "ctest",
    "sbt",
    "kotest",
    "karma",
    "ava",
    "bun",
    "deno",
]
RUNNERS: tuple[str, ...] = Runner.__args__  # type: ignore[attr-defined]
Confidence = Literal["high", "medium", "low"]
NonTestKind = Literal[
    "compile_error", "type_check", "lint", "format", "dependency_install", "docker_build", "gate", "script_error",
    "out_of_memory", "timeout", "cancelled", "unknown"
]


class TestFailure(BaseModel):
    """One failed test, as the runner reported it."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    check_name: str = ""
    test_name: str = Field(description="The runner's own id, verbatim: pytest node id, go TestName/sub, jest "
                           "'Suite › test', vitest 'Suite > test', cargo module::test, JUnit Class.method, "
                           "GoogleTest Suite.Test, XCTest -[Module.Class test], Playwright "
                           "'[project] › file:line:col › title', ExUnit 'test name', Catch2 test case name, "
                           "TAP name after 'not ok N - ', CTest test name, ScalaTest test text after '- ', Kotest "
                           "'Spec > test' as Gradle prints it, Karma's full spec name, AVA 'file › title', bun "
                           "'Suite > name', deno 'name' or 'parent ... step', …")
    error_message: str = Field(description="The assertion or exception, trimmed; never empty.")
    file_path: str | None = Field(default=None, description="Repository-relative when the log allows.")
    line_number: int | None = None
    runner: Runner
    confidence: Confidence
    suite: str | None = Field(
        default=None,
        description="Where the test lives when the runner says so apart from the name: go package, "
        "jest/vitest/Playwright file, cargo test target, nextest binary id, JUnit/surefire class file, "
        "ExUnit module, 'node:test' for TAP from node --test, bun's test file.",
    )


class NonTestFailure(BaseModel):
    """Why a job failed when it was not (only) a failing test."""

    kind: NonTestKind
    summary: str
    decisive_lines: list[str] = Field(default_factory=list, description="At most ~20 lines.")
    tool: str | None = Field(default=None, description="The tool a decisive line names (rustc, tsc, ruff, npm (E404), "
                             "docker build, size-limit, python, …), or the failed step's command; None when "
                             "no line says.")


class ParsedLog(BaseModel):
    failures: list[TestFailure] = Field(default_factory=list)
    non_test_failure: NonTestFailure | None = None
    runners_detected: list[str] = Field(default_factory=list)
    passed_count: int | None = Field(default=None, description="From the runners' own summary lines.")
    failed_count: int | None = Field(default=None, description="From the runners' own summary lines.")
    exit_code: int | None = Field(default=None, description="From '##[error]Process completed with exit "
                                  "code N.' when present.")
    truncated: bool = Field(default=False, description="More failures than the parser keeps (2000).")
    flaky: list[str] = Field(default_factory=list, description="Tests that failed and then passed on a rerun in "
                             "the same job (pytest-rerunfailures RERUN, nextest TRY n PASS, Playwright 'N "
                             "flaky', Cypress '(Attempt n of m)' then a pass, jest 'LOGGING RETRY ERRORS' then "
                             "no failure): flaky, not failures.")
    lines_cut: int = Field(default=0, description="Lines longer than the bound (MAX_LINE_CHARS) that were "
                           "cut to it before any parser read them.")
