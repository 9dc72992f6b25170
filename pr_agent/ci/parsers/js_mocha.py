"""mocha (spec reporter): ``N passing`` / ``N failing``, then ``1) Suite\\n   test:`` entries."""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, trim_message
from .js_jest import message_until_code, pick_js_location

_PASSING_RE = re.compile(r"(\d+) passing\b")
_FAILING_RE = re.compile(r"(\d+) failing$")
_ENTRY_RE = re.compile(r"(\s*)(\d+)\) (\S.*)$")


class MochaParser(BaseParser):
    runner = "mocha"
    first_chars = "0"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.in_failures = False
        self.title: list[str] | None = None
        self.title_done = False
        self.body: list[str] = []
        self.expected = 0

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.in_failures:
            if s.startswith(("##[", "npm ERR!", "npm error", "error Command failed")) or (
                s.startswith("Error: Process completed")
            ):
                self._end()
                return
            m = _ENTRY_RE.match(line)
            if m and (int(m.group(2)) == self.expected or (self.title is None and int(m.group(2)) >= 1)):
                self._close()
                self.expected = int(m.group(2)) + 1
                self.title = [m.group(3).strip()]
                self.title_done = self.title[0].endswith(":")
                return
            if self.title is None:
                return
            if not self.title_done:
                if s:
                    self.title.append(s)
                    self.title_done = s.endswith(":")
                return
            if len(self.body) >= MAX_BLOCK_LINES:
                self._end()
                return
            self.body.append(line)
            return
        if "passing" in s:
            m = _PASSING_RE.match(s)
            if m:
                self.add_counts(passed=int(m.group(1)))
            return
        if s.endswith("failing"):
            m = _FAILING_RE.match(s)
            if m:
                self.add_counts(failed=int(m.group(1)))
                self.in_failures = True
                self.expected = 1
                self.capture()

    def _close(self) -> None:
        if self.title is None:
            return
        parts = [p.strip() for p in self.title]
        parts[-1] = parts[-1].removesuffix(":")
        name = " ".join(p for p in parts if p)
        body = self.body
        self.title, self.body, self.title_done = None, [], False
        message = trim_message([s.strip() for s in message_until_code(body)]) or None
        path, line = pick_js_location(body, None)
        self.add(name, name, message=message, file_path=path, line=line)

    def _end(self) -> None:
        self._close()
        self.in_failures = False
        self.release()

    def finish(self) -> list[Draft]:
        self._end()
        return super().finish()


_ATTEMPT = "(Attempt "
_MARKS = ("✓ ", "✔ ", "- ")


def _tree_title(text: str) -> str:
    """A spec-reporter test title without its `` (1520ms)`` duration."""
    if text.endswith("ms)") and " (" in text and text[text.rfind(" (") + 2 : -3].isdigit():
        return text[: text.rfind(" (")].rstrip()
    return text


class CypressParser(MochaParser):
    """Cypress (``cypress run``): mocha's spec reporter under each ``Running:  login.cy.js  (1 of 3)`` header,
    then the ``(Results)`` table. The ids are mocha's own (``Suite test``); the spec file is the suite (and
    the file, when no stack frame names one: ``Searched:`` gives its path for a single spec). A log
    without a ``Running:`` header is mocha's, not Cypress's.

    Test retries: a failed attempt prints ``(Attempt 1 of 3) title`` in the tree; a test whose last line is
    ``✓ title`` after such attempts failed and then passed in the same run: flaky (``flaky_names``), not a
    failure. The tree is read while a spec runs (the suites by indentation) to give it mocha's full id."""

    runner = "cypress"
    words = ("Running:", "(Results)", "Searched:")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.spec: str | None = None
        self.searched: str | None = None
        self.suites: list[tuple[int, str]] = []  # (indent, title) of the spec reporter's open suites
        self.attempted: dict[str, None] = {}  # full ids with a failed attempt, in this spec
        self.flaky_names: list[str] = []

    def feed(self, line: str) -> None:
        s = line.strip().strip("│").strip()
        if s.startswith("Running:  ") and s.endswith(")") and " of " in s:
            self._end()
            self._spec_done()
            self.spec = s[len("Running:"):].strip().rsplit(" (", 1)[0].strip()
            self.detect()
            self.capture()  # the tree's lines name no failure word: read them all while the spec runs
            return
        if s.startswith("Searched:"):
            self.searched = s[len("Searched:"):].strip()
            return
        if s == "(Results)" and self.spec is not None:
            self._end()
            self._spec_done()
            return
        if self.spec is not None:
            if not self.in_failures and s:
                self._tree(line, s)
            super().feed(line)
            if self.spec is not None and self not in self.ctx.capturing:
                self.capture()

    def _tree(self, line: str, s: str) -> None:
        """One line of the spec reporter's tree: a suite title, a test, a failed attempt."""
        words = s.split(" ", 2)
        if len(words) >= 2 and words[0].isdigit() and words[1] in ("passing", "failing", "pending"):
            self.suites = []
            return
        indent = len(line) - len(line.lstrip())
        while self.suites and self.suites[-1][0] >= indent:
            self.suites.pop()
        parents = [t for _, t in self.suites]
        if s.startswith(_ATTEMPT) and ") " in s and " of " in s[: s.find(") ")]:
            title = _tree_title(s[s.find(") ") + 2 :].strip())
            if len(self.attempted) < 2000:
                self.attempted[" ".join([*parents, title])] = None
        elif s.startswith(_MARKS):
            name = " ".join([*parents, _tree_title(s[2:].strip())])
            if s[0] in "✓✔" and name in self.attempted and name not in self.flaky_names:
                self.flaky_names.append(name)
        elif not (s[0].isdigit() and ") " in s[:6]) and len(self.suites) < 50:
            self.suites.append((indent, s))

    def _spec_done(self) -> None:
        self.spec, self.suites, self.attempted = None, [], {}
        self.release()

    def finish(self) -> list[Draft]:
        drafts = super().finish()
        failed = {d.test_name for d in drafts}
        self.flaky_names = [n for n in self.flaky_names if n not in failed]
        return drafts

    def add(self, key, name, **kw):  # type: ignore[no-untyped-def, override]
        spec = self.spec
        if spec and not kw.get("file_path"):
            searched = self.searched or ""
            kw["file_path"] = searched if searched.endswith("/" + spec) or searched == spec else spec
        kw.setdefault("suite", spec)
        return super().add(f"{spec}::{key}", name, **kw)
