"""Test-output parsers: ``parse_log(lines) -> ParsedLog`` over any runner's CI output.

Runners: pytest, unittest, jest, vitest, mocha, go (plain and -json), cargo, nextest, rspec, phpunit,
dotnet, JUnit XML, Gradle, Maven, GoogleTest, XCTest, CTest, sbt/ScalaTest, Kotest and the others of
``models.RUNNERS`` (Karma, AVA, bun test and deno test among them: docs/log-parsers.md). A job that failed for
another reason (compile error, lint, dependency install, out of memory, timeout, cancellation) yields a
``NonTestFailure`` instead.
"""

from .engine import HINTS, parse_log
from .models import NonTestFailure, ParsedLog, TestFailure

__all__ = ["HINTS", "NonTestFailure", "ParsedLog", "TestFailure", "parse_log"]
