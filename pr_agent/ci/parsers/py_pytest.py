"""pytest: FAILURES/ERRORS sections (``--tb=auto/long/short/native``, and ``--tb=line``'s one line per
failure), short test summary (``-r``, ``-rA``), verbose and xdist result lines, rerunfailures' RERUN."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .base import BaseParser, Draft, is_vendor, rel_path, trim_message

_SPACE_RE = re.compile(r"\s")
_SECTION_RE = re.compile(r"_{3,} (.+?) _{3,}$")
_LOC_RE = re.compile(r"([^\s:]+\.py):(\d+):(?: (.*))?$")
_FRAME_RE = re.compile(r'\s*File "([^"]+)", line (\d+)')
_COUNT_RE = re.compile(r"(?<!\d)(\d+) (failed|passed|errors?)\b")
_DURATION_RE = re.compile(r"\bin [\d.]+s\b")
_MAX_SECTION_E = 40
_MAX_SECTION_LOCS = 30


@dataclass
class _Section:
    header: str
    e_lines: list[str] = field(default_factory=list)
    locs: list[tuple[str, int]] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    captured: bool = False


def _valid_nodeid(nodeid: str) -> bool:
    base = nodeid.split("[", 1)[0]
    if not base or _SPACE_RE.search(base):
        return False
    return "::" in base or base.endswith(".py")


def _split_summary(rest: str) -> tuple[str, str | None]:
    """``nodeid - message`` where the nodeid may contain `` - `` inside its ``[params]``."""
    sp = rest.find(" ")
    if "[" not in (rest if sp < 0 else rest[:sp]):  # no parameters before the first space
        if sp < 0:
            return rest, None
        return rest[:sp], (rest[sp + 3 :].strip() or None) if rest.startswith(" - ", sp) else None
    depth = 0
    i = 0
    n = min(len(rest), 1024)  # bounded: a node id with a longer parameter part is cut at 1024 characters
    while i < n:
        ch = rest[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == " " and depth == 0:
            if rest.startswith(" - ", i):
                return rest[:i], rest[i + 3 :].strip() or None
            return rest[:i], None
        i += 1
    return rest[:n], None


def _headline(nodeid: str) -> str:
    if "::" not in nodeid:
        return nodeid
    return nodeid.split("::", 1)[1].replace("::", ".")


def _nodeid_from(path: str, headline: str) -> str:
    base, sep, param = headline.partition("[")
    return f"{path}::{base.replace('.', '::')}{sep}{param}"


class PytestParser(BaseParser):
    runner = "pytest"
    first_chars = "=FE[0"
    words = ("::", "RERUN")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.mode: str | None = None
        self.section: _Section | None = None
        self.sections: list[_Section] = []
        self.summary: dict[str, tuple[str, str | None]] = {}
        self.verbose: dict[str, str] = {}
        self.reruns: dict[str, None] = {}  # pytest-rerunfailures: tests that failed and were run again
        self.tb_lines: list[tuple[str, int, str]] = []  # --tb=line

    # -- streaming -------------------------------------------------------------------------------
    def feed(self, line: str) -> None:
        s = line
        c = s[:1]
        if "RERUN" in s and len(self.reruns) < 2000:
            t = s.strip()
            if t.startswith("RERUN "):  # the -rR summary line
                node = t[6:].split(" ", 1)[0]
            elif " RERUN" in t:  # -v: "tests/x.py::t RERUN  [ 50%]" (xdist: "[gw0] [ 50%] RERUN tests/x.py::t")
                head, _, tail = t.partition(" RERUN")
                node = head.split(" ")[-1] if "::" in head.split(" ")[-1] else tail.split()[0] if tail.split() else ""
            else:
                node = ""
            if _valid_nodeid(node):
                self.detect()
                self.reruns[node] = None
            return
        if c == "=" and s.endswith("=") and "==" in s:
            self._banner(s.strip("= \t"))
            return
        if self.mode is not None and self.mode != "summary":
            if c == "_":
                m = _SECTION_RE.match(s)
                if m:
                    self._close_section()
                    self.section = _Section(m.group(1).strip())
                    return
            if self.section is not None:
                self._section_line(s)
                return
            if self.mode == "failures" and c != " " and ".py:" in s and len(self.tb_lines) < 2000:
                m = _LOC_RE.match(s)  # --tb=line: one "path:line: message" line per failure, no header
                if m is not None:
                    self.tb_lines.append((rel_path(m.group(1)), int(m.group(2)), (m.group(3) or "").strip()))
                    return
        if (c == "F" or c == "E") and s.startswith(("FAILED ", "ERROR ")):
            kind, _, rest = s.partition(" ")
            nodeid, msg = _split_summary(rest.strip())
            if _valid_nodeid(nodeid):
                self.detect()
                old = self.summary.get(nodeid)
                if old is None or (msg and not old[1]):
                    self.summary[nodeid] = (kind, msg)
            return
        if c == "[" and s.startswith("[gw"):
            for word in (" FAILED ", " ERROR "):
                i = s.find(word)
                if i >= 0:
                    nodeid = s[i + len(word) :].strip()
                    if _valid_nodeid(nodeid):
                        self.detect()
                        self.verbose.setdefault(nodeid, word.strip())
                    return
            return
        if c.isdigit() and _DURATION_RE.search(s) and _COUNT_RE.match(s):  # -q: "1 failed, 3 passed in 0.2s"
            self._banner(s)
            return
        if "::" in s:
            for word in (" FAILED", " ERROR"):
                i = s.rfind(word)
                if i > 0 and (i + len(word) == len(s) or s[i + len(word)] == " "):
                    nodeid = s[:i].strip()
                    if _valid_nodeid(nodeid):
                        self.detect()
                        self.verbose.setdefault(nodeid, word.strip())
                    return

    def _banner(self, title: str) -> None:
        if not title:
            return
        self._close_section()
        if title in ("FAILURES", "ERRORS"):
            self.detect()
            self.mode = title.lower()
            self.capture()
            return
        self.mode = "summary" if title == "short test summary info" else None
        self.release()
        if "test session starts" in title:
            self.detect()
        elif _DURATION_RE.search(title):
            passed = failed = 0
            found = False
            for num, word in _COUNT_RE.findall(title):
                found = True
                if word == "passed":
                    passed += int(num)
                else:
                    failed += int(num)
            if found or "no tests ran" in title:
                self.add_counts(passed, failed)

    def _section_line(self, s: str) -> None:
        sec = self.section
        assert sec is not None
        if s.startswith("-") and " Captured " in s:
            sec.captured = True
            return
        if sec.captured:
            return
        if s.startswith("E ") or s == "E":
            if len(sec.e_lines) < _MAX_SECTION_E:
                sec.e_lines.append(s[1:])
            return
        m = _LOC_RE.match(s)
        if m is None and 'File "' in s:
            m = _FRAME_RE.match(s)
        if m is not None:
            if len(sec.locs) < _MAX_SECTION_LOCS:
                sec.locs.append((rel_path(m.group(1)), int(m.group(2))))
            return
        if not sec.e_lines and len(sec.other) < 12 and s.strip() and not s.startswith(("  ", "\t", ">")) \
                and s != "Traceback (most recent call last):":  # --tb=native: the exception line is the message
            sec.other.append(s)

    def _close_section(self) -> None:
        if self.section is not None:
            if len(self.sections) < 2000:
                self.sections.append(self.section)
            else:
                self.overflow = True
            self.section = None

    # -- assembly --------------------------------------------------------------------------------
    def finish(self) -> list[Draft]:
        self._close_section()
        self.release()
        by_headline: dict[str, list[str]] = {}
        for nodeid in list(self.summary) + [n for n in self.verbose if n not in self.summary]:
            by_headline.setdefault(_headline(nodeid), []).append(nodeid)

        matched: dict[str, _Section] = {}
        orphans: list[tuple[str, _Section]] = []
        for sec in self.sections:
            head = sec.header
            for prefix in ("ERROR collecting ", "ERROR at setup of ", "ERROR at teardown of "):
                if head.startswith(prefix):
                    head = head[len(prefix) :].strip()
                    break
            files = {p for p, _ in sec.locs}
            cands = [n for n in by_headline.get(head, []) if n not in matched]
            pick = next((n for n in cands if n.split("::", 1)[0] in files), cands[0] if cands else None)
            if pick is None:
                if head.endswith(".py") and "::" not in head and " " not in head:
                    pick = head
                else:
                    first = next((p for p, _ in sec.locs if not is_vendor(p)), None)
                    pick = _nodeid_from(first, head) if first else head
                if pick in matched:
                    continue
                orphans.append((pick, sec))
            matched[pick] = sec

        order = list(self.summary) + [n for n, _ in orphans if n not in self.summary]
        order += [n for n in self.verbose if n not in self.summary and n not in matched]
        for nodeid in order:
            self._emit(nodeid, matched.get(nodeid))
        self._tb_line_locations()
        return list(self.drafts.values())

    def _tb_line_locations(self) -> None:
        """--tb=line prints ``path:line: message`` without the test's name: a line goes to the failure of the
        same file whose summary message it repeats, or to the only failure of that file without a line."""
        for path, line, msg in self.tb_lines:
            open_ = [d for d in self.drafts.values() if d.file_path == path and d.line_number is None]
            pick = next((d for d in open_ if d.message and msg and (d.message == msg or msg.endswith(d.message))),
                        open_[0] if len(open_) == 1 else None)
            if pick is not None:
                pick.line_number = line
                if not pick.message and msg:
                    pick.message = msg

    def _emit(self, nodeid: str, sec: _Section | None) -> None:
        summary_msg = self.summary.get(nodeid, ("", None))[1]
        message = None
        if sec is not None:
            if sec.e_lines:
                message = trim_message(sec.e_lines)
            elif not summary_msg and sec.other:
                message = trim_message(sec.other)
        message = message or summary_msg
        node_file = nodeid.split("::", 1)[0]
        file_path: str | None = node_file if node_file.endswith(".py") else None
        line = None
        if sec is not None and sec.locs:
            in_file = [loc for loc in sec.locs if loc[0] == node_file]
            own = [loc for loc in sec.locs if not is_vendor(loc[0])]
            if in_file:
                line = in_file[-1][1]
            elif own or file_path is None:  # e.g. a fixture in conftest.py failed at setup
                file_path, line = (own or sec.locs)[-1]
        self.add(nodeid, nodeid, message=message, file_path=file_path, line=line)
