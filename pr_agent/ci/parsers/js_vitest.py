"""vitest: ``FAIL  file > Suite > test`` blocks with ``❯ file:line:col``, the ``×`` tree, ``Tests`` totals.

Test names are the runner's own, verbatim: ``Suite > test`` as vitest prints them (repro commands use
them); the file is in ``suite``/``file_path``.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, is_vendor, rel_path, split_location, trim_message

_CODE_FRAME_RE = re.compile(r"\s*\d+\s*\|")
_COUNT_RE = re.compile(r"(?<!\d)(\d+) (failed|passed)\b")
_DURATION_RE = re.compile(r"\d+(?:\.\d+)?m?s")


def _header(rest: str) -> tuple[str, str] | None:
    """``file > a > b`` → (file, 'a > b'); ``file [ file ]`` → (file, file)."""
    if " > " in rest:
        parts = [p.strip() for p in rest.split(" > ")]
        return rel_path(parts[0]), " > ".join(parts[1:])
    if rest.endswith(" ]") and " [ " in rest:  # a file that failed as a whole: "file [ file ]"
        path = rel_path(rest.split(" [ ", 1)[0].strip())
        return path, path
    return None


class VitestParser(BaseParser):
    runner = "vitest"
    first_chars = "FT❯×"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.names: list[tuple[str, str]] | None = None
        self.msg: list[str] = []
        self.locs: list[tuple[str, int]] = []
        self.frame_seen = False
        self.seen = 0
        self.tree_file: str | None = None
        self.arrow_for: str | None = None
        self.fallback: dict[str, list[str | None]] = {}

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.arrow_for is not None:
            key, self.arrow_for = self.arrow_for, None
            if not self.names:
                self.release()
            if s.startswith("→"):
                self.fallback[key][2] = s[1:].strip()
                return
        if s.startswith("FAIL ") and (" > " in s or s.endswith("]")):
            head = _header(s[5:].strip())
            if head is not None:
                self.detect()
                if self.names is not None and (self.msg or self.locs or self.frame_seen):
                    self._close()
                if self.names is None:
                    self.names = []
                    self.capture()
                self.names.append(head)
                return
        if self.names is not None:
            self._block_line(line, s)
            return
        c = s[:1]
        if c == "T" and s.startswith("Tests ") and "(" in s:
            counts = {w: int(n) for n, w in _COUNT_RE.findall(s)}
            if counts:
                self.add_counts(counts.get("passed", 0), counts.get("failed", 0))
        elif c == "❯" and "(" in s and " test" in s:
            self.tree_file = rel_path(s[1:].strip().split(" (", 1)[0].strip())
        elif c == "×" and len(self.fallback) < 500:
            name = s[1:].strip()
            head, _, tail = name.rpartition(" ")
            if head and _DURATION_RE.fullmatch(tail):
                name = head.rstrip()
            name = " > ".join(p.strip() for p in name.split(" > "))
            key = f"{self.tree_file}::{name}"
            self.fallback.setdefault(key, [name, self.tree_file, None])
            self.arrow_for = key
            self.capture()

    def _block_line(self, line: str, s: str) -> None:
        self.seen += 1
        if "⎯" in s or s.startswith(("Test Files ", "Tests ")) or self.seen > MAX_BLOCK_LINES:
            self._close()
            return
        if s.startswith("❯ "):
            loc = split_location(s[2:].strip().rsplit(" ", 1)[-1])
            if loc is not None and len(self.locs) < 10:
                self.locs.append((loc[0], loc[1]))
            return
        if _CODE_FRAME_RE.match(s) or (s.startswith("|") and "^" in s):
            self.frame_seen = True
            return
        if not self.locs and not self.frame_seen and len(self.msg) < MAX_BLOCK_LINES:
            self.msg.append(line)

    def _close(self) -> None:
        names, msg, locs = self.names or [], self.msg, self.locs
        self.names, self.msg, self.locs, self.frame_seen, self.seen = None, [], [], False, 0
        self.release()
        message = trim_message(msg) or None
        for file, name in names:
            own = [(rel_path(p), n) for p, n in locs if not is_vendor(p)]
            pick = next((loc for loc in own if loc[0] == file), own[0] if own else (file, None))
            self.add(f"{file}::{name}", name, message=message, file_path=pick[0], line=pick[1], suite=file,
                     confidence="medium" if name == file else None)

    def finish(self) -> list[Draft]:
        self._close()
        known = [(d.suite, d.test_name) for d in self.drafts.values()]
        for key, (name, file, arrow) in self.fallback.items():
            if key in self.drafts or name is None:
                continue
            if any(f == file and n.endswith(" > " + name) for f, n in known):
                continue  # the tree line of a failure already reported with its suite path
            self.add(key, name, message=arrow, file_path=file, suite=file,
                     confidence="medium" if arrow else "low")
        return list(self.drafts.values())
