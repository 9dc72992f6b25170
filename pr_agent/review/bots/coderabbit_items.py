"""CodeRabbit: one finding from the lines and <details> blocks under a line-range locator.

A finding inside a review-body section looks like (any of four header vintages)::

    `10-12`: _⚠️ Potential issue_ | _🟠 Major_ | _⚡ Quick win_      (or a bare `**Title.**`)

    **Title.**

    Prose… optional ```diff fences…
    <details><summary>Proposed fix</summary> ```diff … ``` </details>
    <details><summary>🤖 Prompt for AI Agents</summary> ``` … ``` </details>

Locators come in three shapes: `` `10-12`: ``, bare ``62-75:`` ("Comments failed to post") and
``Line range hint `4-15`:`` (2024).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from pr_agent.review.bots.markup import (
    FenceTracker,
    Node,
    dedent_block,
    first_sentence,
    remove_html_comments,
    split_fences,
    strip_outer_fence,
    tidy_block,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding, normalize_severity

LOCATOR = re.compile(
    r"^[ \t]{0,3}(?:Line range hint[ \t]+)?"
    r"(?:`[ \t]*(\d{1,7})(?:[ \t]*-[ \t]*(\d{1,7}))?[ \t]*`|(\d{1,7})(?:-(\d{1,7}))?)"
    r"[ \t]*:(?:[ \t]+(.*))?$"
)

SEVERITY_WORDS = frozenset({"critical", "major", "minor", "trivial", "info", "nit"})
TYPE_WORDS = frozenset({
    "potential issue", "refactor suggestion", "nitpick", "verification agent", "caution",
    "functional correctness", "security & privacy", "maintainability & code quality",
    "performance & scalability", "stability & availability", "data integrity & integration",
    "analyzed with security review", "documentation", "testing", "best practice",
})
EFFORT_WORDS = frozenset({"quick win", "low value", "heavy lift", "poor tradeoff"})
_FIELD = re.compile(r"^\*{0,2}_(.{1,120})_\*{0,2}$")
_BOLD_TITLE = re.compile(r"^\*\*(.{1,400}?)\*\*(.*)$")
_FIX_WORDS = ("fix", "suggest", "propos", "diff", "refactor", "helper", "optional", "cleanup",
              "alternative", "patch", "change", "committable", "direction", "example", "harden",
              "修正", "提案", "改善")  # Japanese reviews title their diffs "📝 修正案", "✏️ 提案修正", "改善案"


@dataclass
class RawItem:
    start: int | None
    end: int | None
    lines: list[str] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)


@dataclass
class Header:
    severity: str | None = None
    kind: str | None = None
    effort: str | None = None


def split_items(parts: list[str | Node]) -> tuple[list[RawItem], list[str]]:
    """Cut a file section's content into items at locator lines (outside code fences).

    Returns the items and the text lines seen before the first locator.
    """
    items: list[RawItem] = []
    lead: list[str] = []
    for part in parts:
        if isinstance(part, Node):
            if items:
                items[-1].nodes.append(part)
            continue
        tracker = FenceTracker()
        for line in part.split("\n"):
            state = tracker.feed(line)
            m = LOCATOR.match(line) if state == "out" else None
            if m:
                start = int(m.group(1) or m.group(3))
                end_s = m.group(2) or m.group(4)
                items.append(RawItem(start, int(end_s) if end_s else start, [m.group(5) or ""]))
            elif items:
                items[-1].lines.append(line)
            else:
                lead.append(line)
    return items, lead


def parse_header(line: str) -> Header | None:
    """Read ``_⚠️ Potential issue_ | _🟠 Major_ | _⚡ Quick win_`` (1–5 fields, any order)."""
    parts = [p.strip() for p in line.strip().split("|")]
    if not parts or len(parts) > 5:
        return None
    head = Header()
    recognised = False
    for part in parts:
        m = _FIELD.match(part)
        if not m:
            return None
        raw = " ".join(html.unescape(m.group(1)).strip(" _*").split())
        words = words_of(raw)
        if words in SEVERITY_WORDS or (_has_dot(raw) and normalize_severity(raw) is not None):
            head.severity = head.severity or raw
            recognised = True
        elif words in EFFORT_WORDS:
            head.effort = raw
            recognised = True
        elif words in TYPE_WORDS or (raw and not raw[0].isascii()):
            head.kind = head.kind or raw
            recognised = True
    return head if recognised else None


def _has_dot(raw: str) -> bool:
    return any(ch in raw for ch in "🔴🟠🟡🔵⚪")


def _clean_lines(lines: list[str]) -> list[str]:
    """HTML comments removed outside code fences (a diff may legitimately contain ``<!-- … -->``)."""
    out: list[str] = []
    chunk: list[str] = []
    tracker = FenceTracker()
    for line in lines:
        if tracker.feed(line) == "out":
            chunk.append(line)
            continue
        if chunk:
            out.extend(remove_html_comments("\n".join(chunk)).split("\n"))
            chunk = []
        out.append(line)
    if chunk:
        out.extend(remove_html_comments("\n".join(chunk)).split("\n"))
    return out


def _title_and_rest(lines: list[str]) -> tuple[Header | None, str, list[str]]:
    """Header, bold title and the remaining lines of an item."""
    idx = 0
    n = len(lines)
    header: Header | None = None
    while idx < n and not lines[idx].strip():
        idx += 1
    if idx < n:
        header = parse_header(lines[idx])
        if header is not None:
            idx += 1
            while idx < n and not lines[idx].strip():
                idx += 1
    if idx < n:
        first = lines[idx].strip()
        m = _BOLD_TITLE.match(first)
        if m:
            rest = m.group(2).strip()
            remaining = ([rest] if rest else []) + lines[idx + 1:]
            return header, m.group(1).strip(), remaining
        if first.startswith("**") and "**" not in first[2:]:
            # a bold title wrapped over a few lines
            for j in range(idx + 1, min(idx + 4, n)):
                if "**" in lines[j]:
                    head, _, tail = lines[j].partition("**")
                    title = " ".join([first[2:], *(ln.strip() for ln in lines[idx + 1:j]), head.strip()])
                    return header, title.strip(), ([tail] if tail.strip() else []) + lines[j + 1:]
    return header, "", lines[idx:]


def _strip_trailing_rules(text: str) -> str:
    lines = text.split("\n")
    while lines and (not lines[-1].strip() or set(lines[-1].strip()) <= {"-", "*", "_"}):
        lines.pop()
    return "\n".join(lines)


def _fence_candidates(text: str, langs: tuple[str, ...] | None) -> str | None:
    for kind, content in split_fences(text):
        if not kind.startswith("fence:"):
            continue
        lang = kind[6:]
        if langs is None or lang in langs:
            return content.strip("\n")
    return None


_ASKS = ("consider", "should", "could", "instead", "missing", "fix", "avoid", "please", "but ", "however",
         "recommend", "suggest", "prefer", "may want", "might")


def is_praise(title: str, body: str) -> bool:
    """A note that only approves (``LGTM!``, ``Looks good``, ``Nice …``) and asks for no change."""
    words = words_of(title or body)
    text = f" {words_of(title)} {words_of(body)} "
    return (words.startswith(("lgtm", "looks good", "nice ", "great ", "good catch", "well done"))
            and not any(a in text for a in _ASKS))


def build_finding(
    raw: RawItem,
    *,
    path: str | None,
    category: str,
    default_severity: str | None = None,
    title_hint: str | None = None,
) -> Finding:
    lines = _clean_lines(raw.lines)
    header, title, rest = _title_and_rest(lines)
    # The body: prose and fences; a ```suggestion/```diff fence becomes the suggestion.
    suggestion: str | None = None
    body_parts: list[str] = []
    for kind, content in split_fences(dedent_block("\n".join(rest))):
        if kind == "text":
            body_parts.append(content)
            continue
        lang = kind[6:]
        if suggestion is None and lang in ("suggestion", "diff"):
            suggestion = content.strip("\n")
            continue
        body_parts.append(f"```{lang}\n{content}\n```")
    body = _strip_trailing_rules(tidy_block("\n".join(body_parts)))
    ai_prompt: str | None = None
    node_fix: str | None = None
    for node in raw.nodes:
        words = words_of(node.summary)
        if "prompt for ai agents" in words or "prompt for ai agent" in words:
            ai_prompt = ai_prompt or strip_outer_fence(node.full_text())
        elif any(w in words for w in _FIX_WORDS):
            node_fix = node_fix or _fence_candidates(node.full_text(), None)
    if suggestion is None:
        suggestion = node_fix
    if not title:
        title = title_hint or first_sentence(body)
    title = html.unescape(title).strip()
    kind = header.kind if header else None
    sev_raw = header.severity if header else None
    severity = sev_raw or kind or default_severity
    level = normalize_severity(sev_raw) if sev_raw else None
    if level is None and default_severity:
        level = normalize_severity(default_severity)
    if level is None and kind:
        level = normalize_severity(kind)
    if category == "combined":
        category = "nitpick" if kind and "nitpick" in words_of(kind) else "outside_diff"
    if category == "additional" and words_of(title).startswith(("lgtm", "looks good")):
        category = "lgtm"
    if category == "nitpick" and is_praise(title, body):
        category = "lgtm"  # "LGTM!" / "Nice cleanup" under a nitpick heading asks for nothing
    if level is None:
        level = {"nitpick": "trivial", "additional": "info", "lgtm": "info"}.get(category)
    return make_finding(
        "coderabbit",
        title=title,
        body=body,
        file_path=path,
        start_line=raw.start,
        end_line=raw.end,
        severity=severity,
        severity_level=level,
        category=category,
        suggestion=suggestion,
        ai_prompt=ai_prompt,
    )
