"""Inline review comments of AI reviewers: the same finding fields as a review-body finding.

An AI reviewer's inline comment is one finding anchored to the thread's file and lines. Formats:

- CodeRabbit: a header line (``_⚠️ Potential issue_ | _🟠 Major_``), a bold title, prose, a committable
  suggestion and ``<details>`` blocks ("🤖 Prompt for AI Agents", "Proposed fix", "Analysis chain").
- Codex: ``**![P1 Badge](…) Title**`` then prose ("Useful? React with 👍 / 👎." ends it).
- Gemini: a priority badge image (``![high](…/high-priority.svg)``) then prose and a ```suggestion.
- Greptile: ``**logic:**``/``**style:**`` lead or a ``P1`` badge, prose, suggestion, "Prompt To Fix With AI".
- Copilot: prose with an optional ``[nitpick]`` tag or ``P1:`` lead and a ```suggestion.
- Cursor Bugbot: ``### Title`` then ``**High Severity**``.
- CodeAnt: ``Suggestion: …  [type error]`` then a ``Severity Level: Major ⚠️`` line (the severity).

Pure; never raises (an unparseable body yields a finding with only a title). A body no AI reviewer wrote
(detection by login, then unambiguous markup for unknown bot logins) yields ``None``: a human's inline
comment stays plain.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.coderabbit_items import RawItem, build_finding, parse_header
from pr_agent.review.bots.generic import has_finding_shape, severity_lead
from pr_agent.review.bots.markup import (
    Node,
    clean_inline,
    first_sentence,
    normalize_text,
    parse_tree,
    remove_html_comments,
    split_suggestion,
    strip_outer_fence,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding, normalize_severity
from pr_agent.review.bots.registry import detect_bot, looks_like_bot_login

_GEMINI_BADGE = re.compile(
    r"!\[((?:security-)?(?:critical|high|medium|low))\]\([^()\s]{1,300}\)"
    r"|<img\b[^<>]{0,300}codereviewagent/((?:security-)?(?:critical|high|medium|low))[a-z-]{0,20}\.svg[^<>]{0,200}>",
    re.IGNORECASE)
_P_BADGE = re.compile(r"!\[(P[0-3])(?: Badge)?\]\([^()\s]{1,300}\)"
                      r"|<img\b[^<>]{0,200}alt=[\"'](P[0-3])[\"'][^<>]{0,300}>"
                      r"|^\s*\**\s*(P[0-3])\s*\**\s*(?::|$)", re.IGNORECASE | re.MULTILINE)
_P_LEVEL = {"P0": "critical", "P1": "major", "P2": "minor", "P3": "trivial"}
_GREPTILE_KIND = re.compile(r"^\s*\**\s*(logic|style|syntax|security|performance)\s*:\s*\**\s*", re.IGNORECASE)
_BOLD_TITLE = re.compile(r"^\s*\*\*(?:<sub>)*\s*(.{2,400}?)\s*(?:</sub>)*\*\*\s*(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,4}\s+(\S.{0,300})$")
_CURSOR_SEV = re.compile(r"\*\*\s*(Critical|High|Medium|Low)\s+Severity\s*\*\*", re.IGNORECASE)
_NITPICK = re.compile(r"^\s*\[nitpick\]\s*", re.IGNORECASE)
_SEV_LINE = re.compile(r"^[ \t]*(?:<[^<>\n]{1,40}>[ \t]*)*\**[ \t]*Severity Level:?[ \t]*\**[ \t]*"
                       r"(?:</?[a-z]{1,10}>[ \t]*)*"
                       r"(Critical|Major|Minor|Trivial|High|Medium|Low)\b[^\n]*$", re.IGNORECASE | re.MULTILINE)
_SUGGESTION_LEAD = re.compile(r"^\s*\**\s*Suggestion:\s*\**\s*", re.IGNORECASE)
_TAIL = re.compile(r"^\s*(?:useful\? react with|<sub>|\[!\[|fix in cursor|was this helpful)", re.IGNORECASE)


def parse_inline_comment(body: str, author: str | None, *, path: str | None, start: int | None,
                         end: int | None) -> Finding | None:
    try:
        bot = detect_bot(author, body or "")
        if not (body or "").strip():
            return None
        if bot is None:
            # an AI reviewer we cannot name: its comment is read only when it has a finding's shape
            if not looks_like_bot_login(author) or not has_finding_shape(normalize_text(body)):
                return None
            bot = "generic"
        text = normalize_text(body)
        if bot == "coderabbit":
            return _coderabbit(text, path, start, end)
        return _generic(bot, text, path, start, end)
    except Exception:  # a parser bug never takes the listing down: the thread stays plain
        return None


def _coderabbit(text: str, path: str | None, start: int | None, end: int | None) -> Finding:
    root = parse_tree(text)
    raw = RawItem(start, end, root.text().split("\n"), root.children())
    first = next((ln for ln in raw.lines if ln.strip()), "")
    header = parse_header(first)
    kind = words_of(header.kind or "") if header else ""
    category = "nitpick" if "nitpick" in kind else "actionable"
    return build_finding(raw, path=path, category=category)  # a praise-only nitpick comes back as lgtm


def _prompt(nodes: list[Node]) -> str | None:
    for node in nodes:
        if "prompt" in words_of(node.summary):
            return strip_outer_fence(node.full_text()).strip() or None
    return None


def _generic(bot: str, text: str, path: str | None, start: int | None, end: int | None) -> Finding:
    root = parse_tree(text)
    ai_prompt = _prompt(root.children())
    lines = remove_html_comments(root.text()).split("\n")
    while lines and (not lines[-1].strip() or _TAIL.match(lines[-1])):
        lines.pop()
    severity: str | None = None
    level: str | None = None
    category = "actionable"
    title = ""
    joined = "\n".join(lines)
    if m := _GEMINI_BADGE.search(joined):
        severity = (m.group(1) or m.group(2)).lower()
        joined = _GEMINI_BADGE.sub("", joined, count=1)
    elif m := _P_BADGE.search(joined):
        severity = (m.group(1) or m.group(2) or m.group(3)).upper()
        level = _P_LEVEL.get(severity)
        joined = joined[:m.start()] + joined[m.end():]
    if m := _SEV_LINE.search(joined):
        severity = severity or m.group(1).title()
        joined = joined[:m.start()] + joined[m.end():]
    if m := _CURSOR_SEV.search(joined):
        severity = severity or f"{m.group(1).title()} Severity"
        joined = joined[:m.start()] + joined[m.end():]
    body_lines = joined.split("\n")
    while body_lines and not body_lines[0].strip():
        body_lines.pop(0)
    if body_lines and severity is None and bot == "generic":
        severity, level, body_lines[0] = severity_lead(body_lines[0])  # "💡 **MEDIUM**: text"
    if body_lines:
        head = body_lines[0]
        if km := _GREPTILE_KIND.match(head):
            severity = severity or km.group(1).lower()
            body_lines[0] = head[km.end():]
            head = body_lines[0]
        if bot == "codeant" and _SUGGESTION_LEAD.match(head):
            body_lines[0] = _SUGGESTION_LEAD.sub("", head)
        elif _NITPICK.match(head):
            category = "nitpick"
            body_lines[0] = _NITPICK.sub("", head)
        elif hm := _HEADING.match(head):
            title = clean_inline(hm.group(1))
            body_lines = body_lines[1:]
        elif (bm := _BOLD_TITLE.match(head)) and len(bm.group(1)) < 200:
            title = clean_inline(bm.group(1)).strip(" :")
            body_lines = [bm.group(2), *body_lines[1:]] if bm.group(2).strip() else body_lines[1:]
    body, suggestion = split_suggestion("\n".join(body_lines).strip())
    if suggestion is None:
        for node in root.children():
            if any(w in words_of(node.summary) for w in ("suggest", "fix", "diff")) and "prompt" not in \
                    words_of(node.summary):
                _, suggestion = split_suggestion(node.full_text())
                if suggestion:
                    break
    title = title or first_sentence(body) or clean_inline(body)[:120]
    if level is None and severity:
        level = normalize_severity(severity)
    if category == "nitpick" and level is None:
        level = "trivial"
    return make_finding(bot, title=title, body=body, file_path=path, start_line=start, end_line=end,
                        severity=severity, severity_level=level, category=category, suggestion=suggestion,
                        ai_prompt=ai_prompt)
