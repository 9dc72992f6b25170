"""``parse_log``: one streaming pass over a log, every runner parser and the non-test detector at once.

Per line the engine does the cheap work itself: strip the Actions timestamp and ANSI codes, remember the
line in a small ring, and test a handful of substrings. Only lines containing a token some parser cares
about (``FAIL``, ``rror``, ``●``, …) go to all parsers; parsers inside a failure block ask to *capture*
and then get every line until the block ends. No regex ever runs over the whole log.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..logs import _ANSI_RE, _BOM, _CARET_ANSI_RE, _TS_RE, clean_line, strip_gh_prefix
from .base import BaseParser, Context, Draft
from .dotnet import DotnetParser
from .go_test import GoParser
from .js_jest import JestParser
from .js_mocha import MochaParser
from .js_vitest import VitestParser
from .junit_xml import JunitXmlParser
from .jvm import GradleParser, MavenParser
from .models import RUNNERS, ParsedLog, TestFailure
from .nontest import NonTestDetector
from .py_pytest import PytestParser
from .py_unittest import UnittestParser
from .ruby_php import PhpunitParser, RspecParser
from .rust import CargoParser, NextestParser

PARSER_CLASSES: tuple[type[BaseParser], ...] = (
    PytestParser,
    UnittestParser,
    JestParser,
    VitestParser,
    MochaParser,
    GoParser,
    CargoParser,
    NextestParser,
    RspecParser,
    PhpunitParser,
    DotnetParser,
    JunitXmlParser,
    GradleParser,
    MavenParser,
)
HINTS = ("auto", *RUNNERS)
# Line starts that matter although they contain none of the prefilter's words.
_PREFIXES = ("##[", "====", "Ran ", "OK (", "ok  \t", "     Running ", "   Doc-tests", "Total tests", "panic: ")


def _make_parsers(ctx: Context, hint: str | None) -> list[BaseParser]:
    if hint in (None, "", "auto"):
        return [cls(ctx) for cls in PARSER_CLASSES]
    chosen = [cls(ctx) for cls in PARSER_CLASSES if cls.runner == hint]
    if not chosen:
        raise ValueError(f"unknown log format {hint!r}; expected one of: {', '.join(HINTS)}")
    return chosen


def _fallback_message(runner: str) -> str:
    return f"{runner} reported this test as failed; the log shows no assertion or error message for it"


def _to_model(d: Draft, check_name: str) -> TestFailure:
    confidence = d.confidence
    if confidence is None:
        if d.message and d.file_path and d.line_number is not None:
            confidence = "high"
        elif d.message:
            confidence = "medium"
        else:
            confidence = "low"
    return TestFailure(
        check_name=check_name,
        test_name=d.test_name,
        error_message=d.message or _fallback_message(d.runner),
        file_path=d.file_path,
        line_number=d.line_number,
        runner=d.runner,  # type: ignore[arg-type]
        confidence=confidence,  # type: ignore[arg-type]
        suite=d.suite,
    )


def _drop_nextest_echo(parsers: list[BaseParser], results: dict[str, list[Draft]]) -> None:
    """nextest replays libtest's own output inside its sections; keep the nextest view only."""
    nextest = next((p for p in parsers if p.runner == "nextest"), None)
    cargo = next((p for p in parsers if p.runner == "cargo"), None)
    if nextest is None or cargo is None or nextest.first_seen is None:
        return
    names = [d.test_name for d in results.get("nextest", [])]
    names += [key.split(" ", 1)[-1] for key in getattr(nextest, "ok", ())]  # flaky tests that passed later
    results["cargo"] = [
        d for d in results.get("cargo", [])
        if not any(n == d.test_name or n.endswith("::" + d.test_name) for n in names)
    ]
    cargo.passed = cargo.failed = None
    if not results["cargo"]:
        cargo.first_seen = None


def parse_log(lines: Iterable[str], *, check_name: str = "", hint: str | None = None) -> ParsedLog:
    """Parse a job log (raw Actions log or plain runner output) into failures or a non-test failure.

    ``hint`` forces one runner (``"pytest"``, ``"go"``, …; ``None``/``"auto"`` detects). Lines are
    consumed once; memory stays bounded whatever the size of the log.
    """
    ctx = Context()
    parsers = _make_parsers(ctx, hint)
    go = next((p for p in parsers if isinstance(p, GoParser)), None)
    maven = next((p for p in parsers if isinstance(p, MavenParser)), None)
    nontest = NonTestDetector(ctx)
    ring_append = ctx.ring.append
    capturing = ctx.capturing
    ts_match = _TS_RE.match
    ansi_sub = _ANSI_RE.sub
    gh = ""  # the "job<TAB>step<TAB>" prefix of `gh run view --log-failed` output, once seen
    n = 0
    for s in lines:
        n += 1
        if s[27:29] == "Z " and s[19:20] == "." and s[10:11] == "T" and s[4:5] == "-":
            s = s[29:]  # the usual "2026-11-30T10:00:00.1234567Z " prefix
        elif s[10:11] == "T" and s[4:5] == "-":
            m = ts_match(s)
            if m:
                s = s[m.end() :]
        elif s[:1] == _BOM:
            s = clean_line(s)
        elif "\t" in s:
            s, gh = strip_gh_prefix(s, gh)
        if "\x1b" in s:
            s = ansi_sub("", s)
        if "^" in s and "^[[" in s:
            s = _CARET_ANSI_RE.sub("", s)
        s = s.rstrip("\r\n")
        if "\r" in s:
            s = clean_line(s)
        ring_append(s)
        if s[:2] == '{"' and go is not None and '"Action"' in s:
            ctx.lineno = n
            for text in go.feed_json(s):
                nontest.feed(text)
            continue
        # The prefilter: every line a parser or the non-test detector starts from contains one of these.
        if (
            "FAIL" in s
            or "rror" in s
            or "fail" in s
            or "Fail" in s
            or "ERR" in s
            or "pass" in s
            or s.startswith(_PREFIXES)
            or "<test" in s
            or "illed" in s
            or "timed out" in s
            or (not s.isascii() and ("●" in s or "✕" in s or "×" in s or "✖" in s))
        ):
            ctx.lineno = n
            if maven is not None and s[:7] == "[INFO] ":  # Maven progress: only Maven cares
                maven.feed(s)
                for p in capturing[:]:
                    if p is not maven:
                        p.feed(s)
                continue
            for p in parsers:
                p.feed(s)
            nontest.feed(s)
        elif capturing:
            ctx.lineno = n
            for p in capturing[:]:
                p.feed(s)

    ctx.lineno = n
    results: dict[str, list[Draft]] = {p.runner: p.finish() for p in parsers}
    for pkg, pkg_lines in go.pkg_failures if go is not None else ():
        nontest.hint(f"go test: package {pkg} failed outside any test: {pkg_lines[0]}", pkg_lines)
    _drop_nextest_echo(parsers, results)
    failures = [_to_model(d, check_name) for p in parsers for d in results[p.runner] if d.test_name.strip()]
    detected = sorted((p for p in parsers if p.first_seen is not None), key=lambda p: p.first_seen or 0)
    counted = [p for p in detected if p.passed is not None or p.failed is not None]
    return ParsedLog(
        failures=failures,
        non_test_failure=nontest.finish(bool(failures)),
        runners_detected=[p.runner for p in detected],
        passed_count=sum(p.passed or 0 for p in counted) if counted else None,
        failed_count=sum(p.failed or 0 for p in counted) if counted else None,
        exit_code=nontest.exit_code,
        truncated=any(p.overflow for p in parsers),
    )
