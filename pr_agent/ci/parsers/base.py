"""Shared machinery of the runner parsers: drafts, the parse context, and small text helpers.

Every parser is a line-driven state machine. The engine hands a parser a line when the line passed the
cheap prefilter (it contains a token some parser cares about) and has one of the parser's triggers
(``first_chars``, ``words``, ``busy_when``), or when the parser asked to *capture* (it is inside a failure
block and needs every line until the block ends). Parsers keep only the block they are in and a bounded
number of drafts, so memory never depends on the size of the log.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

MAX_MESSAGE_CHARS = 500
MAX_MESSAGE_LINES = 15
MAX_FAILURES = 2000
MAX_BLOCK_LINES = 300
RING_SIZE = 80

_WORK_PREFIXES = (
    "/home/runner/work/",
    "/Users/runner/work/",
    "/home/runner/_work/",
    "/runner/_work/",
    "/__w/",
    "D:/a/",
    "C:/a/",
)
_VENDOR_MARKS = (
    "node_modules/",
    "node:",
    "internal/",
    "site-packages/",
    "dist-packages/",
    "/lib/python",
    "hostedtoolcache",
    "/usr/lib/",
    "/usr/local/lib/",
    "<anonymous>",
    "/_/",
    "/rustc/",
    ".cargo/registry",
    "/gems/",
    "/vendor/",
    "/go/pkg/mod/",
    "/src/testing/",
)


@dataclass(slots=True)
class Draft:
    """A failure while it is being assembled (converted to ``TestFailure`` at the end)."""

    runner: str
    test_name: str
    message: str | None = None
    file_path: str | None = None
    line_number: int | None = None
    suite: str | None = None
    confidence: str | None = None  # forced; otherwise derived from what is known


class Context:
    """What the engine shares with the parsers."""

    __slots__ = ("capturing", "lineno", "recent", "ring_source")

    def __init__(self) -> None:
        self.recent: deque[str] = deque(maxlen=RING_SIZE)
        self.ring_source: Callable[[], Sequence[str]] | None = None
        self.capturing: list[BaseParser] = []
        self.lineno = 0

    @property
    def ring(self) -> Sequence[str]:
        """The last ``RING_SIZE`` clean lines, up to line ``lineno`` (built on demand when the engine did not
        clean every line)."""
        return self.recent if self.ring_source is None else self.ring_source()


class BaseParser:
    runner = ""
    # Which prefiltered lines the engine feeds a parser that is not capturing: at least every line its
    # ``feed`` could change its state on. First characters of the stripped line ("0" stands for any digit),
    # substrings, and attributes that, when not None, mean "feed me every prefiltered line". A new line
    # shape in ``feed`` needs its trigger here; tests/unit/ci/test_scan.py compares with feeding every line.
    first_chars = ""
    words: tuple[str, ...] = ()
    busy_when: tuple[str, ...] = ()

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.drafts: dict[str, Draft] = {}
        self.first_seen: int | None = None
        self.passed: int | None = None
        self.failed: int | None = None
        self.overflow = False

    # -- engine interface ------------------------------------------------------------------------
    def feed(self, line: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def finish(self) -> list[Draft]:
        return list(self.drafts.values())

    # -- helpers for subclasses ------------------------------------------------------------------
    def detect(self) -> None:
        if self.first_seen is None:
            self.first_seen = self.ctx.lineno

    def capture(self) -> None:
        if self not in self.ctx.capturing:
            self.ctx.capturing.append(self)

    def release(self) -> None:
        if self in self.ctx.capturing:
            self.ctx.capturing.remove(self)

    def add(
        self,
        key: str,
        name: str,
        *,
        message: str | None = None,
        file_path: str | None = None,
        line: int | None = None,
        suite: str | None = None,
        confidence: str | None = None,
    ) -> Draft | None:
        """Create or complete the draft ``key``; fields already known are kept."""
        d = self.drafts.get(key)
        if d is None:
            if len(self.drafts) >= MAX_FAILURES:
                self.overflow = True
                return None
            d = Draft(self.runner, name)
            self.drafts[key] = d
            self.detect()
        if message and not d.message:
            d.message = message
        if file_path and not d.file_path:
            d.file_path = file_path
            if line is not None:
                d.line_number = line
        elif line is not None and d.line_number is None and (not file_path or file_path == d.file_path):
            d.line_number = line
        if suite and not d.suite:
            d.suite = suite
        if confidence and not d.confidence:
            d.confidence = confidence
        return d

    def end_block(self, key: str | None) -> Draft | None:
        """A captured block about the test ``key`` ended: capturing stops (when there was a block) and the
        test's draft is returned (None: no block, or no draft for it)."""
        if key is None:
            return None
        self.release()
        return self.drafts.get(key)

    def add_total(self, total: int, failed: int, line: str, other: str) -> None:
        """Counts from a summary of ``total`` tests, ``failed`` of them failed, and ``N <other>`` (skipped,
        pending) in ``line`` neither passed nor failed."""
        m = re.search(r"(?<!\d)(\d+) " + re.escape(other), line)
        self.add_counts(total - failed - (int(m.group(1)) if m else 0), failed)

    def add_counts(self, passed: int | None = None, failed: int | None = None) -> None:
        self.detect()
        if passed is not None:
            self.passed = (self.passed or 0) + passed
        if failed is not None:
            self.failed = (self.failed or 0) + failed


