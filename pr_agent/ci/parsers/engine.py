"""``parse_log``: one streaming pass over a log, every runner parser and the non-test detector at once.

Each line is cleaned (Actions timestamp and ANSI codes removed, ``scan.clean``) and kept in a small ring.
Only lines containing a token some parser cares about (``FAIL``, ``rror``, ``●``, …: ``scan.prefiltered``)
go to the parsers, and of those only to the parsers whose triggers the line has (``BaseParser.first_chars``,
``words``, ``busy_when``); parsers inside a failure block ask to *capture* and then get every line until
the block ends. No regex runs on each line.

Most lines of a long log pass no prefilter, so a raw block is not cleaned line by line: ``scan.scan_block``
finds the lines that may pass it, and only those, the captured lines and, when a parser reads the ring, its
lines are cleaned. The result is the same as cleaning every line (``tests/unit/ci/test_scan.py``).
"""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Callable, Iterable
from functools import cache
from types import CodeType, FunctionType

from ...errors import PrAgentError
from ..logs import decode_pieces
from .base import MAX_MESSAGE_CHARS, RING_SIZE, BaseParser, Context, Draft
from .cpp_catch2 import Catch2Parser
from .cpp_ctest import CTestParser
from .dart_test import DartTestParser
from .dotnet import DotnetParser
from .exunit import ExUnitParser
from .go_test import GoParser
from .js_ava import AvaParser
from .js_bun import BunParser
from .js_deno import DenoParser
from .js_jest import JestParser
from .js_karma import KarmaParser
from .js_mocha import CypressParser, MochaParser
from .js_playwright import PlaywrightParser
from .js_vitest import VitestParser
from .junit_xml import JunitXmlParser
from .jvm import GradleParser, MavenParser
from .jvm_kotest import KotestParser
from .jvm_sbt import SbtParser
from .models import RUNNERS, ParsedLog, TestFailure
from .native import GoogleTestParser, XCTestParser
from .nontest import NonTestDetector
from .py_pytest import PytestParser
from .py_stestr import StestrParser
from .py_unittest import UnittestParser
from .ruby_minitest import MinitestParser
from .ruby_php import PhpunitParser, RspecParser
from .rust import CargoParser, NextestParser
from .scan import any_of, blocks, clean, compile_lambda, contains_any, prefiltered, raw_line, scan_block
from .swift_testing import SwiftTestingParser
from .tap import TapParser

PARSER_CLASSES: tuple[type[BaseParser], ...] = (
    PytestParser,
    UnittestParser,
    JestParser,
    VitestParser,
    MochaParser,
    CypressParser,
    GoParser,
    CargoParser,
    NextestParser,
    RspecParser,
    PhpunitParser,
    DotnetParser,
    JunitXmlParser,
    GradleParser,
    MavenParser,
    GoogleTestParser,
    XCTestParser,
    PlaywrightParser,
    ExUnitParser,
    Catch2Parser,
    TapParser,
    SwiftTestingParser,
    DartTestParser,
    MinitestParser,
    StestrParser,
    CTestParser,
    SbtParser,
    KotestParser,
    KarmaParser,
    AvaParser,
    BunParser,
    DenoParser,
)
HINTS = ("auto", *RUNNERS)
# Lines longer than this are cut to it before anything reads them: every pattern then costs a bounded
# amount per line, and a log made of one huge line parses as fast as any other.
MAX_LINE_CHARS = 4096


def _make_parsers(ctx: Context, hint: str | None) -> list[BaseParser]:
    if hint in (None, "", "auto"):
        return [cls(ctx) for cls in PARSER_CLASSES]
    chosen = [cls(ctx) for cls in PARSER_CLASSES if cls.runner == hint]
    if not chosen:
        raise ValueError(f"unknown log format {hint!r}; expected one of: {', '.join(HINTS)}")
    return chosen


