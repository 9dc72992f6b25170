"""RSpec (``Failures:`` / ``rspec ./spec/x_spec.rb:12 # desc``) and PHPUnit (``There was 1 failure:``)."""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, is_vendor, rel_path, split_location, trim_message

_RSPEC_ENTRY_RE = re.compile(r"\s+(\d+)\) (\S.*)$")
_RSPEC_RERUN_RE = re.compile(r"rspec '?(\./\S+?)(?::(\d+)|\[[\d:]+\])?'? # (.+)$")
_RSPEC_COUNT_RE = re.compile(r"(\d+) examples?, (\d+) failures?")
_PHPUNIT_HEAD_RE = re.compile(r"There (?:was|were) \d+ (failure|error)s?:$")
_PHPUNIT_ENTRY_RE = re.compile(r"(\d+)\) (\S.*)$")
_PHPUNIT_TOTALS_RE = re.compile(r"Tests: (\d+), Assertions: \d+(.*)$")
_PHPUNIT_OK_RE = re.compile(r"OK \((\d+) tests?,")
_PHPUNIT_KIND_RE = re.compile(r"(Errors|Failures|Skipped|Incomplete|Risky|Warnings|Deprecations|Notices): (\d+)")


class RspecParser(BaseParser):
    runner = "rspec"
    first_chars = "Fr0"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.mode: str | None = None  # "failures" | "examples"
        self.name: str | None = None
        self.lines: list[str] = []

    def feed(self, line: str) -> None:
        s = line.strip()
        if s == "Failures:" and line.startswith("Failures:"):
            self.detect()
            self.mode = "failures"
            self.capture()
            return
        if s == "Failed examples:":
            self._close()
            self.mode = "examples"
            self.capture()  # the "rspec ./spec/x_spec.rb:12 # …" lines carry no prefilter word
            return
        if self.mode == "examples" and not s.startswith("rspec "):
            if s:
                self.mode = None
                self.release()
            return
        if self.mode == "failures":
            if s.startswith(("Finished in ", "Pending:")) or (line and not line[0].isspace() and s):
                self._close()
                self.mode = None
                self.release()
            else:
                m = _RSPEC_ENTRY_RE.match(line)
                if m and not line.startswith("      "):
                    self._close()
                    self.name = m.group(2).strip()
                elif self.name is not None and len(self.lines) < MAX_BLOCK_LINES:
                    self.lines.append(line)
                return
        if s.startswith("rspec ") and " # " in s:
            m = _RSPEC_RERUN_RE.match(s)
            if m:
                path, line_no, name = rel_path(m.group(1)), m.group(2), m.group(3).strip()
                self.add(name, name, file_path=path, line=int(line_no) if line_no else None)
            return
        if "example" in s:
            m = _RSPEC_COUNT_RE.match(s)
            if m:
                self.add_total(int(m.group(1)), int(m.group(2)), s, "pending")
                self.mode = None
                self.release()

    def _close(self) -> None:
        name, lines = self.name, self.lines
        self.name, self.lines = None, []
        if name is None:
            return
        code: str | None = None
        msg: list[str] = []
        frames: list[tuple[str, int]] = []
        path = line_no = None
        for s in lines:
            t = s.strip()
            if t.startswith("Failure/Error:"):
                code = t
                continue
            if t.startswith("# "):
                loc = split_location(t[2:].split(":in ", 1)[0])
                if loc is not None and not is_vendor(loc[0]):
                    frames.append((rel_path(loc[0]), loc[1]))
                continue
            if not frames and not t.startswith("Shared Example Group:"):
                msg.append(s)
        spec = [f for f in frames if f[0].startswith("spec/") or f[0].endswith("_spec.rb")]
        if spec or frames:
            path, line_no = (spec or frames)[0]
        message = trim_message(msg) or code
        self.add(name, name, message=message, file_path=path, line=line_no)

    def finish(self) -> list[Draft]:
        self._close()
        self.release()
        return super().finish()


def _php_repo_path(path: str, name: str) -> str:
    """``/var/www/app/tests/Feature/FooTest.php`` → ``tests/Feature/FooTest.php`` when the test class's
    namespace (``Tests\\Feature\\FooTest``, PSR-4) spells the end of the absolute path."""
    if not path.startswith("/"):
        return path
    tail = "/" + name.split("::", 1)[0].replace("\\", "/") + ".php"
    k = path.lower().rfind(tail.lower())
    return path[k + 1 :] if k >= 0 and k + len(tail) == len(path) else path


class PhpunitParser(BaseParser):
    runner = "phpunit"
    first_chars = "TO"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.in_list = False
        self.name: str | None = None
        self.lines: list[str] = []

    def feed(self, line: str) -> None:
        s = line.strip()
        if s.startswith("There w"):
            m = _PHPUNIT_HEAD_RE.match(s)
            self._close()
            self.in_list = m is not None
            if m:
                self.detect()
                self.capture()
            else:
                self.release()
            return
        if s.startswith(("FAILURES!", "ERRORS!", "Tests: ", "OK (")):
            self._end()
            m2 = _PHPUNIT_TOTALS_RE.match(s)
            if m2:
                kinds = {k: int(v) for k, v in _PHPUNIT_KIND_RE.findall(m2.group(2))}
                failed = kinds.get("Errors", 0) + kinds.get("Failures", 0)
                skipped = kinds.get("Skipped", 0) + kinds.get("Incomplete", 0)
                self.add_counts(int(m2.group(1)) - failed - skipped, failed)
            m3 = _PHPUNIT_OK_RE.match(s)
            if m3:
                self.add_counts(int(m3.group(1)), 0)
            return
        if not self.in_list:
            return
        m = _PHPUNIT_ENTRY_RE.match(s)
        if m and line[:1].isdigit():
            self._close()
            name = m.group(2).strip()
            if " with data set " in name and name.endswith(")") and " (" in name:
                name = name[: name.rfind(" (")]
            self.name = name
            return
        if s == "--":
            self._close()
            return
        if self.name is not None:
            if len(self.lines) < MAX_BLOCK_LINES:
                self.lines.append(line.rstrip())
            else:
                self._end()

    def _close(self) -> None:
        name, lines = self.name, self.lines
        self.name, self.lines = None, []
        if name is None:
            return
        msg: list[str] = []
        frames: list[tuple[str, int]] = []
        for raw in lines:
            t = raw.strip()
            loc = split_location(t) if ".php:" in t and " " not in t else None
            if loc is not None:
                frames.append((rel_path(loc[0]), loc[1]))
            elif not frames:
                msg.append(raw)
        cls = name.split("::", 1)[0].rsplit("\\", 1)[-1]
        own = [f for f in frames if not is_vendor(f[0])] or frames
        pick = next((f for f in own if f[0].rsplit("/", 1)[-1] == f"{cls}.php"), own[0] if own else None)
        self.add(name, name, message=trim_message(msg) or None,
                 file_path=_php_repo_path(pick[0], name) if pick else None, line=pick[1] if pick else None)

    def _end(self) -> None:
        self._close()
        self.in_list = False
        self.release()

    def finish(self) -> list[Draft]:
        self._end()
        return super().finish()
