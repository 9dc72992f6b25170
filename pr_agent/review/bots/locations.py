"""Where a finding points: line ranges, GitHub blob/diff links and ``path:line`` strings."""

from __future__ import annotations

import re
from urllib.parse import unquote

from pr_agent.review.bots.markup import clean_inline

_RANGE = re.compile(r"[LR]?(\d{1,7})(?:\s*[-–:]\s*[LR]?(\d{1,7}))?", re.IGNORECASE)


def parse_range(text: str | None) -> tuple[int | None, int | None]:
    """"10-12", "10", "L10-L12", "R140-R167" → (start, end)."""
    if not text:
        return None, None
    m = _RANGE.search(text)
    if not m:
        return None, None
    start = int(m.group(1))
    end = int(m.group(2)) if m.group(2) else start
    return start, end


_BLOB_LINK = re.compile(
    r"https?://[^\s/()<>\"']{1,200}/[^\s/()<>\"']{1,100}/[^\s/()<>\"']{1,100}/blob/"
    r"[^\s/()<>\"']{1,100}/([^\s#()<>\"'?]{1,500})(?:\?[^\s#()<>\"']{0,200})?(?:#L(\d{1,7})(?:-L(\d{1,7}))?)?"
)
_DIFF_LINK = re.compile(r"/files#diff-[0-9a-f]{8,64}([RL]\d{1,7}(?:-[RL]\d{1,7})?)?")


def github_link_location(text: str) -> tuple[str | None, int | None, int | None]:
    """(path, start, end) from the first GitHub blob link in ``text``; lines from a diff anchor."""
    m = _BLOB_LINK.search(text)
    if m:
        path = unquote(m.group(1))
        start = int(m.group(2)) if m.group(2) else None
        end = int(m.group(3)) if m.group(3) else start
        return path, start, end
    d = _DIFF_LINK.search(text)
    if d and d.group(1):
        s, e = parse_range(d.group(1))
        return None, s, e
    return None, None, None


_PATH_LINE = re.compile(r"^([^\s:`*<>|]{1,500}):(\d{1,7})(?:[ \t]{0,5}-[ \t]{0,5}(\d{1,7}))?$")


def path_and_lines(text: str) -> tuple[str | None, int | None, int | None]:
    """"path/file.py:12-14" (backticks/bold allowed) → (path, 12, 14)."""
    s = clean_inline(text).strip().strip("`*").strip()
    m = _PATH_LINE.match(s)
    if not m:
        return None, None, None
    start = int(m.group(2))
    end = int(m.group(3)) if m.group(3) else start
    return m.group(1), start, end
