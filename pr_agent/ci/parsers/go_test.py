"""go test: plain/-v output (``--- FAIL: TestX/sub (0.00s)``), gotestsum ``=== FAIL:``, and ``-json`` events."""

from __future__ import annotations

import re

import orjson

from .base import BaseParser, Draft, rel_path, trim_message

_FAIL_RE = re.compile(r"(\s*)--- FAIL: (\S+) \(")
_SUM_FAIL_RE = re.compile(r"=== FAIL: (\S+) (\S+) \(")  # gotestsum: pkg TestName
_LOG_RE = re.compile(r"\s+([\w.\-/]+\.go):(\d+): ?(.*)$")
_MARK_RE = re.compile(r"=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)")
_PKG_RE = re.compile(r"(FAIL|ok)\s+(\S+)\s")
_FRAME_RE = re.compile(r"\s+(\S+_test\.go):(\d+)")
_GO_FILE_RE = re.compile(r"\.go:\d+")
_GO_LOC_RE = re.compile(r"((?<![\w.\-/])[\w.\-/]+\.go):(\d+)")
_MAX_RUNNING = 2000
_MAX_BUF = 40


def _log_message(lines: list[str]) -> tuple[str | None, str | None, int | None]:
    """Message, file and line from go test log lines (``    x_test.go:12: msg`` plus continuations)."""
    race = _race(lines)
    if race is not None:
        return race
    msg: list[str] = []
    path: str | None = None
    line_no: int | None = None
    for s in lines:
        m = _LOG_RE.match(s)
        if m:
            if path is None:
                path, line_no = m.group(1), int(m.group(2))
            msg.append(m.group(3))
        elif msg and s.startswith((" ", "\t")) and s.strip():
            msg.append(s.strip())
    found = _testify(msg)
    if found is not None:
        text, trace = found
        return (trim_message(text) or None), *(trace or (path, line_no))
    return (trim_message(msg) or None), path, line_no


def _race(lines: list[str]) -> tuple[str | None, str | None, int | None] | None:
    """The race detector's report (``go test -race``): ``WARNING: DATA RACE``, the two conflicting accesses
    with their stacks, then ``testing.go:NNNN: race detected during execution of test``. The message is the
    first access and its top frame; the location is the first frame in a ``_test.go`` file (the test's own
    code), never ``testing.go``. None when the lines hold no race report."""
    start = next((i for i, s in enumerate(lines) if s.strip() == "WARNING: DATA RACE"), None)
    if start is None:
        return None
    block: list[str] = []
    for s in lines[start + 1 :]:
        if s.strip().startswith("=================="):
            break
        block.append(s)
    msg = ["WARNING: DATA RACE"]
    heads = [s.strip() for s in block if s.strip() and not s.startswith((" ", "\t"))]
    if heads:
        msg.append(heads[0])
    frames = [s.strip() for s in block[1:5] if s.strip()]
    msg.extend(frames[:2])
    loc = next((m for m in (_FRAME_RE.match(s) for s in block) if m is not None), None)
    return (trim_message(msg) or None), (rel_path(loc.group(1)) if loc else None), (int(loc.group(2)) if loc else None)


_TESTIFY_LABELS = ("Error Trace", "Error", "Test", "Messages")


def _testify(msg: list[str]) -> tuple[list[str], tuple[str, int] | None] | None:
    """testify's report (``Error Trace:`` / ``Error:`` / ``Test:`` / ``Messages:``): the message is its
    ``Error`` and ``Messages`` parts, the location the first frame of ``Error Trace`` in the test's own code
    (older testify logs the failure at ``assertions.go:NNN``, not at the test's line). None otherwise."""
    if not any(m.startswith("Error Trace:") for m in msg):
        return None
    text: list[str] = []
    trace: tuple[str, int] | None = None
    label = None
    for m in msg:
        head, sep, rest = m.partition(":")
        if sep and head.strip() in _TESTIFY_LABELS:
            label, m = head.strip(), rest.strip()
        if label == "Error Trace":
            for part in m.split():
                loc = _GO_LOC_RE.search(part)
                if trace is None and loc and not loc.group(1).endswith(("/assertions.go", "/require.go")) \
                        and loc.group(1) not in ("assertions.go", "require.go") and "/testify/" not in loc.group(1):
                    trace = (rel_path(loc.group(1)), int(loc.group(2)))
        elif label in ("Error", "Messages") and m:
            text.append(m)
    return text, trace


