"""Swift Testing (``swift test`` / ``xcodebuild test`` with the ``Testing`` library).

Its console lines start with a symbol: ``◇`` started, ``✔`` passed, ``✘`` failed (Xcode prints SF Symbols
instead: ``􀢄`` for ``✘``). A failure is ``✘ Test four() recorded an issue at AlphaTests.swift:9:5:
Expectation failed: 1 == 2`` (the issue may wrap onto the next lines, and the name may stand alone on the
line before ``recorded an issue``), then ``✘ Test four() failed after 0.001 seconds with 1 issue.``; the run
ends with ``✘ Test run with 4 tests in 1 suite failed after … with 1 issue.``. The id is the test's name as
printed: the function (``four()``) or its display name (``"Two things"``, without the quotes). The file and
line are where the issue was recorded, in the test's own file.
"""

from __future__ import annotations

import re

from .base import BaseParser, Draft, rel_path, split_location, trim_message

_FAIL_MARKS = ("✘ ", "􀢄 ")
_PASS_MARKS = ("✔ ", "􁁛 ")
_RUN_RE = re.compile(r"Test run with (\d+) tests?(?: in \d+ suites?)? (passed|failed) after")
_ISSUE = " recorded an issue"


def _name(text: str) -> str:
    t = text.strip()
    return t[1:-1] if len(t) >= 2 and t[0] == t[-1] == '"' else t


class SwiftTestingParser(BaseParser):
    runner = "swift-testing"
    first_chars = "✘􀢄✔􁁛"
    words = (_ISSUE,)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.pending: str | None = None  # a name whose "recorded an issue" is on the next line
        self.issue: tuple[str, list[str]] | None = None  # the draft key and the message lines still coming
        self.total: int | None = None

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.issue is not None:
            msg = self.issue[1]
            if s and not s.startswith((*_FAIL_MARKS, *_PASS_MARKS, "◇ ", "↳ ")) and len(msg) < 10 \
                    and line[:1].isspace():
                msg.append(s)
                return
            if s.startswith("↳ ") and len(msg) < 10:
                msg.append(s)
                return
            self._close_issue()
        if self.pending is not None:
            name, self.pending = self.pending, None
            self.release()
            if s.startswith(_ISSUE.strip()):
                self._issue(name, s[len(_ISSUE.strip()):])
                return
        mark = s[:2]
        if mark in _PASS_MARKS and s[2:].startswith("Test run with "):
            m = _RUN_RE.match(s[2:])
            if m:
                self.detect()
                self.total = int(m.group(1))
            return
        if mark not in _FAIL_MARKS:
            return
        rest = s[2:].strip()
        if rest.startswith("Test run with "):
            m = _RUN_RE.match(rest)
            if m:
                self.detect()
                self.total = int(m.group(1))
            return
        if not rest.startswith("Test "):
            return
        rest = rest[5:]
        if _ISSUE in rest:
            name, _, tail = rest.partition(_ISSUE)
            self._issue(_name(name), tail)
            return
        if " failed after " in rest:
            name = _name(rest.split(" failed after ", 1)[0])
            if name:
                self.add(name, name)
            return
        if rest and " started" not in rest and " passed" not in rest and " skipped" not in rest:
            self.pending = _name(rest)  # the issue line follows
            self.capture()

    def _issue(self, name: str, tail: str) -> None:
        """``tail``: `` at File.swift:9:5: message`` (or ``: message`` without a location)."""
        if not name:
            return
        tail = tail.strip()
        args = ""
        if tail.startswith("with "):  # a parameterized test: "with 1 argument value → 3 at File.swift:…"
            p = tail.find(".swift:")
            a = tail.rfind(" at ", 0, p) if p > 0 else -1
            if a > 0:
                args, tail = tail[:a].strip(), tail[a + 1 :]
        path = line_no = None
        message = tail[1:].strip() if tail.startswith(":") else ""
        if tail.startswith("at "):
            where, _, message = tail[3:].partition(": ")
            loc = split_location(where.rstrip(":"))
            if loc is not None:
                path, line_no = rel_path(loc[0]), loc[1]
            message = message.strip()
        d = self.add(name, name, file_path=path, line=line_no)
        if d is None:
            return
        self.issue = (name, [t for t in (message, f"({args})" if args else "") if t])
        self.capture()

    def _close_issue(self) -> None:
        if self.issue is None:
            return
        key, msg = self.issue
        self.issue = None
        d = self.end_block(key)
        if d is not None and not d.message and msg:
            d.message = trim_message(msg) or None

    def finish(self) -> list[Draft]:
        self._close_issue()
        if self.total is not None:
            self.failed = len(self.drafts)
            self.passed = max(0, self.total - self.failed)
        return super().finish()
