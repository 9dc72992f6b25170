"""Playwright Test (list, line and dot reporters; they share the epilogue read here).

Each failed test is printed as a numbered block, ``  1) [chromium] › tests/a.spec.ts:8:5 › Suite › title ───``
(no ``[project] › `` when the config names no project), the error under it, then the code frame and the
stack. The summary lists ``N failed`` and ``N flaky`` tests by the same id. The id is the runner's own,
verbatim, as it prints it (``[project] › file:line:col › titles``); the file and line are the test's own
location from that id (where the test is declared), never a frame of the assertion.

A test listed under ``N flaky`` failed and then passed on a retry in the same run: flaky, not a failure.
Without a summary (a log cut short), every block and every ``✘`` line of the list reporter is a failure.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, js_frame, rel_path, trim_message

_HEAD_RE = re.compile(r"(\d+)\) (\S.*)$")
_SUMMARY_RE = re.compile(r"(\d+) (failed|flaky|passed|skipped|interrupted|did not run)\b")
_FRAME_RE = re.compile(r"\s*>?\s*\d+ \|")
_RETRY = "Retry #"


def split_id(text: str) -> tuple[str, str, int] | None:
    """``[project] › path:line:col › titles`` (project optional) → (the id as printed, path, line)."""
    tid = text.rstrip(" ─").rstrip()
    for suffix in (" (retry #",):  # the list reporter's "(retry #1)" is not part of the id
        if suffix in tid:
            tid = tid.split(suffix, 1)[0].rstrip()
    parts = tid.split(" › ")
    if len(parts) < 2:
        return None
    where = parts[1] if parts[0].startswith("[") and parts[0].endswith("]") else parts[0]
    if where is not parts[0] and len(parts) < 3:
        return None
    bits = where.rsplit(":", 2)
    if len(bits) != 3 or not bits[1].isdigit() or not bits[2].isdigit() or not bits[0]:
        return None
    return tid, rel_path(bits[0]), int(bits[1])


def _strip_duration(text: str) -> str:
    """``… › title (5.1s)`` → ``… › title``."""
    t = text.rstrip()
    if t.endswith(")") and " (" in t:
        head, _, tail = t.rpartition(" (")
        if tail[:1].isdigit() and tail[:-1].rstrip("msh.0123456789") == "":
            return head
    return t


def _repo_path(path: str, body: list[str]) -> str:
    """The id's path is relative to the config's test directory; a stack frame of the same file shows it
    from the repository (``at e2e/tests/a.spec.ts:55:23`` for ``tests/a.spec.ts``): prefer that form."""
    for raw in body:
        loc = js_frame(raw)
        if loc is not None:
            full = rel_path(loc[0])
            if full.endswith("/" + path) and not full.startswith("/") and ":" not in full:
                return full
    return path


class PlaywrightParser(BaseParser):
    runner = "playwright"
    first_chars = "0✘["
    words = (" › ",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.block: tuple[str, str, int] | None = None
        self.body: list[str] = []
        self.listing: str | None = None  # "failed" / "flaky" while reading the summary's list
        self.listed: dict[str, dict[str, None]] = {"failed": {}, "flaky": {}}
        self.crossed: dict[str, tuple[str, str, int]] = {}
        self.flaky_names: list[str] = []

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.listing is not None:
            got = split_id(s) if s.startswith("[") or " › " in s else None
            if got is not None and len(self.listed[self.listing]) < 2000:
                self.listed[self.listing][got[0]] = None
                return
            self.listing = None
            self.release()
        m = _HEAD_RE.match(s) if s[:1].isdigit() else None
        if m is not None and " › " in s:
            got = split_id(m.group(2))
            if got is not None:
                self._close()
                self.detect()
                self.block = got
                self.body = []
                self.capture()
                return
        if s[:1].isdigit() and self.first_seen is not None:
            m2 = _SUMMARY_RE.fullmatch(_strip_duration(s))
            if m2 is not None:
                self._close()
                kind, n = m2.group(2), int(m2.group(1))
                if kind == "passed":
                    self.add_counts(passed=n)
                elif kind == "failed":
                    self.add_counts(failed=n)
                if kind in ("failed", "flaky"):
                    self.listing = kind
                    self.capture()
                return
        if self.block is not None:
            if len(self.body) < MAX_BLOCK_LINES:
                self.body.append(line)
            return
        if s.startswith("✘") and len(self.crossed) < 2000:
            rest = s[1:].lstrip()
            num, _, rest = rest.partition(" ")
            got = split_id(_strip_duration(rest.strip())) if num.isdigit() else None
            if got is not None:
                self.detect()
                self.crossed.setdefault(got[0], got)

    def _close(self) -> None:
        if self.block is None:
            return
        tid, path, ln = self.block
        body = self.body
        self.block, self.body = None, []
        self.release()
        msg: list[str] = []
        for raw in body:
            t = raw.strip()
            if t.startswith(_RETRY) or t.startswith(("Call log:", "at ", "Error Context:", "attachment #")):
                if msg:
                    break
                continue
            if _FRAME_RE.match(raw) or (t.startswith("|") and "^" in t):
                break
            msg.append(raw)
        self.add(tid, tid, message=trim_message(msg) or None, file_path=_repo_path(path, body), line=ln, suite=path)

    def finish(self) -> list[Draft]:
        self._close()
        failed, flaky = self.listed["failed"], self.listed["flaky"]
        if failed or flaky:
            for tid in failed:
                got = split_id(tid)
                if got is not None:
                    self.add(tid, tid, file_path=got[1], line=got[2], suite=got[1])
            self.flaky_names = [t for t in flaky if t not in failed]
            return [d for k, d in self.drafts.items() if k in failed]
        for tid, (_, path, ln) in self.crossed.items():
            self.add(tid, tid, file_path=path, line=ln, suite=path)
        return list(self.drafts.values())
