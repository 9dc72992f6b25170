"""Greptile bodies.

* The summary ("Greptile Summary", "Confidence Score: N/5", "Important Files Changed", sequence
  diagrams) yields nothing.
* ``<details><summary><h3>Comments Outside Diff (N)</h3></summary>`` (between
  ``<!-- greptile_failed_comments -->`` markers) and the older "Additional Comments (N)" hold
  numbered findings: ``1. `path`, line 59-61 ([link](…))`` then an optional priority badge
  (``<img alt="P1" …>`` or ``**P1**``), a bold title or a ``logic:``/``style:`` prefix, prose, and a
  "Prompt To Fix With AI" block (kept as ``ai_prompt``).
* Older review bodies list issues per file: a ``**`path/file.py`**`` line followed by bullets.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.markup import (
    FenceTracker,
    Node,
    clean_inline,
    count_of,
    dedent_block,
    first_sentence,
    parse_tree,
    split_suggestion,
    strip_outer_fence,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_NUMBERED = re.compile(
    r"^\s{0,3}\d{1,3}\.\s+`([^`\n]{1,500})`\s*,?\s*(?:lines?\s+(\d{1,7})(?:\s*-\s*(\d{1,7}))?)?(.*)$"
)
_BADGE = re.compile(r"""<img\b[^<>]{0,200}alt=["'](P\d)["'][^<>]{0,300}>|^\*\*(P\d)\*\*""", re.IGNORECASE)
_EMPTY_LINK = re.compile(r"<a\b[^<>]{0,300}>\s*</a>", re.IGNORECASE)
_KIND = re.compile(r"^\s*\**\s*(logic|style|syntax|security|performance)\s*:\s*\**\s*", re.IGNORECASE)
_BOLD = re.compile(r"^\s*\*\*(.{1,400}?)\*\*\s*(.*)$")
_FILE_LINE = re.compile(r"^\s{0,3}\*\*`([^`\n]{1,500})`\*\*\s*:?\s*$")
_BULLET = re.compile(r"^\s{0,5}[-*]\s+(.+)$")


class GreptileParser(BotParser):
    name = "greptile"
    logins = frozenset({"greptile-apps", "greptile-apps-staging", "greptileai", "greptile"})
    markers = ("greptile", "<h3>confidence score:", "greptile_failed_comments")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        root = parse_tree(text)
        findings: list[Finding] = []
        for node in root.children():
            findings.extend(self._section(node, notes))
        findings.extend(_file_bullets(root.text()))
        return findings

    def _section(self, node: Node, notes: list[str]) -> list[Finding]:
        words = words_of(node.summary)
        if words.startswith("comments outside diff"):
            category = "outside_diff"
        elif words.startswith("additional comments"):
            category = "actionable"
        else:
            out: list[Finding] = []
            for child in node.children():
                out.extend(self._section(child, notes))
            return out
        items = _numbered_items(node.parts, category)
        declared = count_of(node.summary)
        if declared is not None and declared != len(items):
            notes.append(f"Greptile section '{clean_inline(node.summary)}' declares {declared} "
                         f"item(s); parsed {len(items)}")
        return items


def _numbered_items(parts: list[str | Node], category: str) -> list[Finding]:
    raw: list[dict] = []
    for part in parts:
        if isinstance(part, Node):
            if raw and "prompt" in words_of(part.summary):
                raw[-1]["prompt"] = strip_outer_fence(part.full_text())
            continue
        tracker = FenceTracker()
        for line in part.split("\n"):
            m = _NUMBERED.match(line) if tracker.feed(line) == "out" else None
            if m:
                start = int(m.group(2)) if m.group(2) else None
                end = int(m.group(3)) if m.group(3) else start
                raw.append({"path": m.group(1).strip(), "start": start, "end": end, "lines": [],
                            "prompt": None})
            elif raw:
                raw[-1]["lines"].append(line)
    return [_item(r, category) for r in raw]


def _item(r: dict, category: str) -> Finding:
    lines = dedent_block("\n".join(r["lines"])).split("\n")
    severity = None
    title = ""
    rest: list[str] = []
    for line in lines:
        s = line.strip()
        if title or not s:
            if title or rest:
                rest.append(line)
            continue
        b = _BADGE.search(s)
        if b:
            severity = (b.group(1) or b.group(2)).upper()
            s = _EMPTY_LINK.sub("", _BADGE.sub("", s)).strip()
            if not s:
                continue
        k = _KIND.match(s)
        if k:
            severity = severity or k.group(1).lower()
            s = s[k.end():]
        m = _BOLD.match(s)
        if m:
            title = m.group(1).strip()
            if m.group(2).strip():
                rest.append(m.group(2))
        else:
            title = first_sentence(s)
            rest.append(s)
    body_text, suggestion = split_suggestion("\n".join(rest))
    return make_finding(
        "greptile", title=title, body=body_text, file_path=r["path"],
        start_line=r["start"], end_line=r["end"], severity=severity, category=category,
        suggestion=suggestion, ai_prompt=r["prompt"],
    )


def _file_bullets(text: str) -> list[Finding]:
    out: list[Finding] = []
    path: str | None = None
    for line in text.split("\n"):
        f = _FILE_LINE.match(line)
        if f:
            path = f.group(1).strip()
            continue
        if path is None:
            continue
        b = _BULLET.match(line)
        if b:
            body = b.group(1).strip()
            k = _KIND.match(body)
            severity = k.group(1).lower() if k else None
            body = body[k.end():] if k else body
            out.append(make_finding("greptile", title=first_sentence(body), body=clean_inline(body),
                                    file_path=path, severity=severity, category="actionable"))
        elif line.strip() and not line.startswith((" ", "\t")):
            path = None
    return out


register(GreptileParser())
