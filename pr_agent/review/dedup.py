"""Cross-bot dedup: the same finding from two AI reviewers becomes one item with ``also_reported_by``.

Pure. Two findings are the same when they come from different bots, sit in the same file on overlapping
lines (within two lines) and say similar things (shared significant words of title and start of body).
A finding parsed from a review body has no action of its own, so it is folded into the other item. Two
inline threads both stay (each must be resolved on GitHub), each naming the other in ``also_reported_by``.
The number of corroborations (``len(also_reported_by)``) helps an agent rank findings.
"""

from __future__ import annotations

import re
from typing import Any

from pr_agent.review.authors import normalize_login

_WORD = re.compile(r"[a-z0-9_]{3,}")
_STOP = frozenset((
    "the", "this", "that", "with", "from", "into", "when", "then", "than", "there", "their", "should", "could",
    "would", "have", "has", "are", "was", "were", "will", "can", "not", "but", "and", "for", "you", "your", "its",
    "use", "using", "used", "here", "also",
))
SIMILAR = 0.2


def _words(item: dict[str, Any]) -> set[str]:
    text = f"{item.get('title') or ''} {(item.get('body') or '')[:400]}".lower()
    return {w for w in _WORD.findall(text) if w not in _STOP}


def _span(item: dict[str, Any]) -> tuple[int, int] | None:
    end = item.get("line_number")
    if not item.get("file_path") or not end:
        return None
    return (item.get("start_line") or end), end


def same_finding(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if normalize_login(a["author"]) == normalize_login(b["author"]) or a.get("file_path") != b.get("file_path"):
        return False
    sa, sb = _span(a), _span(b)
    if sa is None or sb is None or sa[0] > sb[1] + 2 or sb[0] > sa[1] + 2:
        return False
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return False
    return len(wa & wb) / len(wa | wb) >= SIMILAR


def _ref(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "author": item["author"],
        "severity": item.get("severity"),
        "severity_level": item.get("severity_level"),
        "node_id": item["node_id"],
        "thread_id": item.get("thread_id"),
        "html_url": item.get("html_url"),
        "title": item.get("title"),
    }


def dedup_across_bots(items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """(items, number of body findings folded into another bot's item)."""
    candidates = [it for it in items if it["is_bot"] and it.get("fingerprint") and _span(it)]
    folded: set[int] = set()
    for i, a in enumerate(candidates):
        if id(a) in folded:
            continue
        for b in candidates[i + 1 :]:
            if id(b) in folded or not same_finding(a, b):
                continue
            if b["source"] == "review_body":
                keep, drop = a, b
            elif a["source"] == "review_body":
                keep, drop = b, a
            else:  # two threads: both stay, each names the other
                a.setdefault("also_reported_by", []).append(_ref(b))
                b.setdefault("also_reported_by", []).append(_ref(a))
                continue
            keep.setdefault("also_reported_by", []).append(_ref(drop))
            keep["also_reported_by"].extend(drop.get("also_reported_by") or [])
            folded.add(id(drop))
            if drop is a:
                break
    return [it for it in items if id(it) not in folded], len(folded)
