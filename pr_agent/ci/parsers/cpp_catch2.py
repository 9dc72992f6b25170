"""Catch2 (v2 and v3 console reporter).

A failed assertion is printed under its test case's header::

    -------------------------------------------------------------------------------
    Vector can be sized and resized
      resizing bigger changes size and capacity
    -------------------------------------------------------------------------------
    tests/vector_test.cpp:12
    ...............................................................................

    tests/vector_test.cpp:21: FAILED:
      REQUIRE( v.size() == 10 )
    with expansion:
      5 == 10

and the run ends with ``test cases: 3 | 2 passed | 1 failed`` (or ``All tests passed (…)``). The id is the
test case's name as printed (the first header line, with the lines it wraps onto; the indented lines
under it are its sections); the file and
line are the test case's own (the header's location), the assertion's line is in the message.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, rel_path, split_location, trim_message

_TOTALS_RE = re.compile(r"test cases: *(\d+) \|(?: *(\d+) passed *\|?)?(?: *(\d+) failed)?")
_ALL_PASSED_RE = re.compile(r"All tests passed \((?:\d+ skipped tests?, )?\d+ assertions? in (\d+) test cases?\)")
_FAILED_SUFFIXES = (": FAILED:", ": FAILED")


def _location(text: str) -> tuple[str, int] | None:
    """``path:12`` or MSVC's ``path(12)`` → (path, 12)."""
    t = text.strip()
    if t.endswith(")") and "(" in t:
        head, _, num = t[:-1].rpartition("(")
        if num.isdigit() and head and " " not in head.strip():
            return rel_path(head), int(num)
    loc = split_location(t)
    if loc is None or loc[2] is not None or " " in loc[0]:
        return None
    return rel_path(loc[0]), loc[1]


def _rule(s: str, ch: str) -> bool:
    return len(s) >= 20 and s.count(ch) == len(s)


class Catch2Parser(BaseParser):
    runner = "catch2"
    words = ("FAILED:", "test cases:", "All tests passed (")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.current: tuple[str, str | None, int | None] | None = None  # name, file, line
        self.body: list[str] = []

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.current is not None:
            if s.startswith(("-----", "=====", "test cases:")) or s.endswith(_FAILED_SUFFIXES) \
                    or len(self.body) >= MAX_BLOCK_LINES:
                self._close()
            else:
                self.body.append(line)
                return
        if s.startswith("test cases:"):
            m = _TOTALS_RE.match(s)
            if m is not None:
                self.add_counts(passed=int(m.group(2) or 0), failed=int(m.group(3) or 0))
            return
        if s.startswith("All tests passed ("):
            m2 = _ALL_PASSED_RE.match(s)
            if m2 is not None:
                self.add_counts(passed=int(m2.group(1)), failed=0)
            return
        for suffix in _FAILED_SUFFIXES:
            if s.endswith(suffix):
                where = _location(s[: -len(suffix)])
                if where is None:
                    return
                head = self._header()
                if head is None:
                    return
                self.current = head
                self.body = [f"{where[0]}:{where[1]}: FAILED:"]
                self.capture()
                return

    def _header(self) -> tuple[str, str | None, int | None] | None:
        """The test case of the assertion on the current line, read back from the ring: the ``....`` rule,
        the location above it, and the names between the two ``----`` rules above that."""
        ring = list(self.ctx.ring)[:-1]
        i = len(ring) - 1
        while i >= 0 and not _rule(ring[i].strip(), "."):
            if _rule(ring[i].strip(), "-") or _rule(ring[i].strip(), "="):
                return None
            i -= 1
        if i < 2:
            return None
        where = _location(ring[i - 1])
        j = i - 2 if where is not None else i - 1
        if j < 0 or not _rule(ring[j].strip(), "-"):
            return None
        k = j - 1
        while k >= 0 and not _rule(ring[k].strip(), "-"):
            k -= 1
        names = [r.rstrip() for r in ring[k + 1 : j] if r.strip()] if k >= 0 else []
        if not names:
            return None
        # A long name is wrapped over lines at its own indentation; the sections under it are indented.
        indent = len(names[0]) - len(names[0].lstrip())
        name = [names[0].strip()]
        for extra in names[1:]:
            if len(extra) - len(extra.lstrip()) != indent:
                break
            name.append(extra.strip())
        return " ".join(name), where[0] if where else None, where[1] if where else None

    def _close(self) -> None:
        if self.current is None:
            return
        (name, path, ln), body = self.current, self.body
        self.current, self.body = None, []
        self.release()
        self.add(name, name, message=trim_message(body) or None, file_path=path, line=ln)

    def finish(self) -> list[Draft]:
        self._close()
        return super().finish()
