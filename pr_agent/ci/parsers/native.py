"""Native test runners: GoogleTest/gMock (C++) and XCTest (xcodebuild / ``swift test``).

GoogleTest prints ``path:42: Failure`` (``path(42): error:`` with MSVC) and the assertion under it, then
``[  FAILED  ] Suite.Test (3 ms)`` when the test ends, and the list of failed tests in its summary. XCTest
prints ``path.swift:12: error: -[Module.Class testName] : message`` (macOS) or ``… error: Class.testName :
message`` (Linux), then ``Test Case '-[Module.Class testName]' failed (0.002 seconds).``; the id is the
runner's own, verbatim, as it is between the quotes. An XCTest assertion line is never a compile error:
the test failed.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, MAX_FAILURES, BaseParser, Draft, rel_path, trim_message

_GT_LOC_RE = re.compile(r"((?:[A-Za-z]:[\\/])?[^:(\s][^:(]*)(?::(\d+): Failure|\((\d+)\): error: (.*))$")
_GT_FAILED_RE = re.compile(r"\[  FAILED  \] (\S+?)(?:, where \S.*)? \(\d+ ms\)$")
_GT_LISTED_RE = re.compile(r"\[  FAILED  \] (\S+?)(?:, where \S.*)?$")
_GT_TOTAL_RE = re.compile(r"\[  FAILED  \] (\d+) tests?, listed below:$")
_GT_PASSED_RE = re.compile(r"\[  PASSED  \] (\d+) tests?\.$")
_GT_END = ("[       OK ]", "[  FAILED  ]", "[ RUN      ]", "[  SKIPPED ]", "[----------]", "[==========]")

_XC_CASE_RE = re.compile(r"Test Case '(-\[\S+ \S+\]|\S+)' failed \(")
_XC_ERROR_RE = re.compile(r"(\S[^:]*\.(?:swift|m|mm)):(\d+): error: (-\[\S+ \S+\]|\S+) : (.*)$")
_XC_EXECUTED_RE = re.compile(r"Executed (\d+) tests?, with (\d+) failures?")


class GoogleTestParser(BaseParser):
    runner = "googletest"
    first_chars = "["
    words = (": Failure", "): error: ")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.loc: tuple[str, int] | None = None
        self.body: list[str] = []
        self.pending: tuple[str | None, str | None, int | None] | None = None  # message, file, line

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.loc is not None:  # inside an assertion block: it ends at the next bracketed status
            if not s.startswith(_GT_END) and not _GT_LOC_RE.match(s) and len(self.body) < MAX_BLOCK_LINES:
                self.body.append(line)
                return
            self._close_block()
        if s.startswith("[  PASSED  ] "):
            m0 = _GT_PASSED_RE.match(s)
            if m0:
                self.add_counts(passed=int(m0.group(1)))
            return
        if s.startswith("[  FAILED  ]"):
            m = _GT_FAILED_RE.match(s)
            if m:
                # the ring is read once per new test at most (a bounded number of times per log)
                new = m.group(1) not in self.drafts and len(self.drafts) < MAX_FAILURES
                msg, path, ln = self.pending or (self._unlocated_message() if new else None, None, None)
                self.pending = None
                self.add(m.group(1), m.group(1), message=msg, file_path=path, line=ln)
                return
            m = _GT_TOTAL_RE.match(s)
            if m:
                self.add_counts(failed=int(m.group(1)))
                return
            m = _GT_LISTED_RE.match(s)
            if m and (m.group(1)[:1].isalpha() or m.group(1)[:1] == "_"):
                self.add(m.group(1), m.group(1))
            return
        m2 = _GT_LOC_RE.match(s)
        if m2:
            path, ln = m2.group(1), int(m2.group(2) or m2.group(3))
            if self.pending is not None:  # a second failed assertion in the same test: keep the first
                return
            self.loc = (rel_path(path), ln)
            self.body = [m2.group(4)] if m2.group(4) else []
            self.capture()

    def _unlocated_message(self) -> str | None:
        """A failure printed without a ``path:N: Failure`` line (``unknown file: Failure``, a gMock
        expectation, a quote that starts at the message): the lines the test printed just before its
        ``[  FAILED  ]`` line, back to the previous bracketed status line."""
        before = list(self.ctx.ring)[-MAX_BLOCK_LINES - 1 : -1]
        out: list[str] = []
        for t in reversed(before):
            if t.strip().startswith((*_GT_END, "##[")):
                break
            out.append(t)
        return trim_message(out[::-1]) or None

    def _close_block(self) -> None:
        if self.loc is not None and self.pending is None:
            self.pending = (trim_message(self.body) or None, *self.loc)
        self.loc, self.body = None, []
        self.release()

    def finish(self) -> list[Draft]:
        self._close_block()
        return super().finish()


class XCTestParser(BaseParser):
    runner = "xctest"
    first_chars = "TE"
    words = (": error: ", "Test Case '", "Executed ")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.executed: int | None = None

    def finish(self) -> list[Draft]:
        # "Executed N tests, with M failures" counts failed assertions, not tests: count the failed tests.
        if self.executed is not None:
            self.failed = len(self.drafts)
            self.passed = max(0, self.executed - self.failed)
        return super().finish()

    def feed(self, line: str) -> None:
        s = line.strip()
        if s.startswith("Test Case '"):
            m = _XC_CASE_RE.match(s)
            if m:
                self.add(m.group(1), m.group(1), suite=_xc_class(m.group(1)))
            return
        if s.startswith("Executed "):
            m2 = _XC_EXECUTED_RE.match(s)
            if m2:  # every suite prints its own line, the enclosing ones (the largest) last: keep the largest
                self.detect()
                self.executed = max(self.executed or 0, int(m2.group(1)))
            return
        if ": error: " in s:
            m3 = _XC_ERROR_RE.match(s)
            if m3:
                name = m3.group(3)
                self.add(name, name, message=trim_message(m3.group(4)) or None, file_path=rel_path(m3.group(1)),
                         line=int(m3.group(2)), suite=_xc_class(name))


def _xc_class(name: str) -> str | None:
    """``Module.Class`` of ``-[Module.Class test]`` / ``Class`` of ``Class.test``."""
    if name.startswith("-["):
        return name[2:].split(" ", 1)[0]
    return name.rsplit(".", 1)[0] if "." in name else None
