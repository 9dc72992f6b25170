"""Rust: ``cargo test`` (libtest) and ``cargo nextest``."""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, is_vendor, rel_path, split_location, trim_message

_TEST_RE = re.compile(r"test (.+?) \.\.\. (FAILED|ok|ignored)")
_RESULT_RE = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed")
_RUNNING_RE = re.compile(r"Running (?:unittests )?(\S+)")
_PANICKED = " panicked at "
_NEXTEST_RE = re.compile(
    r"(?:TRY \d+ )?(FAIL|SIGSEGV|SIGABRT|SIGKILL|SIGBUS|TIMEOUT|ABORT|LEAK-FAIL)\s+\[\s*[\d.]+m?s\]\s+"
    r"(?:\([^)]*\)\s+)?(\S+)\s+(\S+)"
)
_NEXTEST_OK_RE = re.compile(r"(?:TRY \d+ PASS|FLAKY \d+/\d+)\s+\[\s*[\d.]+m?s\]\s+(?:\([^)]*\)\s+)?(\S+)\s+(\S+)")
_NEXTEST_SUMMARY_RE = re.compile(r"Summary \[\s*[\d.]+m?s\]\s+\d+ tests? run: (\d+) passed(?:.*?(\d+) failed)?")
_STOP_NOTES = ("note: run with `RUST_BACKTRACE", "stack backtrace:", "note: Some details are omitted")


def parse_panic(lines: list[str]) -> tuple[str | None, str | None, int | None]:
    """Message and location of the first panic in a captured test output (old and new formats)."""
    stripped = [s.strip() for s in lines]
    for i, s in enumerate(stripped):
        k = s.find(_PANICKED)
        if k < 0 or not s.startswith("thread "):
            continue
        rest = s[k + len(_PANICKED) :]
        if rest.startswith("'"):  # Rust < 1.73: panicked at 'message', src/lib.rs:10:5
            text = [rest[1:]]
            j = i
            while ", " not in text[-1] or split_location(text[-1].rsplit("', ", 1)[-1]) is None:
                j += 1
                if j >= len(stripped) or j - i > 40:
                    break
                text.append(stripped[j])
            joined = "\n".join(text)
            msg, _, loc_text = joined.rpartition("', ")
            loc = split_location(loc_text)
            return trim_message(msg or joined) or None, *(_loc(loc))
        loc = split_location(rest.rstrip(":"))
        msg_lines: list[str] = []
        if loc is None:  # "panicked at 'msg'" without location, or an unknown shape
            msg_lines.append(rest)
        for raw, t in zip(lines[i + 1 :], stripped[i + 1 :], strict=True):
            if not t or t.startswith(_STOP_NOTES) or (t.startswith("thread ") and _PANICKED in t):
                break
            msg_lines.append(raw)
            if len(msg_lines) >= 15:
                break
        return trim_message(msg_lines) or None, *(_loc(loc))
    for s in stripped:  # a test that returned Err(..)
        if s.startswith("Error: "):
            return s, None, None
    for s in stripped:  # compiletest (rustc/clippy UI tests) reports a diff, then panics far below
        if s.startswith("The actual ") and " differed from the expected " in s:
            return s, None, None
    return None, None, None


def _loc(loc: tuple[str, int, int | None] | None) -> tuple[str | None, int | None]:
    if loc is None or is_vendor(loc[0]):  # a panic inside a dependency names no file of the repo
        return None, None
    return rel_path(loc[0]), loc[1]


