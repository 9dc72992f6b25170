"""ExUnit (``mix test``): numbered failure blocks and the ``N tests, M failures`` summary.

A block is ``  1) test describe name (MyApp.ModuleTest)``, then the test's own ``test/x_test.exs:19``, the
message (``Assertion with == failed`` / ``** (RuntimeError) …`` and its ``code:``/``left:``/``right:``
lines), then ``stacktrace:`` and its frames. The id is the runner's own, as printed before the module:
``test describe name`` (``doctest …``, ``property …``); the module is the suite. A ``setup_all`` failure
(``1) MyApp.ModuleTest: failure on setup_all callback, all tests have been invalidated``) is reported
under the module's name, since the module's tests never ran.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, dedent, rel_path, split_location, trim_message

_HEAD_RE = re.compile(r"(\d+)\) ((?:test|doctest|property) \S.*)$")
_SETUP_RE = re.compile(r"(\d+)\) ([A-Z][\w.]*): (failure on setup_all callback.*)$")
_COUNTS_RE = re.compile(r"(?<!\d)(\d+) (doctests?|tests?|propert(?:y|ies)|failures?|excluded|skipped|invalid)\b")
_MODULE_RE = re.compile(r"[A-Z][\w.]*")


class ExUnitParser(BaseParser):
    runner = "exunit"
    first_chars = "0"
    words = (") test ", ") doctest ", ") property ", "setup_all callback")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.head: tuple[str, str | None] | None = None  # name, module
        self.first: str | None = None  # the message a setup_all header carries
        self.loc: tuple[str, int] | None = None
        self.body: list[str] = []
        self.in_stack = False

    def feed(self, line: str) -> None:
        s = line.strip()
        if s[:1].isdigit():
            m = _HEAD_RE.match(s)
            if m is not None:
                name, _, module = m.group(2).rpartition(" (")
                if name and module.endswith(")") and _MODULE_RE.fullmatch(module[:-1]):
                    self._start(name, module[:-1])
                    return
            m2 = _SETUP_RE.match(s)
            if m2 is not None:
                self._start(m2.group(2), m2.group(2), first=m2.group(3))
                return
            if " tests, " in s or " test, " in s or s.endswith((" tests", " test")) or "failure" in s:
                counts = _counts(s)
                if counts is not None:
                    self._close()
                    total, failed = counts
                    self.add_counts(passed=max(0, total - failed), failed=failed)
                    return
        if self.head is None:
            return
        if s.startswith("Finished in ") or s.startswith("Randomized with seed"):
            self._close()
            return
        if self.loc is None and not self.body and self.first is None:
            if not s:
                return
            loc = split_location(s)
            if loc is not None and " " not in loc[0]:
                self.loc = (rel_path(loc[0]), loc[1])
                return
        if s == "stacktrace:":
            self.in_stack = True
        if not self.in_stack and len(self.body) < MAX_BLOCK_LINES:
            self.body.append(line)

    def _start(self, name: str, module: str | None, first: str | None = None) -> None:
        self._close()
        self.detect()
        self.head = (name, module)
        self.first, self.body = first, []
        self.capture()

    def _close(self) -> None:
        if self.head is None:
            return
        (name, module), loc, body = self.head, self.loc, dedent(self.body)
        if self.first:
            body = [self.first, *body]
        self.head, self.loc, self.body, self.in_stack, self.first = None, None, [], False, None
        self.release()
        self.add(f"{module}::{name}", name, message=trim_message(body) or None,
                 file_path=loc[0] if loc else None, line=loc[1] if loc else None, suite=module)

    def finish(self) -> list[Draft]:
        self._close()
        return super().finish()


def _counts(s: str) -> tuple[int, int] | None:
    """(tests that ran, failures) of ``1 doctest, 11 tests, 1 failure, 2 excluded``; None for other lines."""
    found = _COUNTS_RE.findall(s)
    words = {w.rstrip("s") if not w.startswith("propert") else "property": int(n) for n, w in found}
    if "failure" not in words or not ({"test", "doctest", "property"} & set(words)):
        return None
    total = words.get("test", 0) + words.get("doctest", 0) + words.get("property", 0)
    ran = total - words.get("excluded", 0) - words.get("skipped", 0) - words.get("invalid", 0)
    return max(ran, words["failure"]), words["failure"]
