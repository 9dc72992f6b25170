"""Minitest (``ruby -Itest``, ``rake test``, ``bin/rails test``).

A failure is ``  1) Failure:`` (or ``Error:``; Rails' reporter drops the number) and then
``ArticlesControllerTest#test_should_create_article [test/controllers/articles_controller_test.rb:16]:``
(``Klass#test:`` for an error, whose backtrace follows the exception), the message, and under Rails
``bin/rails test test/controllers/articles_controller_test.rb:12``: the test's own line, which is the
location reported (else the assertion's, in the test's file). The run ends with ``10 runs, 11 assertions,
1 failures, 0 errors, 0 skips``. The id is the runner's own ``Klass#test_name``.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, rel_path, split_location, trim_message

_HEAD_RE = re.compile(r"(?:\d+\) )?(Failure|Error):$")
# ``Klass#test…``; a spec's class is its ``describe`` text, whatever it holds (``minitest-rg#test_0002_fails``),
# and its methods are Minitest's ``test_…``
_NAME_RE = re.compile(r"[A-Z][\w:]*#\S|[^#\s][^#]*#test_\S")
_TOTALS_RE = re.compile(r"(\d+) (?:runs|tests), \d+ assertions, (\d+) failures, (\d+) errors, (\d+) skips")
_RERUN = "bin/rails test "


def _is_test_file(path: str) -> bool:
    """``x_test.rb`` (Rails, most gems) or ``test_x.rb`` (hoe, the Ruby stdlib)."""
    base = path.rsplit("/", 1)[-1]
    return base.endswith("_test.rb") or (base.startswith("test_") and base.endswith(".rb"))


class MinitestParser(BaseParser):
    runner = "minitest"
    first_chars = "0FEb"
    words = ("Failure:", "Error:", " failures, ")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.head: str | None = None  # "Failure" / "Error" while the name line is awaited
        self.current: str | None = None
        self.body: list[str] = []

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.head is not None:
            self.head = None
            where = None
            if s.endswith("]:") and " [" in s:  # "Klass#test name [path:line]:" (spec-style names have spaces)
                name, _, where = s[:-2].rpartition(" [")
            else:
                name = s[:-1] if s.endswith(":") else ""
            if not _NAME_RE.match(name):
                self.release()
                return
            loc = split_location(where) if where else None
            self.detect()
            self.add(name, name, file_path=rel_path(loc[0]) if loc else None, line=loc[1] if loc else None)
            self.current, self.body = name, []
            return
        if s.startswith(_RERUN) and (self.current is not None or self.drafts):
            self._rerun(s[len(_RERUN):])
            return
        m2 = _HEAD_RE.match(s) if s.endswith(":") and ("Failure" in s or "Error" in s) else None
        if m2 is not None:
            self._close()
            self.head = m2.group(1)
            self.capture()
            return
        if " failures, " in s and s[:1].isdigit():
            m3 = _TOTALS_RE.match(s)
            if m3 is not None:
                self._close()
                runs, failures, errors, skips = (int(g) for g in m3.groups())
                self.add_counts(passed=max(0, runs - failures - errors - skips), failed=failures + errors)
                return
        if self.current is not None:
            if s.startswith("Finished in ") or len(self.body) >= MAX_BLOCK_LINES:
                self._close()
                return
            self.body.append(line)

    def _rerun(self, where: str) -> None:
        """``bin/rails test test/x_test.rb:12``: the location of the test just reported."""
        key = self.current or next(reversed(self.drafts))
        self._close()
        loc = split_location(where.strip())
        d = self.drafts.get(key)
        if d is not None and loc is not None:
            d.file_path, d.line_number = rel_path(loc[0]), loc[1]

    def _close(self) -> None:
        key, body = self.current, self.body
        self.current, self.body = None, []
        d = self.end_block(key)
        if d is None:
            return
        msg: list[str] = []
        frame: tuple[str, int] | None = None
        for t in body:
            if not t.strip() and msg:
                break
            loc = split_location(t.strip().split(":in ", 1)[0]) if ":in " in t and t[:1].isspace() else None
            if loc is not None:  # a backtrace frame: the message is above it; the test's own frame locates it
                if frame is None and _is_test_file(loc[0]):
                    frame = (rel_path(loc[0]), loc[1])
                continue
            if t.strip():
                msg.append(t)
        d.message = d.message or trim_message(msg) or None
        if d.file_path is None and frame is not None:
            d.file_path, d.line_number = frame

    def finish(self) -> list[Draft]:
        self._close()
        self.head = None
        return super().finish()
