"""Tolerant, linear-time helpers for the Markdown + HTML that AI reviewers write.

Nothing here raises on odd input and nothing backtracks: every regex is bounded, every loop is over
lines or over matches, and nesting is capped (deeper levels are kept as plain text).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

MAX_DEPTH = 48  # <details> nesting kept as structure; deeper levels become text
_ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\x00")


def normalize_text(text: str) -> str:
    """CRLF/CR to LF, zero-width characters and NULs removed."""
    if not isinstance(text, str):
        return ""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    for ch in _ZERO_WIDTH:
        if ch in text:
            text = text.replace(ch, "")
    return text


# --- blockquote alerts ----------------------------------------------------------------------------

_QUOTE_PREFIX = re.compile(r"^(?:>(?:[ \t]|$))+")
_QUOTE_MARKERS = ("<details", "[!caution]", "[!warning]", "[!note]", "[!important]", "[!tip]",
                  "comments (", "<summary")


def unquote_alert_blocks(text: str) -> str:
    """Strip ``> `` prefixes from runs of quoted lines that hold review structure.

    CodeRabbit puts outside-diff findings inside a ``> [!CAUTION]`` alert, quoting every line
    (sometimes ``> > ``). Only runs that contain ``<details>``/alert markers are unquoted, so an
    ordinary quotation in prose is left alone; ``>= 0`` is never touched (a marker must be followed
    by a space, a tab or the end of the line).
    """
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    n = len(lines)
    while i < n:
        if not lines[i].startswith(">"):
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < n and lines[j].startswith(">"):
            j += 1
        run = lines[i:j]
        low = "\n".join(run).lower()
        if any(m in low for m in _QUOTE_MARKERS):
            out.extend(_QUOTE_PREFIX.sub("", ln, count=1) for ln in run)
        else:
            out.extend(run)
        i = j
    return "\n".join(out)


# --- fences ---------------------------------------------------------------------------------------

_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^`\n]{0,80})$")
_FENCE_CLOSE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*$")


@dataclass
class Fence:
    lang: str
    text: str


class FenceTracker:
    """Feed lines one at a time; tells whether each line is inside a fenced code block."""

    __slots__ = ("char", "length")

    def __init__(self) -> None:
        self.char = ""
        self.length = 0

    @property
    def inside(self) -> bool:
        return self.length > 0

    def feed(self, line: str) -> str:
        """Returns "open", "close", "in" (fence content) or "out" (ordinary line)."""
        if "``" not in line and "~~" not in line:  # fast path: cannot be a fence line
            return "in" if self.length else "out"
        if self.length:
            m = _FENCE_CLOSE.match(line)
            if m and m.group(1)[0] == self.char and len(m.group(1)) >= self.length:
                self.length = 0
                return "close"
            return "in"
        m = _FENCE_OPEN.match(line)
        if m:
            self.char = m.group(1)[0]
            self.length = len(m.group(1))
            return "open"
        return "out"


def split_fences(text: str) -> list[tuple[str, str]]:
    """Split text into ("text", chunk) and ("fence:<lang>", inner) segments, in order."""
    segs: list[tuple[str, str]] = []
    buf: list[str] = []
    tracker = FenceTracker()
    lang = ""
    for line in text.split("\n"):
        state = tracker.feed(line)
        if state == "open":
            if buf:
                segs.append(("text", "\n".join(buf)))
            buf = []
            m = _FENCE_OPEN.match(line)
            lang = (m.group(2).strip().split() or [""])[0].lower() if m else ""
        elif state == "close":
            segs.append((f"fence:{lang}", "\n".join(buf)))
            buf = []
        else:
            buf.append(line)
    if buf:
        kind = f"fence:{lang}" if tracker.inside else "text"
        segs.append((kind, "\n".join(buf)))
    return segs


def fences(text: str) -> list[Fence]:
    return [Fence(k[6:], t) for k, t in split_fences(text) if k.startswith("fence:")]


def strip_outer_fence(text: str) -> str:
    """The content of the first fenced block, or the text itself when there is none."""
    fs = fences(text)
    if fs:
        return dedent_block(fs[0].text).strip("\n")
    return dedent_block(text).strip()


# --- <details> tree -------------------------------------------------------------------------------

_TAG = re.compile(r"<(/?)(details|summary|blockquote)\b[^<>\n]{0,300}>", re.IGNORECASE)


@dataclass
class Node:
    """A ``<details>`` element: its summary and its content (text and child nodes, in order)."""

    summary: str = ""
    parts: list[str | Node] = field(default_factory=list)
    depth: int = 0
    _buf: list[str] = field(default_factory=list, repr=False)
    _summary_buf: list[str] | None = field(default=None, repr=False)
    _has_summary: bool = field(default=False, repr=False)

    def _flush(self) -> None:
        if self._buf:
            self.parts.append("".join(self._buf))
            self._buf = []

    def text(self) -> str:
        """This node's own text (children left out)."""
        return "".join(p for p in self.parts if isinstance(p, str))

    def children(self) -> list[Node]:
        return [p for p in self.parts if isinstance(p, Node)]

    def full_text(self, limit: int = 2_000_000) -> str:
        """Text of this node and all descendants, in document order (bounded)."""
        out: list[str] = []
        total = 0
        stack: list[Iterator[str | Node]] = [iter(self.parts)]
        while stack and total < limit:
            part = next(stack[-1], None)
            if part is None:
                stack.pop()
                continue
            if isinstance(part, Node):
                out.append(part.summary + "\n")
                stack.append(iter(part.parts))
            else:
                out.append(part)
                total += len(part)
        return "".join(out)


