"""Dart and Flutter tests (``dart test`` / ``flutter test``, the compact and expanded reporters).

Progress lines carry the counts: ``00:02 +3 -1: test/widget_test.dart: Counter increments [E]`` marks a
failed test (the file prefix appears when several files run); the lines under it are its error
(``Expected: …`` / ``Actual: …`` and a ``test/x_test.dart 226:5  main.<fn>`` frame). Flutter prints the
error before, in a ``══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞══`` block, and under ``[E]`` only
``Test failed. See exception logs above.``: the block is read back then. The run ends with
``+16 -1: Some tests failed.`` (or ``All tests passed!``) and, in recent versions, a ``Failing tests:`` list.
The id is the test's name as printed (group and test descriptions); the file is the suite.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, rel_path, split_location, trim_message

_PROGRESS_RE = re.compile(r"\d+:\d+ \+(\d+)(?: ~\d+)?(?: -(\d+))?: (.*)$")
_DART_FRAME_RE = re.compile(r"([\w./\-]+_test\.dart) (\d+):\d+ ")
_SEE_ABOVE = "Test failed. See exception logs above."
_BLOCK_START = "EXCEPTION CAUGHT BY"


def _split(text: str) -> tuple[str | None, str]:
    """``path.dart: name`` → (path, name); a name alone → (None, name)."""
    head, sep, rest = text.partition(": ")
    if sep and head.endswith(".dart") and " " not in head:
        return rel_path(head), rest.strip()
    return None, text.strip()


class DartTestParser(BaseParser):
    runner = "dart"
    first_chars = "0"
    words = ("[E]", "Some tests failed", "All tests passed!", "Failing tests:")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.current: str | None = None  # key of the failure whose error lines follow
        self.body: list[str] = []
        self.listing = False

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.listing:
            if line.startswith("  ") and s:
                path, name = _split(s)
                if name and path:
                    seen = next((d for d in self.drafts.values() if d.test_name == name and d.suite in (None, path)),
                                None)
                    if seen is not None:  # the [E] line had no file prefix (one file ran): the list names it
                        seen.suite = path
                        seen.file_path = seen.file_path or path
                    else:
                        self.add(f"{path}::{name}", name, file_path=path, suite=path)
                    return
            self.listing = False
            self.release()
        m = _PROGRESS_RE.match(s) if s[:1].isdigit() else None
        if m is not None:
            self._close()
            rest = m.group(3)
            if rest.endswith(" [E]"):
                path, name = _split(rest[:-4])
                self.detect()
                key = f"{path}::{name}"
                self.add(key, name, file_path=path, suite=path)
                self.current, self.body = key, []
                self.capture()
            elif rest in ("Some tests failed.", "All tests passed!"):
                self.add_counts(passed=int(m.group(1)), failed=int(m.group(2) or 0))
            return
        if self.current is not None:
            if len(self.body) < MAX_BLOCK_LINES:
                self.body.append(line)
            return
        if s == "Failing tests:" and self.first_seen is not None:
            self.listing = True
            self.capture()

    def _close(self) -> None:
        key, body = self.current, self.body
        self.current, self.body = None, []
        d = self.end_block(key)
        if d is None:
            return
        lines = [t for t in body if t.strip() and not t.strip().startswith(("To run this test again:",))]
        msg: list[str] = []
        where: tuple[str, int] | None = None
        for t in lines:
            frame = _DART_FRAME_RE.match(t.strip())
            if frame is not None:
                where = where or (rel_path(frame.group(1)), int(frame.group(2)))
                continue
            if t.strip().startswith(("package:", "dart:")):
                continue
            msg.append(t)
        if any(t.strip() == _SEE_ABOVE for t in msg):
            found = self._flutter_block()
            if found is not None:
                msg, where = found[0], where or found[1]
        d.message = d.message or trim_message(msg) or None
        if where is not None and (d.file_path is None or d.file_path == where[0] or where[0].endswith(d.file_path)
                                  or d.file_path.endswith(where[0])):
            d.file_path, d.line_number = where

    def _flutter_block(self) -> tuple[list[str], tuple[str, int] | None] | None:
        """The last ``EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK`` block in the ring: what was thrown and the
        test's own frame."""
        ring = list(self.ctx.ring)
        start = next((i for i in range(len(ring) - 1, -1, -1) if _BLOCK_START in ring[i]), None)
        if start is None:
            return None
        msg: list[str] = []
        where: tuple[str, int] | None = None
        taking = True
        for t in ring[start + 1 :]:
            s = t.strip()
            if s.startswith("════"):
                break
            if s.startswith("When the exception was thrown"):
                taking = False
            if taking and s:
                msg.append(s)
            if where is None and s.startswith("#") and s.endswith(")") and "_test.dart:" in s:
                loc = split_location(s[s.rfind("(") + 1 : -1])  # "#3 main.<fn> (file:///…/a_test.dart:23:18)"
                if loc is not None and loc[0].endswith("_test.dart"):
                    where = (rel_path(loc[0]), loc[1])
        return msg, where

    def finish(self) -> list[Draft]:
        self._close()
        self.listing = False
        return super().finish()
