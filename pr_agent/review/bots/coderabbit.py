"""CodeRabbit review bodies: nitpick / outside-diff / duplicate / minor / additional sections.

Section ("tier") layouts handled, oldest to newest:

* ``<details><summary>🧹 Nitpick comments (N)</summary><blockquote>`` holding per-file
  ``<details><summary>path (N)</summary>`` blocks with locator-led items;
* the same inside ``> [!CAUTION]`` alerts with every line quoted (nested ``> > `` too);
* ``**⚠️ Outside diff range comments (N)**`` as a bold line followed by one
  ``<details><summary><em>🟡 Minor</em> · Title · <code>path:10-12</code></summary>`` per item;
* 2024 combined title "Outside diff range, codebase verification and nitpick comments";
* ``🔇 Additional comments`` (LGTM notes) nested inside ``📜 Review details``.

Walkthrough/summary comments and housekeeping sections yield nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pr_agent.review.bots.coderabbit_items import LOCATOR, RawItem, build_finding, split_items
from pr_agent.review.bots.locations import path_and_lines
from pr_agent.review.bots.markup import (
    FenceTracker,
    Node,
    clean_inline,
    count_of,
    parse_tree,
    unquote_alert_blocks,
    words_of,
)
from pr_agent.review.bots.model import Finding
from pr_agent.review.bots.registry import BotParser, register

_TIERS: tuple[tuple[str, str], ...] = (
    ("outside diff range codebase verification and nitpick comments", "combined"),
    ("nitpick comments", "nitpick"),
    ("additional comments not posted", "additional"),
    ("additional comments skipped", "additional"),
    ("additional comments", "additional"),
    ("duplicate comments", "duplicate"),
    ("outside diff range comments", "outside_diff"),
    ("outside diff comments", "outside_diff"),
    ("comments failed to post", "actionable"),
    ("critical comments", "actionable"),
    ("major comments", "actionable"),
    ("minor comments", "actionable"),
    ("trivial comments", "nitpick"),
    ("actionable comments", "actionable"),
)
_TIER_SEVERITY = {"critical comments": "🔴 Critical", "major comments": "🟠 Major",
                  "minor comments": "🟡 Minor", "trivial comments": "🔵 Trivial"}
# Sections that never hold findings; their subtrees are not searched.
_SKIP_PREFIXES = (
    "prompt for all review comments", "prompt for ai agents", "review info", "run configuration",
    "commits", "files ignored", "files selected", "files skipped", "files with no reviewable",
    "files that changed", "additional context used", "code graph analysis", "learnings",
    "path-based instructions", "path based instructions", "context from checks skipped",
    "autofix", "tips", "finishing touches", "generate docstrings", "generate unit tests",
    "pre-merge checks", "analysis chain", "script executed", "web query", "walkthrough",
    "sequence diagram", "changes", "poem", "configuration used", "review profile",
    "committable suggestion", "proposed fix", "suggested fix", "📝 committable",
)
_BOLD_LINE = re.compile(r"^\*\*(.{3,200}?)\*\*\s*$")
_V3_CODE = re.compile(r"<code>([^<>]{1,500})</code>\s*$")
_PATH_WITH_RANGE = re.compile(r"^(\S{1,500}\.[A-Za-z0-9]{1,10})-\d{1,7}-\d{1,7}$")
_V3_EM = re.compile(r"<em>([^<>]{1,80})</em>")


def tier_of(summary: str) -> tuple[str, str] | None:
    """(category, tier words) for a section title, or None when it is not a findings tier."""
    words = words_of(summary)
    for title, category in _TIERS:
        if words == title or words.startswith(title + " ") or words.endswith(" " + title):
            return category, title
    return None


def _is_skip(summary: str) -> bool:
    words = words_of(summary)
    return any(words.startswith(p) for p in _SKIP_PREFIXES)


def _is_v3_item(summary: str) -> bool:
    return "·" in summary and _V3_CODE.search(summary) is not None


@dataclass
class _Tier:
    label: str
    category: str
    declared: int | None
    found: int = 0


class CodeRabbitParser(BotParser):
    name = "coderabbit"
    logins = frozenset({"coderabbitai", "coderabbit", "coderabbit-ai"})
    markers = (
        "auto-generated comment by coderabbit", "auto-generated comment: summarize by coderabbit",
        "actionable comments posted:", "coderabbit.ai", "<!-- walkthrough_start -->",
        "prompt for all review comments with ai agents", "cr-comment:v1:",
    )

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        text, repairs = neutralize_stray_fences(unquote_alert_blocks(text))
        if repairs:
            notes.append(f"CodeRabbit: {repairs} unterminated code fence(s) ran into the next file block; "
                         "the stray fence line was ignored so the items after it are still read")
        root = parse_tree(text)
        findings: list[Finding] = []
        bold_tier: _Tier | None = None
        bold_tiers: list[_Tier] = []
        for part in _walk(root):
            if isinstance(part, str):
                for line in part.split("\n"):
                    m = _BOLD_LINE.match(line.strip())
                    hit = tier_of(m.group(1)) if m else None
                    if m and hit:
                        bold_tier = _Tier(clean_inline(m.group(1)), hit[0], count_of(m.group(1)))
                        bold_tiers.append(bold_tier)
                continue
            node = part
            hit = tier_of(node.summary)
            if hit:
                findings.extend(self._tier(node, hit, notes))
            elif _is_v3_item(node.summary):
                tier = bold_tier or _Tier("(no section)", "actionable", None)
                findings.extend(_v3_item(node, tier.category))
                tier.found += 1
            else:
                _note_stray(node, notes)
        for tier in bold_tiers:
            _check_count(tier.label, tier.declared, tier.found, notes)
        _note_requests_in_additional(findings, notes)
        return findings

    def _tier(self, node: Node, hit: tuple[str, str], notes: list[str]) -> list[Finding]:
        category, words = hit
        label = clean_inline(node.summary)
        default_sev = _TIER_SEVERITY.get(words)
        found: list[Finding] = []
        items, _lead = split_items([p for p in node.parts if isinstance(p, str)])
        if items:  # locators directly under the tier (no per-file blocks)
            notes.append(f"CodeRabbit section '{label}': {len(items)} item(s) without a file block")
            found.extend(build_finding(r, path=None, category=category,
                                       default_severity=default_sev) for r in items)
        for child in node.children():
            if _is_v3_item(child.summary):
                found.extend(_v3_item(child, category))
                continue
            file_items, _ = split_items(child.parts)
            if not file_items:
                if count_of(child.summary) and not _is_skip(child.summary):
                    notes.append(f"CodeRabbit section '{label}' → '{clean_inline(child.summary)}': "
                                 "no line-range items could be read")
                continue
            path = _file_path(child.summary)
            for raw in file_items:
                found.append(build_finding(raw, path=path, category=category,
                                           default_severity=default_sev))
            _check_count(f"{label} → {path}", count_of(child.summary), len(file_items), notes)
        _check_count(label, count_of(node.summary), len(found), notes)
        return found


def _walk(root: Node) -> Iterator[str | Node]:
    """Text parts and <details> nodes in document order, without entering tiers or skip sections.

    A yielded node that is a tier or an item is not descended into; others are.
    """
    stack: list[Iterator[str | Node]] = [iter(root.parts)]
    while stack:
        part = next(stack[-1], None)
        if part is None:
            stack.pop()
            continue
        yield part
        if isinstance(part, Node) and not (
            tier_of(part.summary) or _is_v3_item(part.summary) or _is_skip(part.summary)
        ):
            stack.append(iter(part.parts))


def _file_path(summary: str) -> str | None:
    text = clean_inline(summary)
    text = re.sub(r"\s*\(\d{1,6}\)\s*$", "", text).strip().strip("`").strip()
    ranged = _PATH_WITH_RANGE.match(text)  # "src/file.ts-10-12 (1)" in some Minor/Nitpick tiers
    return (ranged.group(1) if ranged else text) or None


def _v3_item(node: Node, category: str) -> list[Finding]:
    """``<summary><em>🟡 Minor</em> · Title · <code>path:10-12</code></summary>`` plus content."""
    m = _V3_CODE.search(node.summary)
    path, start, end = path_and_lines(m.group(1)) if m else (None, None, None)
    if path is None and m:
        path = clean_inline(m.group(1)) or None
    em = _V3_EM.search(node.summary)
    severity = clean_inline(em.group(1)) if em else None
    pieces = [clean_inline(p) for p in node.summary.split("·")]
    title_hint = pieces[1] if len(pieces) >= 3 else None
    items, lead = split_items(node.parts)
    if not items:
        items = [RawItem(start, end, lead, node.children())]
    out = []
    for raw in items:
        raw.start = raw.start if raw.start is not None else start
        raw.end = raw.end if raw.end is not None else end
        out.append(build_finding(raw, path=path, category=category, default_severity=severity,
                                 title_hint=title_hint))
    return out


# CodeRabbit closes every file block with this exact line; it never occurs inside a fence it wrote.
_BLOCK_END = "</blockquote></details>"
_MAX_FENCE_REPAIRS = 20


def neutralize_stray_fences(text: str) -> tuple[str, int]:
    """Blank the opener of a code fence that swallows a ``</blockquote></details>`` line.

    CodeRabbit sometimes emits a bare extra fence after a ````` ````diff ````` block (a real 2026
    body does), which opens a fence that runs into the next file block and hides its item. The
    opener is blanked (for parsing only) and the scan resumes after it; at most
    ``_MAX_FENCE_REPAIRS`` repairs keep this linear.
    """
    if _BLOCK_END not in text:
        return text, 0
    lines = text.split("\n")
    repairs = 0
    i = 0
    opener = -1
    tracker = FenceTracker()
    while i < len(lines):
        state = tracker.feed(lines[i])
        if state == "open":
            opener = i
        elif (state == "in" and repairs < _MAX_FENCE_REPAIRS and opener >= 0
              and lines[i].strip() == _BLOCK_END):
            lines[opener] = ""
            repairs += 1
            i, opener, tracker = opener + 1, -1, FenceTracker()
            continue
        i += 1
    return ("\n".join(lines), repairs) if repairs else (text, 0)


_REQUEST_START = re.compile(
    r"^(?:remove|fix|add|replace|use|avoid|ensure|update|rename|delete|move|confirm|verify|consider|"
    r"handle|guard|drop|pin|document)\b",
    re.IGNORECASE,
)


def _note_requests_in_additional(findings: list[Finding], notes: list[str]) -> None:
    """An "additional" (non-actionable) item that proposes a change is ambiguous: say so."""
    for f in findings:
        if f.category != "additional":
            continue
        if f.suggestion or _REQUEST_START.match(f.title.lstrip("`*_ ")):
            where = f"{f.file_path}:{f.start_line}-{f.end_line}" if f.file_path else "(no file)"
            notes.append(f"CodeRabbit additional comment '{f.title[:80]}' ({where}) reads like a request; "
                         "kept as non-actionable as the bot filed it")


def _note_stray(node: Node, notes: list[str]) -> None:
    """A section we do not know that nevertheless holds locator-led lines: say so."""
    if _is_skip(node.summary) or count_of(node.summary) is None:
        return
    own = node.text()
    if any(LOCATOR.match(ln) and ln.lstrip().startswith(("`", "Line range")) for ln in own.split("\n")):
        notes.append(f"CodeRabbit section '{clean_inline(node.summary)}' looks like findings "
                     "but is not a known section; not parsed")


def _check_count(label: str, declared: int | None, found: int, notes: list[str]) -> None:
    if declared is not None and declared != found:
        notes.append(f"CodeRabbit section '{label}' declares {declared} item(s); parsed {found}")


register(CodeRabbitParser())