@cache
def _more_code(words: tuple[str, ...], attrs: tuple[str, ...]) -> CodeType:
    """The code of ``lambda s: w1 in s or … or p0.a0 is not None or …`` (``p<i>``: globals bound per log)."""
    busy: list[ast.expr] = [
        ast.Compare(ast.Attribute(ast.Name(f"p{i}", ast.Load()), a, ast.Load()), [ast.IsNot()], [ast.Constant(None)])
        for i, a in enumerate(attrs)
    ]
    return compile_lambda(["s"], any_of([contains_any(words), *busy])).__code__  # type: ignore[no-any-return]


class _Feeder:
    """Hands clean lines to the parsers: the engine's per-line work, whichever way lines were cleaned."""

    def __init__(self, ctx: Context, parsers: list[BaseParser]) -> None:
        self.ctx = ctx
        self.go = next((p for p in parsers if isinstance(p, GoParser)), None)
        self.maven = next((p for p in parsers if isinstance(p, MavenParser)), None)
        self.nontest = NonTestDetector(ctx)
        by_char: dict[str, list[BaseParser]] = {}
        for p in parsers:
            for c in p.first_chars:
                by_char.setdefault(c, []).append(p)
        self.by_char = {c: tuple(ps) for c, ps in by_char.items()}
        self.words = tuple((w, p) for p in parsers for w in p.words)
        self.busy = tuple((p, a) for p in parsers for a in p.busy_when)
        # "Does a word or a busy parser add to ``by_char``?", compiled from syntax nodes: a chain of inline
        # tests is several times cheaper than a loop over the tables. Compiled once per set of parsers (it
        # costs ~10 ms, as much as parsing half a megabyte); each log binds its own parsers to it.
        code = _more_code(tuple(w for w, _ in self.words), tuple(a for _, a in self.busy))
        self.more: Callable[[str], bool] = FunctionType(code, {f"p{i}": p for i, (p, _) in enumerate(self.busy)})

    def line(self, s: str, n: int) -> None:
        """Line ``n`` (1-based), clean."""
        ctx = self.ctx
        capturing = ctx.capturing
        if s[:2] == '{"' and self.go is not None and '"Action"' in s:
            ctx.lineno = n
            for text in self.go.feed_json(s):
                self.nontest.feed(text)
            return
        if not prefiltered(s):
            if capturing:
                ctx.lineno = n
                for p in capturing[:]:
                    p.feed(s)
            return
        ctx.lineno = n
        if s[:7] == "[INFO] " and self.maven is not None:  # Maven progress: only Maven cares
            maven = self.maven
            maven.feed(s)
            for p in capturing[:]:
                if p is not maven:
                    p.feed(s)
            return
        if s[:3] == "##[":  # an Actions command (a step's group, an annotation): no parser starts from its
            todo: tuple[BaseParser, ...] = ()  # first character (TAP's "#" lines are "# pass N"/"# fail N")
        else:
            c = s.lstrip()[:1]
            todo = self.by_char.get("0" if c.isdigit() else c, ())
        if capturing or self.more(s):
            more = [p for w, p in self.words if w in s] + [p for p, a in self.busy if getattr(p, a) is not None]
            todo = tuple(dict.fromkeys((*capturing, *todo, *more)))
        for p in todo:
            p.feed(s)
        self.nontest.feed(s)

    def captured(self, s: str, n: int) -> None:
        """Line ``n``, clean, known to pass no prefilter."""
        self.ctx.lineno = n
        for p in self.ctx.capturing[:]:
            p.feed(s)


