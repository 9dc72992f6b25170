"""JUnit XML printed into a log (``cat report.xml``): ``<testcase>`` with ``<failure>``/``<error>``."""

from __future__ import annotations

import html
import re

from .base import BaseParser, Draft, rel_path, trim_message
from .jvm import exception_message, pick_frame

_ATTR_RE = re.compile(r'(?<![\w:.-])([\w:.-]+)="([^"]*)"')
_MAX_TEXT = 40


def _attrs(tag_text: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in _ATTR_RE.findall(tag_text[:4096])}


def _py_locations(text: str) -> list[tuple[str, int]]:
    """``path.py:12`` locations in a line, found without backtracking regexes."""
    out: list[tuple[str, int]] = []
    i = text.find(".py:")
    while i >= 0 and len(out) < 10:
        j = i + 4
        k = j
        while k < len(text) and text[k].isdigit():
            k += 1
        if k > j:
            start = max(text.rfind(c, 0, i) for c in " \t\"'(") + 1
            if start < i:
                out.append((rel_path(text[start : i + 3]), int(text[j:k])))
        i = text.find(".py:", j)
    return out


class JunitXmlParser(BaseParser):
    runner = "junit"
    words = ("<test",)
    busy_when = ("case", "text")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.case: dict[str, str] | None = None
        self.key: str | None = None
        self.text: list[str] | None = None
        self.close_tag = ""
        self.exc_type: str | None = None

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.text is None and self.case is None and "<test" not in s:
            return
        pos, n = 0, len(s)
        while pos < n:
            if self.text is not None:
                end = s.find(self.close_tag, pos)
                if len(self.text) < _MAX_TEXT:
                    self.text.append(s[pos:] if end < 0 else s[pos:end])
                else:
                    self.release()  # keep looking for the close tag, on prefiltered lines only
                if end < 0:
                    return
                self._close_text()
                pos = end + len(self.close_tag)
                continue
            i = s.find("<", pos)
            if i < 0:
                return
            j = s.find(">", i)
            tag = s[i : j + 1] if j >= 0 else s[i:]
            pos = i + len(tag)
            if tag.startswith("<testsuite ") or tag.startswith("<testsuite>"):
                self._suite(_attrs(tag))
            elif tag.startswith("<testcase"):
                self.detect()
                self.case = None if tag.endswith("/>") else _attrs(tag)
            elif tag.startswith("</testcase"):
                self.case = None
            elif self.case is not None and tag.startswith(("<failure", "<error")):
                kind = "failure" if tag.startswith("<failure") else "error"
                if tag[len(kind) + 1 : len(kind) + 2] not in (" ", ">", "/"):
                    continue
                self._failure(_attrs(tag))
                if tag.endswith("/>"):
                    self._fill_type()
                else:
                    self.close_tag = f"</{kind}>"
                    self.text = []
                    self.capture()

    def _suite(self, a: dict[str, str]) -> None:
        try:
            tests, fails = int(a.get("tests", 0)), int(a.get("failures", 0)) + int(a.get("errors", 0))
            skipped = int(a.get("skipped", a.get("disabled", 0)) or 0)
        except ValueError:
            return
        if tests:
            self.add_counts(tests - fails - skipped, fails)

    def _failure(self, a: dict[str, str]) -> None:
        case = self.case or {}
        cls, name = case.get("classname", ""), case.get("name", "").removesuffix("()")
        full = f"{cls}.{name}" if cls and name else (name or cls or "?")
        msg = a.get("message") or None
        line = case.get("line") or a.get("line")
        file = case.get("file") or a.get("file")
        self.key = full
        self.add(full, full, message=trim_message(msg) if msg else None,
                 file_path=rel_path(file) if file else None,
                 line=int(line) if line and line.isdigit() else None, suite=cls or None)
        self.exc_type = a.get("type") or None

    def _close_text(self) -> None:
        text, key = self.text or [], self.key
        self.text = None
        self.release()
        d = self.drafts.get(key) if key else None
        if d is None:
            return
        lines = [html.unescape(t.replace("<![CDATA[", "").replace("]]>", "")) for t in text]
        if not d.message:
            d.message = trim_message(exception_message(lines)[:8]) or None
        self._fill_type()
        if d.file_path is None:
            cls = (self.case or {}).get("classname", "")
            path, line = pick_frame(lines, cls, d.test_name.rsplit(".", 1)[-1]) if cls else (None, None)
            if path is None:
                locs = [loc for t in lines for loc in _py_locations(t)]
                tests = [loc for loc in locs if "test" in loc[0].rsplit("/", 1)[-1]]
                if tests or locs:
                    path, line = tests[-1] if tests else locs[0]
            if path:
                d.file_path, d.line_number = path, line

    def _fill_type(self) -> None:
        d = self.drafts.get(self.key) if self.key else None
        if d is not None and not d.message and self.exc_type:
            d.message = self.exc_type

    def finish(self) -> list[Draft]:
        if self.text is not None:
            self._close_text()
        self.release()
        return super().finish()