def parse_tree(text: str, max_depth: int = MAX_DEPTH) -> Node:
    """Parse ``<details>``/``<summary>`` structure; ``<blockquote>`` wrappers are dropped.

    Tags inside fenced code are text. Unclosed elements are closed at the end; stray closers are
    ignored; nesting deeper than ``max_depth`` is kept as text.
    """
    root = Node()
    stack: list[Node] = [root]
    overflow = 0
    tracker = FenceTracker()

    def emit(s: str) -> None:
        if not s:
            return
        cur = stack[-1]
        if cur._summary_buf is not None:
            cur._summary_buf.append(s)
        else:
            cur._buf.append(s)

    for line in text.split("\n"):
        if tracker.feed(line) != "out" or "<" not in line:  # fence line or no tag: plain text
            emit(line + "\n")
            continue
        pos = 0
        for m in _TAG.finditer(line):
            emit(line[pos:m.start()])
            pos = m.end()
            closing, name = m.group(1) == "/", m.group(2).lower()
            cur = stack[-1]
            if name == "blockquote":
                continue
            if name == "details":
                if not closing:
                    if len(stack) > max_depth:
                        overflow += 1
                        emit(m.group(0))
                        continue
                    cur._flush()
                    child = Node(depth=len(stack))
                    cur.parts.append(child)
                    stack.append(child)
                elif overflow:
                    overflow -= 1
                    emit(m.group(0))
                elif len(stack) > 1:
                    _close(cur)
                    stack.pop()
            elif name == "summary":
                if overflow:
                    emit(m.group(0))
                elif not closing and len(stack) > 1 and not cur._has_summary:
                    cur._summary_buf = []
                elif closing and cur._summary_buf is not None:
                    cur.summary = "".join(cur._summary_buf).strip()
                    cur._summary_buf = None
                    cur._has_summary = True
        emit(line[pos:] + "\n")
    while len(stack) > 1:
        _close(stack.pop())
    root._flush()
    return root


def _close(node: Node) -> None:
    if node._summary_buf is not None:  # unclosed <summary>: it was content after all
        node.summary = "".join(node._summary_buf).strip()
        node._summary_buf = None
    node._flush()


def iter_nodes(root: Node) -> Iterator[Node]:
    """All descendants of ``root`` in document (pre-)order, iteratively."""
    stack: list[Iterator[str | Node]] = [iter(root.parts)]
    while stack:
        part = next(stack[-1], None)
        if part is None:
            stack.pop()
            continue
        if isinstance(part, Node):
            yield part
            stack.append(iter(part.parts))


# --- small text helpers ---------------------------------------------------------------------------

_ANY_TAG = re.compile(r"<[^<>\n]{0,500}>")
_HTML_COMMENT_OPEN = "<!--"
_HTML_COMMENT_CLOSE = "-->"
_NON_WORD = re.compile(r"[^\w\s&-]+")
_COUNT = re.compile(r"\((\d{1,6})\)\s*$")


def strip_tags(text: str) -> str:
    return _ANY_TAG.sub("", text)


def clean_inline(text: str) -> str:
    """Tags stripped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(strip_tags(text)).split())


def words_of(text: str) -> str:
    """Lower-case words only (emoji, punctuation, emoji shortcodes and counts removed)."""
    t = clean_inline(text).lower()
    t = re.sub(r":[a-z0-9_+-]{1,40}:", " ", t)
    t = _COUNT.sub("", t)
    t = _NON_WORD.sub(" ", t).replace("_", " ")
    return " ".join(t.split())


def count_of(text: str) -> int | None:
    m = _COUNT.search(clean_inline(text))
    return int(m.group(1)) if m else None


def remove_html_comments(text: str) -> str:
    out: list[str] = []
    pos = 0
    while True:
        i = text.find(_HTML_COMMENT_OPEN, pos)
        if i < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:i])
        j = text.find(_HTML_COMMENT_CLOSE, i + 4)
        if j < 0:
            break
        pos = j + 3
    return "".join(out)


def tidy_block(text: str) -> str:
    """Trim each line's right side, drop leading/trailing blank lines, squeeze blank runs."""
    lines = [ln.rstrip() for ln in text.split("\n")]
    out: list[str] = []
    blank = 0
    for ln in lines:
        if not ln.strip():
            blank += 1
            if blank > 1:
                continue
        else:
            blank = 0
        out.append(ln)
    return "\n".join(out).strip("\n")


def dedent_block(text: str) -> str:
    lines = text.split("\n")
    indents = [len(ln) - len(ln.lstrip(" ")) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(ln[cut:] if len(ln) >= cut else ln.lstrip(" ") for ln in lines)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of the first prose line, markup removed, at most ``limit`` chars."""
    for line in text.split("\n"):
        s = clean_inline(line).strip(" *_-#>")
        if not s or s.startswith(("```", "~~~")):
            continue
        s = s.replace("**", "").replace("`", "")
        m = _SENTENCE_END.search(s[: limit + 1])
        if m:
            s = s[: m.start()]
        if len(s) > limit:
            s = s[:limit].rsplit(" ", 1)[0] + "…"
        return s.strip()
    return ""


def split_suggestion(text: str) -> tuple[str, str | None]:
    """(tidied body, first ```suggestion block): other code fences stay in the body."""
    suggestion = None
    parts: list[str] = []
    for kind, content in split_fences(text):
        if kind == "fence:suggestion" and suggestion is None:
            suggestion = content.strip("\n")
        elif kind == "text":
            parts.append(content)
        else:
            parts.append(f"```{kind[6:]}\n{content}\n```")
    return tidy_block("\n".join(parts)), suggestion