# -- text helpers ------------------------------------------------------------------------------------


def trim_message(lines: Iterable[str] | str) -> str:
    """Join message lines: drop blank edges, squeeze blank runs, cap lines and characters."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    out: list[str] = []
    blank = False
    for raw in lines:
        line = raw.rstrip()
        if not line.strip():
            blank = bool(out)
            continue
        if blank:
            out.append("")
            blank = False
        out.append(line)
        if len(out) >= MAX_MESSAGE_LINES:
            break
    text = "\n".join(dedent(out)).strip()
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1].rstrip() + "…"
    return text


def dedent(lines: list[str]) -> list[str]:
    indents = [len(s) - len(s.lstrip()) for s in lines if s.strip()]
    cut = min(indents) if indents else 0
    return [s[cut:] for s in lines] if cut else lines


def rel_path(path: str) -> str:
    """Repository-relative form of a path printed by a runner on a GitHub-hosted (or container) runner."""
    p = path.strip().strip("\"'")
    if p.startswith("file://"):
        p = p[7:]
    elif p.startswith("webpack://"):  # a bundler's source URL: webpack://<project>/./src/a.js
        p = p[len("webpack://") :].partition("/")[2] or p
    p = p.replace("\\", "/")
    if p.startswith("/github/workspace/"):
        return p[len("/github/workspace/") :]
    for pre in _WORK_PREFIXES:
        if p.startswith(pre):
            parts = p[len(pre) :].split("/", 2)
            return parts[2] if len(parts) == 3 else p
    while p.startswith("./"):
        p = p[2:]
    return p


def is_vendor(path: str) -> bool:
    p = path.replace("\\", "/")
    return any(mark in p for mark in _VENDOR_MARKS)


def split_location(text: str) -> tuple[str, int, int | None] | None:
    """``path:line[:col]`` → (path, line, col); None when the text is not such a location."""
    t = text.strip()
    if t.startswith("(") and t.endswith(")"):
        t = t[1:-1]
    parts = t.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit() and parts[0]:
        return parts[0], int(parts[1]), int(parts[2])
    parts = t.rsplit(":", 1)
    if len(parts) == 2 and parts[1].isdigit() and parts[0] and not parts[0].endswith(":"):
        return parts[0], int(parts[1]), None
    return None


def js_frame(line: str) -> tuple[str, int] | None:
    """Location of a JS stack frame ``at fn (path:12:5)`` / ``at path:12:5``; None for other lines."""
    s = line.strip()
    if not s.startswith("at "):
        return None
    loc = s[s.rfind("(") + 1 : -1] if s.endswith(")") and "(" in s else s[3:]
    found = split_location(loc)
    if found is None or found[2] is None:
        return None
    return found[0], found[1]


def int_or_none(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
