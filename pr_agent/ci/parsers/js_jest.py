"""jest: ``FAIL path`` headers, ``● Suite › test`` failure blocks, verbose ``✕`` lines, ``Tests:`` totals."""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, is_vendor, js_frame, rel_path, trim_message

_CODE_FRAME_RE = re.compile(r"\s*(?:>\s*)?\d+ \|")
_COUNT_RE = re.compile(r"(?<!\d)(\d+) (failed|passed)\b")
_DURATION_RE = re.compile(r"\d+(?:\.\d+)? ?m?s")
_SUITE_FAILED = "Test suite failed to run"
_RETRIED = "LOGGING RETRY ERRORS"  # jest.retryTimes(n, {logErrorsBeforeRetry: true}): the errors of failed tries


def js_test_path(text: str) -> str | None:
    """The file of a ``FAIL``/``PASS`` header when it looks like a JS/TS test file path."""
    if "\t" in text:
        return None
    path = text.split(" (", 1)[0].strip().split(" ", 1)[0]
    if "." not in path.rsplit("/", 1)[-1]:
        return None
    return rel_path(path)


def pick_js_location(lines: list[str], test_file: str | None) -> tuple[str | None, int | None]:
    """The stack frame in the test file, else the first frame outside dependencies, else the code frame."""
    first: tuple[str, int] | None = None
    for s in lines:
        loc = js_frame(s)
        if loc is None:
            continue
        path = rel_path(loc[0])
        if is_vendor(loc[0]):
            continue
        if test_file and path == test_file:
            return path, loc[1]
        if first is None:
            first = (path, loc[1])
    if first is not None:
        return first
    if test_file:
        for s in lines:
            t = s.strip()
            if t.startswith(">") and "|" in t:
                num = t[1:].split("|", 1)[0].strip()
                if num.isdigit():
                    return test_file, int(num)
    return test_file, None


def message_until_code(lines: list[str]) -> list[str]:
    out: list[str] = []
    for s in lines:
        t = s.strip()
        if t.startswith("at ") and js_frame(t) is not None:
            break
        if _CODE_FRAME_RE.match(s):
            break
        out.append(s)
    return out


class JestParser(BaseParser):
    runner = "jest"
    first_chars = "●FPT✕L"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.file: str | None = None
        self.block: list[str] | None = None
        self.title = ""
        self.block_file: str | None = None
        self.fallback: dict[str, tuple[str, str | None]] = {}
        self.retried: dict[str, None] = {}  # full names (titles joined by spaces) of "LOGGING RETRY ERRORS"

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.block is not None:
            if s.startswith(("● ", "FAIL ", "PASS ", "Test Suites:", "Summary of all failing tests", _RETRIED)) or (
                len(self.block) >= MAX_BLOCK_LINES
            ):
                self._close()
            else:
                self.block.append(line)
                return
        c = s[:1]
        if c == "●":
            title = s[1:].strip()
            if not title or title.startswith("Console"):
                return
            self.block, self.title, self.block_file = [], title, self.file
            self.detect()
            self.capture()
        elif c in ("F", "P") and s.startswith(("FAIL ", "PASS ")):
            rest = s[5:]
            if " > " in rest or (rest.endswith(" ]") and " [ " in rest):
                return  # vitest prints "FAIL  file > test" and "FAIL  file [ file ]"
            path = js_test_path(rest.lstrip())  # jest's coloured badge leaves "FAIL  file" behind
            if path:
                self.file = path
                if c == "F":
                    self.detect()
        elif c == "L" and s.startswith(_RETRIED):
            name = s[len(_RETRIED) :].strip()
            if name and len(self.retried) < 2000:
                self.retried[name] = None
                self.detect()
        elif c == "T" and s.startswith("Tests:"):
            counts = {w: int(n) for n, w in _COUNT_RE.findall(s)}
            if counts:
                self.add_counts(counts.get("passed", 0), counts.get("failed", 0))
        elif c == "✕":
            name = s[1:].strip()
            if name.endswith(")") and " (" in name and _DURATION_RE.fullmatch(name[name.rfind(" (") + 2 : -1]):
                name = name[: name.rfind(" (")].rstrip()
            if name and len(self.fallback) < 500:
                self.fallback.setdefault(f"{self.file}::{name}", (name, self.file))

    def _close(self) -> None:
        block, title, file = self.block, self.title, self.block_file
        self.block = None
        self.release()
        if block is None:
            return
        message = trim_message(message_until_code(block)) or None
        path, line = pick_js_location(block, file)
        name = title
        if title == _SUITE_FAILED:
            name = file or title
        self.add(f"{file}::{name}", name, message=message, file_path=path, line=line, suite=file,
                 confidence="medium" if title == _SUITE_FAILED else None)

    def flaky_names(self) -> list[str]:
        """Tests whose failed tries jest logged (``LOGGING RETRY ERRORS  <full name>``, then `` RETRY 1 `` and
        the error) and that did not fail in the end: failed, then passed on a retry. Named as jest's header
        names them (the full name: titles joined by spaces)."""
        failed = {" ".join(p.strip() for p in d.test_name.split(" › ")) for d in self.drafts.values()}
        return [n for n in self.retried if n not in failed]

    def finish(self) -> list[Draft]:
        self._close()
        names = [d.test_name for d in self.drafts.values()]
        for key, (name, file) in self.fallback.items():
            if key in self.drafts or any(n == name or n.endswith(" › " + name) for n in names):
                continue
            self.add(key, name, file_path=file, suite=file, confidence="low")
        return list(self.drafts.values())