class GoParser(BaseParser):
    runner = "go"
    first_chars = "=pFo"
    words = ("--- FAIL",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.after: str | None = None  # key of the failure whose indented output may follow
        self.after_indent = 0
        self.after_lines: list[str] = []
        self.panic: str | None = None
        self.panic_lines: list[str] = []
        self.unassigned: list[str] = []
        self.running: dict[tuple[str, str], list[str]] = {}
        self.pkg_mark = 0  # number of drafts when the current package's output began
        self.orphan: list[str] | None = None  # a panic outside any failing test (init, TestMain, …)
        self.orphan_json: dict[str, list[str]] = {}
        self.pkg_failures: list[tuple[str, list[str]]] = []  # packages that failed without a failing test

    # -- plain output ----------------------------------------------------------------------------
    def feed(self, line: str) -> None:
        if self.panic is not None:
            self._panic_line(line)
            return
        m = _FAIL_RE.match(line) if "--- FAIL" in line else None
        if m is None and line.startswith("=== FAIL: "):
            m2 = _SUM_FAIL_RE.match(line)
            if m2:
                self._flush_after()
                self._start_failure(m2.group(2), 0, suite=m2.group(1), lookback=False)
                return
        if m is not None:
            self._flush_after()
            self._start_failure(m.group(2), len(m.group(1)))
            return
        if self.after is not None:
            indent = len(line) - len(line.lstrip())
            if line.strip() and indent > self.after_indent and not line.lstrip().startswith("---"):
                if len(self.after_lines) < 60:
                    self.after_lines.append(line)
                return
            if line.strip() or indent <= self.after_indent:
                self._flush_after()
        if line.startswith("panic: "):
            target = next(reversed(self.drafts), None) if len(self.drafts) > self.pkg_mark else None
            if target is None and "test timed out" not in line:
                target = "__package__"
            if target is not None and "test timed out" not in line:
                self.panic = target
                self.panic_lines = [line]
                self.capture()
            elif "test timed out" in line:
                self.panic = "__timeout__"
                self.panic_lines = [line]
                self.capture()
            return
        if line.startswith(("FAIL\t", "ok  \t", "FAIL    ")) and " > " not in line:  # "    ": a tab, expanded
            m3 = _PKG_RE.match(line + " ")
            if m3 and m3.group(2) not in ("", "-"):
                pkg = m3.group(2)
                self.detect()
                if m3.group(1) == "FAIL":
                    for key in self.unassigned:
                        d = self.drafts.get(key)
                        if d is not None and not d.suite:
                            d.suite = pkg
                    if self.orphan is not None and len(self.pkg_failures) < 20:
                        self.pkg_failures.append((pkg, [*self.orphan, line.strip()]))
                self.unassigned, self.orphan, self.pkg_mark = [], None, len(self.drafts)

    def _start_failure(self, name: str, indent: int, *, suite: str | None = None, lookback: bool = True) -> None:
        msg = path = line_no = None
        if lookback:
            msg, path, line_no = _log_message(self._lookback(name))
            if msg is None:  # without -v: a race report ends on the line just before "--- FAIL"
                ring = list(self.ctx.ring)[:-1]
                if ring and ring[-1].strip().startswith("=================="):
                    start = next((i for i in range(len(ring) - 2, -1, -1) if ring[i].strip() == "WARNING: DATA RACE"),
                                 None)
                    if start is not None:
                        msg, path, line_no = _log_message(ring[start:])
        key = f"{suite}::{name}" if suite else name
        added = self.add(key, name, message=msg, file_path=path, line=line_no, suite=suite)
        if added is not None and not suite:
            self.unassigned.append(key)
        self.after, self.after_indent, self.after_lines = key, indent, []
        self.capture()

    def _lookback(self, name: str) -> list[str]:
        """Lines logged for ``name`` since its ``=== RUN``/``CONT``/``NAME`` marker (go test -v)."""
        buf: list[str] = []
        ring = list(self.ctx.ring)[:-1]
        for s in reversed(ring):
            if s.startswith("=== "):
                m = _MARK_RE.match(s)
                if m:
                    if m.group(1) == name:
                        buf.reverse()
                        return buf
                    buf = []
                    continue
            if s.lstrip().startswith("--- "):
                continue
            buf.append(s)
        return []  # no marker of this test in sight: not -v output, or too far back

    def _flush_after(self) -> None:
        key, lines = self.after, self.after_lines
        self.after, self.after_lines = None, []
        if self.panic is None:
            self.release()
        if key is None or not lines:
            return
        msg, path, line_no = _log_message(lines)
        d = self.drafts.get(key)
        if d is not None:
            if msg and not d.message:
                d.message = msg
            if path and not d.file_path:
                d.file_path, d.line_number = path, line_no

    def _panic_line(self, line: str) -> None:
        if line.startswith(("FAIL\t", "FAIL", "ok  \t", "exit status")) or len(self.panic_lines) >= 200:
            self._close_panic()
            if not line.startswith("exit status"):
                self.feed(line)
            return
        self.panic_lines.append(line)

    def _close_panic(self) -> None:
        key, lines = self.panic, self.panic_lines
        self.panic, self.panic_lines = None, []
        self.release()
        if key is None:
            return
        head = lines[0][len("panic: ") :].removesuffix(" [recovered]").strip()
        if key == "__package__":
            self.orphan = [lines[0].strip(), *[s.strip() for s in lines if _GO_FILE_RE.search(s)][:1]]
            return
        if key == "__timeout__":
            names = [s.strip().split(" ", 1)[0] for s in lines[1:] if s.startswith("\t\t")]
            for name in names[:50]:
                self.add(name, name, message=f"panic: {head}")
            return
        d = self.drafts.get(key)
        if d is None:
            return
        if not d.message:
            d.message = f"panic: {head}"
        if not d.file_path:
            for s in lines:
                m = _FRAME_RE.match(s)
                if m:
                    d.file_path, d.line_number = rel_path(m.group(1)), int(m.group(2))
                    break

    # -- go test -json ---------------------------------------------------------------------------
    def feed_json(self, line: str) -> list[str]:
        """Handle one ``go test -json`` event; returns package-level output lines (build errors …)."""
        if '"Action":"output"' in line and not (
            ".go:" in line or "panic" in line or "FAIL" in line or "rror" in line or "    " in line
        ):
            return []
        try:
            ev = orjson.loads(line)
        except orjson.JSONDecodeError:
            return []
        if not isinstance(ev, dict):
            return []
        action, test = ev.get("Action"), ev.get("Test")
        pkg = str(ev.get("Package") or ev.get("ImportPath") or "")
        self.detect()
        if action in ("output", "build-output"):
            text = str(ev.get("Output") or "").rstrip("\n")
            if not test:
                orphan = self.orphan_json.get(pkg)
                if text.startswith("panic: ") and orphan is None and len(self.orphan_json) < 20:
                    self.orphan_json[pkg] = [text]
                elif orphan is not None and (
                    (len(orphan) == 1 and _GO_FILE_RE.search(text)) or text.startswith("FAIL\t")
                ):
                    orphan.append(text.strip())
                return [text]
            buf = self.running.get((pkg, test))
            if buf is None:
                if len(self.running) >= _MAX_RUNNING:
                    self.running.pop(next(iter(self.running)))
                buf = self.running[(pkg, test)] = []
            if len(buf) < _MAX_BUF and not text.startswith(("=== ", "--- ")):
                buf.append(text)
        elif test and action in ("pass", "skip"):
            self.running.pop((pkg, test), None)
        elif not test and action == "fail" and pkg in self.orphan_json:
            orphan = self.orphan_json.pop(pkg)
            if not any(d.suite == pkg for d in self.drafts.values()) and len(self.pkg_failures) < 20:
                self.pkg_failures.append((pkg, orphan))
        elif test and action == "fail":
            buf = self.running.pop((pkg, test), [])
            msg, path, line_no = _log_message(buf)
            if msg is None:
                panic = next((s for s in buf if s.startswith("panic: ")), None)
                msg = panic.removesuffix(" [recovered]") if panic else None
            self.add(f"{pkg}::{test}", test, message=msg, file_path=path, line=line_no, suite=pkg or None)
        return []

    def finish(self) -> list[Draft]:
        self._flush_after()
        if self.panic is not None:
            self._close_panic()
        self.release()
        drafts = list(self.drafts.values())
        names = {(d.suite, d.test_name) for d in drafts}
        out = []
        for d in drafts:
            has_child = any(s == d.suite and n.startswith(d.test_name + "/") for s, n in names)
            if has_child and not d.message:
                continue
            out.append(d)
        return out