class _Reader:
    """Cleans what the feeder needs: every line of a list, only some lines of a scanned raw block."""

    def __init__(self, ctx: Context, feeder: _Feeder) -> None:
        self.ctx = ctx
        self.feeder = feeder
        self.n = 0  # lines read so far
        self.gh = ""  # the "job<TAB>step<TAB>" prefix of `gh run view --log-failed` output, once seen
        self.lines: list[str] = []  # the scanned block (latin-1 text of its raw lines)
        self.clean: dict[int, str] = {}  # its lines cleaned so far
        self.at = 0  # index in it of the line being fed
        self.last_ring: tuple[int, list[str]] = (-1, [])  # the ring built last: at which line, and its lines
        self.cut = 0  # lines cut to MAX_LINE_CHARS

    def read(self, block: bytes | list[str]) -> None:
        if isinstance(block, list):
            self.each(block)
            return
        scanned = None if self.gh else scan_block(block)
        if scanned is None:
            self.each(block.decode("utf-8", "replace").split("\n")[:-1])
            return
        lines, found = scanned
        if len(block) > MAX_LINE_CHARS and max(map(len, lines)) > MAX_LINE_CHARS:  # bytes: a bound in characters too
            self.cut += sum(len(s) > MAX_LINE_CHARS for s in lines)
            lines = [s[:MAX_LINE_CHARS] for s in lines]
        self.scanned(lines, found)

    def each(self, lines: list[str]) -> None:
        """Clean and feed every line."""
        ring_add = self.ctx.recent.append
        capturing = self.ctx.capturing
        line = self.feeder.line
        gh = self.gh
        n = self.n
        for s in lines:
            n += 1
            if len(s) > MAX_LINE_CHARS:
                s = s[:MAX_LINE_CHARS]
                self.cut += 1
            s, gh = clean(s, gh)
            ring_add(s)
            if capturing or s[:2] == '{"' or prefiltered(s):  # else the feeder has nothing to do
                line(s, n)
        self.n, self.gh = n, gh

    def scanned(self, lines: list[str], found: list[int]) -> None:
        """Feed the lines ``scan_block`` found, and every line while a parser captures."""
        ctx = self.ctx
        capturing = ctx.capturing
        line, captured, get = self.feeder.line, self.feeder.captured, self._clean
        self.lines, self.clean = lines, {}
        self.last_ring = (-1, list(ctx.recent))
        base = self.n
        ctx.ring_source = self._ring
        pos = 0
        done = self.clean
        for i in found:
            while capturing and pos < i:
                self.at = pos
                captured(get(pos), base + pos + 1)
                pos += 1
            self.at = i
            s = done.get(i)
            if s is None:  # ``_clean``, inline: this is the engine's hottest path
                s = lines[i]
                s = done[i] = clean(s if s.isascii() else raw_line(s), "")[0]
            line(s, base + i + 1)
            pos = i + 1
        while capturing and pos < len(lines):
            self.at = pos
            captured(get(pos), base + pos + 1)
            pos += 1
        ctx.recent.extend(get(i) for i in range(max(0, len(lines) - RING_SIZE), len(lines)))
        ctx.ring_source = None
        self.n = base + len(lines)
        self.lines, self.clean = [], {}

    def _clean(self, i: int) -> str:
        s = self.clean.get(i)
        if s is None:
            s = self.lines[i]
            if not s.isascii():
                s = raw_line(s)
            s = self.clean[i] = clean(s, "")[0]
        return s

    def _ring(self) -> list[str]:
        """The ring at line ``self.at`` of the scanned block (grown from the last one asked for)."""
        at, (last, ring) = self.at, self.last_ring
        if not last <= at < last + RING_SIZE:
            last, ring = max(-1, at - RING_SIZE), list(self.ctx.recent)
        ring = [*ring, *(self._clean(i) for i in range(last + 1, at + 1))][-RING_SIZE:]
        self.last_ring = (at, ring)
        return ring


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
    message = d.message or _fallback_message(d.runner)
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 1].rstrip() + "…"
    return TestFailure(
        check_name=check_name,
        test_name=d.test_name,
        error_message=message,
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


def _drop_mocha_echo(parsers: list[BaseParser], results: dict[str, list[Draft]]) -> None:
    """Cypress prints mocha's spec reporter: where Cypress's headers were seen, keep the Cypress view."""
    cypress = next((p for p in parsers if p.runner == "cypress"), None)
    mocha = next((p for p in parsers if p.runner == "mocha"), None)
    if cypress is None or mocha is None or cypress.first_seen is None:
        return
    results["mocha"] = []
    mocha.passed = mocha.failed = None
    mocha.first_seen = None


def _drop_ctest_wrapper(parsers: list[BaseParser], results: dict[str, list[Draft]]) -> None:
    """CTest runs test executables: where another runner's parser found the failing tests in their output
    (GoogleTest, Catch2, …), keep that view, not CTest's one line per executable."""
    ctest = next((p for p in parsers if p.runner == "ctest"), None)
    if ctest is not None and results.get("ctest") and any(results[p.runner] for p in parsers if p is not ctest):
        results["ctest"] = []
        ctest.passed = ctest.failed = None  # it counted executables, the runner inside counted tests


def _drop_kotest_echo(parsers: list[BaseParser], results: dict[str, list[Draft]]) -> None:
    """Kotest's tests are Gradle's test events too: keep the Kotest view of those."""
    kotest = next((p for p in parsers if isinstance(p, KotestParser)), None)
    if kotest is None or not results.get("kotest") or "gradle" not in results:
        return
    results["gradle"] = [d for d in results["gradle"] if d.test_name not in kotest.kotest]


def parse_log(
    lines: Iterable[str] | Iterable[bytes],
    *,
    check_name: str = "",
    hint: str | None = None,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
) -> ParsedLog:
    """Parse a job log (raw Actions log or plain runner output) into failures or a non-test failure.

    ``lines`` are the log's lines (``str``), or raw pieces of it (``bytes``, lines may span pieces: what
    ``offline.log_lines`` reads; UTF-8 with or without BOM, or UTF-16 LE/BE, ``logs.decode_pieces``).
    ``hint`` forces one runner (``"pytest"``, ``"go"``, …; ``None``/``"auto"`` detects). Lines are consumed
    once; memory stays bounded whatever the size of the log; lines longer than ``MAX_LINE_CHARS`` are cut
    (``ParsedLog.lines_cut``). Between blocks (at most 1 MiB or 4096 lines) the parse stops with a
    ``timeout`` error once ``timeout`` seconds have passed, or a ``cancelled`` one once ``cancel`` is set.
    """
    ctx = Context()
    parsers = _make_parsers(ctx, hint)
    feeder = _Feeder(ctx, parsers)
    reader = _Reader(ctx, feeder)
    deadline = time.monotonic() + timeout if timeout is not None else None
    for block in blocks(decode_pieces(lines)):
        if cancel is not None and cancel.is_set():
            raise PrAgentError("cancelled", "The call was cancelled while the log was being parsed.",
                               suggestion="Call again when you want the answer.", details={"lines_read": reader.n})
        if deadline is not None and time.monotonic() > deadline:
            raise PrAgentError("timeout", f"Parsing the log took longer than {timeout:g}s; stopped after "
                               f"{reader.n} lines.", suggestion="Set GH_PR_AGENT_TIMEOUT to wait longer.",
                               details={"timeout_s": timeout, "lines_read": reader.n})
        reader.read(block)

    ctx.lineno = reader.n
    nontest = feeder.nontest
    results: dict[str, list[Draft]] = {p.runner: p.finish() for p in parsers}
    go = feeder.go
    for pkg, pkg_lines in go.pkg_failures if go is not None else ():
        nontest.hint(f"go test: package {pkg} failed outside any test: {pkg_lines[0]}", pkg_lines)
    _drop_nextest_echo(parsers, results)
    _drop_mocha_echo(parsers, results)
    _drop_kotest_echo(parsers, results)
    _drop_ctest_wrapper(parsers, results)
    failures = [_to_model(d, check_name) for p in parsers for d in results[p.runner] if d.test_name.strip()]
    failed = {f.test_name for f in failures}
    flaky = [name for p in parsers if isinstance(p, PytestParser) for name in p.reruns if name not in failed]
    flaky += [key.split(" ", 1)[-1] for p in parsers if isinstance(p, NextestParser) for key in p.ok]
    flaky += [name for p in parsers if isinstance(p, PlaywrightParser) for name in p.flaky_names]
    flaky += [name for p in parsers if isinstance(p, CypressParser) for name in p.flaky_names]
    flaky += [name for p in parsers if isinstance(p, JestParser) for name in p.flaky_names()]
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
        flaky=flaky,
        lines_cut=reader.cut,
    )