class CargoParser(BaseParser):
    runner = "cargo"
    first_chars = "tRDf"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.target: str | None = None
        self.in_failures = False
        self.section: str | None = None
        self.lines: list[str] = []

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.in_failures:
            if s.startswith("---- ") and s.endswith(" ----"):
                self._close()
                name = s[5:-5].strip()
                for suffix in (" stdout", " stderr"):
                    name = name.removesuffix(suffix)
                self.section = name
                return
            if s == "failures:":
                self._close()
                return
            if s.startswith("test result:"):
                self._close()
                self.in_failures = False
                self.release()
            elif self.section is not None:
                if len(self.lines) < MAX_BLOCK_LINES:
                    self.lines.append(line)
                    return
                self._close()
                return
            else:
                # the closing list of failed test names (some never had a "test x ... FAILED" line)
                listed = s and line.startswith("    ") and not line.startswith("     ")
                if listed and not any(d.test_name == s for d in self.drafts.values()):
                    self.add(f"{self.target}::{s}", s, suite=self.target, confidence="low")
                return
        c = s[:1]
        if c == "t":
            if s.startswith("test result:"):
                m = _RESULT_RE.match(s)
                if m:
                    self.add_counts(int(m.group(1)), int(m.group(2)))
                return
            if s.startswith("test ") and s.endswith("FAILED"):
                m = _TEST_RE.match(s)
                if m and m.group(2) == "FAILED":
                    name = m.group(1).strip()
                    self.add(f"{self.target}::{name}", name, suite=self.target)
        elif c == "R" and s.startswith("Running "):
            m = _RUNNING_RE.match(s)
            if m:
                self.target = rel_path(m.group(1))
        elif c == "D" and s.startswith("Doc-tests "):
            self.target = "doctests"
        elif c == "f" and s == "failures:":
            self.detect()
            self.in_failures = True
            self.capture()

    def _close(self) -> None:
        name, lines = self.section, self.lines
        self.section, self.lines = None, []
        if name is None:
            return
        msg, path, line_no = parse_panic(lines)
        self.add(f"{self.target}::{name}", name, message=msg, file_path=path, line=line_no, suite=self.target)

    def finish(self) -> list[Draft]:
        self._close()
        self.release()
        return super().finish()


class NextestParser(BaseParser):
    runner = "nextest"
    first_chars = "FSTAL-"
    busy_when = ("current",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.current: str | None = None
        self.lines: list[str] = []
        self.ok: set[str] = set()

    def feed(self, line: str) -> None:
        s = line.strip()
        c = s[:1]
        if c in "FSTAL" and "[" in s:
            m = _NEXTEST_RE.match(s)
            if m:
                self._close()
                binary, name = m.group(2), m.group(3)
                key = f"{binary} {name}"
                status = m.group(1)
                self.add(key, name, suite=binary, message=None if status == "FAIL" else f"nextest: {status}")
                self.ok.discard(key)
                self.current = key
                self.capture()
                return
        if self.first_seen is None:
            return
        if c in "TF" and ("PASS" in s or "FLAKY" in s):
            m2 = _NEXTEST_OK_RE.match(s)
            if m2:
                self._close()
                self.ok.add(f"{m2.group(1)} {m2.group(2)}")
                return
        if c == "S" and s.startswith("Summary ["):
            self._close()
            self.release()  # only the list of failures follows
            m3 = _NEXTEST_SUMMARY_RE.match(s)
            if m3:
                self.add_counts(int(m3.group(1)), int(m3.group(2) or 0))
            return
        if c == "-" and s.startswith(("--- STDOUT:", "--- STDERR:")) and s.endswith("---"):
            self._close()
            key = s[11:-3].strip()
            self.current = key if key in self.drafts else None
            return
        if s.startswith(("------------", "────", "Cancelling", "error: test run failed", "Starting ")) or (
            c == "P" and s.startswith("PASS [")
        ):
            self._close()
            return
        if self.current is not None:
            if len(self.lines) < MAX_BLOCK_LINES:
                self.lines.append(line)
            else:
                self._close()

    def _close(self) -> None:
        key, lines = self.current, self.lines
        self.current, self.lines = None, []
        if key is None or not lines:
            return
        msg, path, line_no = parse_panic(lines)
        d = self.drafts.get(key)
        if d is not None:
            if msg and (not d.message or d.message.startswith("nextest: ")):
                d.message = msg
            if path and not d.file_path:
                d.file_path, d.line_number = path, line_no

    def finish(self) -> list[Draft]:
        self._close()
        self.release()
        return [d for k, d in self.drafts.items() if k not in self.ok]
