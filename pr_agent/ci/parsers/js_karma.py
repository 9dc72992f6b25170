"""Karma (progress and dots reporters, karma-jasmine / karma-mocha): ``<Browser> <version> (<OS>) <full name> FAILED``
then the indented error and stack, ``<Browser> (<OS>): Executed N of M (K FAILED)`` progress lines and the
``TOTAL: K FAILED, P SUCCESS`` line.

The id is the spec's full name as Karma prints it (the describe titles and the spec title, joined by spaces),
without the browser. The progress reporter prints each failure twice (live, then again at the end): one
failure per name. The location is the spec file's frame: ``at UserContext.<anonymous> (src/a.spec.ts:19:22)``
(Chrome), ``@src/appSpec.js:13:9`` (Firefox), the source-mapped side of ``built.js:1:2 <- src/a.js:3:4``.
A ``FAILED`` line counts only in a log with Karma's own ``Executed N of M`` line.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, is_vendor, rel_path, split_location, trim_message

# "Chrome Headless 98.0.4758.109 (Mac OS 10.15.7)", "Firefox 58.0.0 (Ubuntu 0.0.0)", "HeadlessChrome 0.0.0 (Linux)"
_BROWSER_RE = re.compile(r"[A-Za-z][\w.-]*(?: [A-Za-z][\w.-]*)* \d+(?:\.\d+)* \([^()]*\)")
_EXECUTED = ": Executed "


def _browser_prefix(s: str) -> str | None:
    """The browser part of a Karma line (up to the OS's closing parenthesis), or None."""
    ends = [i for i in (s.find(") "), s.find("):")) if i >= 0]
    if not ends:
        return None
    head = s[: min(ends) + 1]
    return head if _BROWSER_RE.fullmatch(head) else None


def _frame_location(line: str) -> tuple[str, int] | None:
    """``at fn (path:l:c)``, ``at path:l:c``, Firefox's ``fn@path:l:c``; for ``built:l:c <- src:l:c`` the source."""
    s = line.strip()
    if " <- " in s:
        s = s.rsplit(" <- ", 1)[1].rstrip(")")
    elif s.startswith("at "):
        s = s[s.rfind("(") + 1 : -1] if s.endswith(")") and "(" in s else s[3:]
    elif "@" in s and " " not in s:
        s = s[s.rfind("@") + 1 :]
    else:
        return None
    found = split_location(s)
    if found is None or found[2] is None:
        return None
    return found[0], found[1]


class KarmaParser(BaseParser):
    runner = "karma"
    words = (" FAILED", _EXECUTED, "TOTAL: ")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.evidence = False
        self.name: str | None = None
        self.block: list[str] = []
        self.executed: dict[str, tuple[int, int]] = {}  # browser -> (executed, failed), the last progress line
        self.total: tuple[int, int] | None = None

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.name is not None:
            if line[:1] in (" ", "\t") and s and len(self.block) < MAX_BLOCK_LINES:
                self.block.append(s)
                return
            self._close()
        if s.endswith(" FAILED"):
            browser = _browser_prefix(s)
            if browser is None or _EXECUTED in s:
                return
            name = s[len(browser) : -len(" FAILED")].strip()
            if name:
                self.name, self.block = name, []
                self.capture()
        elif _EXECUTED in s:
            browser = _browser_prefix(s)
            if browser is None:
                return
            self.evidence = True
            words = s[s.find(_EXECUTED) + len(_EXECUTED) :].split()
            if len(words) >= 3 and words[0].isdigit() and words[1] == "of":
                failed = int(words[3][1:]) if len(words) > 4 and words[3][1:].isdigit() and words[4] == "FAILED)" else 0
                self.executed[browser] = (int(words[0]), failed)
        elif s.startswith("TOTAL: "):
            words = s[len("TOTAL: ") :].replace(",", " ").split()
            counts = {words[i + 1]: int(words[i]) for i in range(len(words) - 1) if words[i].isdigit()}
            if counts:
                self.total = (counts.get("SUCCESS", 0), counts.get("FAILED", 0))

    def _close(self) -> None:
        name, block = self.name, self.block
        self.name, self.block = None, []
        self.release()
        if name is None:
            return
        message = trim_message([s for s in block if _frame_location(s) is None and s != "<Jasmine>"
                                and not s.startswith("at ")]) or None
        path = line = None
        for s in block:
            loc = _frame_location(s)
            if loc is not None and not is_vendor(loc[0]):
                path, line = rel_path(loc[0]), loc[1]
                break
        self.add(name, name, message=message, file_path=path, line=line)

    def finish(self) -> list[Draft]:
        self._close()
        if not self.evidence:  # a "... FAILED" line in output that is not Karma's
            self.first_seen = None
            return []
        if self.total is not None:
            self.add_counts(*self.total)
        elif self.executed:
            self.add_counts(sum(n - f for n, f in self.executed.values()), sum(f for _, f in self.executed.values()))
        return super().finish()
