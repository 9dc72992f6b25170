"""sbt test output: ScalaTest's console reporter and sbt's own summary of failed suites.

ScalaTest prints each suite's name, then one line per test, a failed one marked and followed by its
indented detail (the message ends with the failing assertion's location in the suite's file)::

    [info] DAGSchedulerSuite:
    [info] - [SPARK-3353] parent stage should have lower stage id *** FAILED *** (27 milliseconds)
    [info]   1 did not equal 2 (DAGSchedulerSuite.scala:242)
    [info]   org.scalatest.exceptions.TestFailedException:
    [info]   at org.scalatest.Assertions$class.newAssertionFailedException(Assertions.scala:500)
    [info] Tests: succeeded 10, failed 1, canceled 0, ignored 0, pending 0
    [info] *** 1 TEST FAILED ***

and a suite that could not run is ``*** ABORTED ***``. sbt then lists the failed suites, whatever the
framework (ScalaTest, specs2, MUnit, JUnit)::

    [error] Failed: Total 540, Failed 2, Errors 0, Passed 538
    [error] Failed tests:
    [error] 	com.twitter.scalding.CounterJobTest
    [error] (core / Test / test) sbt.TestsFailedException: Tests unsuccessful

The id is the test's text as ScalaTest prints it after ``- ``; in FlatSpec and WordSpec (a text that starts
with ``should``/``must``/``can``/``when``…) the subject printed on the line above is part of ScalaTest's
full name and is put before it (``A Cart should add an item``); other nested scopes are left out, since a
line the test printed looks the same (``testOnly -- -z`` matches the text within the full name). The suite is the
suite's name, made fully qualified by sbt's list when it names it. A suite in sbt's list with no failed
test of its own in the log (another framework, an aborted suite) is reported under the suite's name.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, trim_message
from .jvm import pick_frame

_FAILED = " *** FAILED ***"
_ABORTED = " *** ABORTED ***"
_LEVELS = ("[info] ", "[error] ", "[warn] ")
_LOC_RE = re.compile(r"\(([\w$.-]+\.(?:scala|java|kt)):(\d+)\)$")
_SUITE_RE = re.compile(r"[\w$.]+:")
_CLASS_RE = re.compile(r"[\w$.]+")
_SCALATEST_COUNTS_RE = re.compile(r"Tests: succeeded (\d+), failed (\d+)")
_SBT_COUNTS_RE = re.compile(r"(?:Failed|Passed): Total (\d+), Failed (\d+), Errors (\d+), Passed (\d+)")
_RING_CHARS = 512
_VERBS = ("should ", "must ", "can ", "when ", "which ", "that ")
_LOGGED_RE = re.compile(r"^[\d\[(]|\b(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE)\b")
_ABORTED_SUITE = "Exception encountered when attempting to run a suite with class name: "


def body(line: str) -> tuple[str, str | None]:
    """The text of an sbt line without its ``[info]``/``[error]`` level (and a bracketed timestamp before
    it), and the level."""
    t = line.rstrip()
    if t.startswith("[") and not t.startswith(_LEVELS) and "] [" in t[:40]:
        t = t[t.index("] [") + 2 :]
    for level in _LEVELS:
        if t.startswith(level):
            return t[len(level) :], level.strip()
    if t in ("[info]", "[error]", "[warn]"):
        return "", t
    return t, None


class SbtParser(BaseParser):
    runner = "sbt"
    words = (_FAILED, _ABORTED, "Tests: succeeded ", "Failed: Total ", "Failed tests:", "Error during tests:")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.detail: tuple[str, int, list[str]] | None = None  # key, indentation of its "- " line, lines
        self.listing = False  # inside sbt's "Failed tests:" / "Error during tests:" list
        self.listed: list[str] = []
        self.scalatest_counts: tuple[int, int] | None = None
        self.sbt_counts: tuple[int, int] | None = None

    def feed(self, line: str) -> None:
        text, level = body(line)
        s = text.strip()
        if self.detail is not None:
            key, indent, lines = self.detail
            if s and len(text) - len(text.lstrip()) > indent and len(lines) < MAX_BLOCK_LINES:
                lines.append(text)
                return
            self._close()
        if self.listing:
            if level == "[error]" and _CLASS_RE.fullmatch(s):
                self.listed.append(s)
                return
            self.listing = False
            self.release()
        if _FAILED in s:
            if s.startswith("- "):
                name = s[2 : s.index(_FAILED)].strip()
                if name:
                    indent = len(text) - len(text.lstrip())
                    suite, scopes = self._suite(indent)
                    if name.startswith(_VERBS):  # FlatSpec / WordSpec: the subject is the scope above
                        name = " ".join([*scopes, name])
                    key = f"{suite} {name}" if suite else name
                    self.add(key, name, suite=suite)
                    self.detail = (key, indent, [])
                    self.capture()
            return
        if _ABORTED in s:
            name = s[: s.index(_ABORTED)].strip()
            if name.startswith(_ABORTED_SUITE):
                name = name[len(_ABORTED_SUITE) :].strip()
            if name and _CLASS_RE.fullmatch(name):
                self.add(name, name, suite=name)
                self.detail = (name, len(text) - len(text.lstrip()), [])
                self.capture()
            return
        if s.startswith("Tests: succeeded "):
            m = _SCALATEST_COUNTS_RE.match(s)
            if m is not None:
                self.detect()
                p, f = self.scalatest_counts or (0, 0)
                self.scalatest_counts = (p + int(m.group(1)), f + int(m.group(2)))
            return
        if s.startswith(("Failed: Total ", "Passed: Total ")):
            m2 = _SBT_COUNTS_RE.match(s)
            if m2 is not None:
                self.detect()
                p, f = self.sbt_counts or (0, 0)
                self.sbt_counts = (p + int(m2.group(4)), f + int(m2.group(2)) + int(m2.group(3)))
            return
        if level == "[error]" and s in ("Failed tests:", "Error during tests:"):
            self.detect()
            self.listing = True
            self.capture()

    def _suite(self, indent: int) -> tuple[str | None, list[str]]:
        """The suite of the test on the current line (the last ``Name:`` line above it in the ring) and the
        scopes that enclose the test in nested styles (FlatSpec's ``A Stack``, FreeSpec's indented ``when
        empty``): the lines above it, up to the suite's, at its indentation or less that are no test."""
        ring = list(self.ctx.ring)
        scopes: list[str] = []
        level = indent
        below = body(ring[-1])[0] if ring else ""  # the line under the one being read
        for raw in reversed(ring[:-1]):
            text, _ = body(raw[:_RING_CHARS])  # headers and scopes are short: a bounded look at each line
            t = text.strip()
            here = len(text) - len(text.lstrip())
            if here == 0 and _SUITE_RE.fullmatch(t):
                return t[:-1], scopes
            # A scope is followed by its first test or an inner scope; a line the test printed is not a
            # scope (log lines: a level word, a timestamp or bracket first).
            if t and here <= level >= 0 and not t.startswith("- ") and below.lstrip().startswith("- ") | (
                    bool(scopes) and below.strip() == scopes[0]) and not _LOGGED_RE.search(t):
                scopes.insert(0, t)
                level = here - 1
            if t:
                below = text
        return None, []

    def _close(self) -> None:
        if self.detail is None:
            return
        key, _, lines = self.detail
        self.detail = None
        self.release()
        d = self.drafts.get(key)
        if d is None:
            return
        message: list[str] = []
        for text in lines:
            t = text.strip()
            if t.startswith("at ") or (message and t.endswith("Exception:") and " " not in t):
                break
            message.append(text)
        if message and d.file_path is None:
            m = _LOC_RE.search(message[0].rstrip())
            if m is not None:
                d.file_path, d.line_number = m.group(1), int(m.group(2))
        if d.file_path is None and d.suite:  # a thrown exception: the suite's own frame
            path, line = pick_frame(lines, d.suite, None)
            if path:
                d.file_path, d.line_number = path, line
        d.message = d.message or trim_message(message) or None

    def finish(self) -> list[Draft]:
        self._close()
        self.release()
        for fqcn in dict.fromkeys(self.listed):
            simple = fqcn.rsplit(".", 1)[-1]
            own = [d for d in self.drafts.values() if d.suite in (simple, fqcn)]
            for d in own:
                d.suite = fqcn
            if not own:
                self.add(fqcn, fqcn, suite=fqcn, message="sbt reported this suite as failed; the log shows no "
                         "failed test of it")
        counts = self.scalatest_counts or self.sbt_counts
        if counts is not None:
            self.passed, self.failed = counts
        return super().finish()
