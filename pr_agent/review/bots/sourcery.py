"""Sourcery review bodies.

* Overall/high-level comments: bullets under "## Overall Comments", "**Overall Comments**:",
  "**General comments**:" or a "…high level feedback:" line → ``general`` findings (no file).
* Individual comments: ``### Comment N`` sections with ``<location> `path:12-14` </location>``
  (or ``<location path="…" line_range="…" />``), ``<code_context>`` and
  ``<issue_to_address>**issue (bug_risk):** Title …</issue_to_address>``.

The "Prompt for AI Agents" block repeats the comments for agents: it is not parsed for findings
(those comments are inline threads), but each individual comment's prompt text is attached as its
``ai_prompt``.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.locations import path_and_lines
from pr_agent.review.bots.markup import (
    clean_inline,
    first_sentence,
    parse_tree,
    remove_html_comments,
    split_suggestion,
    strip_outer_fence,
    tidy_block,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_COMMENT_HEAD = re.compile(r"^#{2,4}\s*Comment\s+(\d{1,4})\s*$", re.IGNORECASE)
_LOC_OLD = re.compile(r"<location>([^<>\n]{1,500})</location>", re.IGNORECASE)
_LOC_NEW = re.compile(
    r"""<location\s+path=["']([^"'<>\n]{1,500})["'](?:\s+line_range=["']([^"'<>\n]{0,40})["'])?\s*/?>""",
    re.IGNORECASE,
)
_ISSUE_OPEN = "<issue_to_address>"
_ISSUE_CLOSE = "</issue_to_address>"
_TYPE_LINE = re.compile(r"^\s*\*\*\s*([^*:\n]{1,80}?)\s*:\s*\*\*\s*(.*)$")
_OVERALL = re.compile(
    r"^\s{0,3}(?:#{1,4}\s*|\*\*)?(?:overall comments?|general comments?|high[- ]level feedback)\b",
    re.IGNORECASE,
)
_FEEDBACK_INTRO = re.compile(r"high[- ]level feedback\s*:?\s*$|overall comments?\s*:?\s*\**\s*:?\s*$",
                             re.IGNORECASE)
_BULLET = re.compile(r"^\s{0,3}[-*]\s+(.+)$")
_SECTION = re.compile(r"^\s{0,3}(?:#{1,4}\s|\*\*[^*]{1,60}\*\*\s*:?\s*$|\*{3,}\s*$|-{3,}\s*$)")


class SourceryParser(BotParser):
    name = "sourcery"
    logins = frozenset({"sourcery-ai", "sourcery-ai-experiments", "sourcery"})
    markers = ("<issue_to_address>", "sourcery.ai", "sourcery is free for open source",
               "i've reviewed your changes")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        root = parse_tree(text)
        prompts: dict[str, str] = {}
        for node in root.children():
            if words_of(node.summary).startswith("prompt for ai agents"):
                prompts = _prompt_sections(strip_outer_fence(node.full_text()))
        outside = root.text()
        findings = _overall(outside)
        findings.extend(_individual(outside, prompts, notes))
        return findings


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """``### Comment N`` sections: (N, lines)."""
    out: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        m = _COMMENT_HEAD.match(line.strip())
        if m:
            out.append((m.group(1), []))
        elif out:
            out[-1][1].append(line)
    return out


def _prompt_sections(text: str) -> dict[str, str]:
    return {num: tidy_block("\n".join(lines)) for num, lines in _sections(text)}


def _overall(text: str) -> list[Finding]:
    out: list[Finding] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not (_OVERALL.match(line) or _FEEDBACK_INTRO.search(line)):
            i += 1
            continue
        i += 1
        bullets: list[list[str]] = []
        while i < len(lines):
            cur = lines[i]
            b = _BULLET.match(cur)
            if b:
                bullets.append([b.group(1)])
            elif cur.strip() and bullets and cur.startswith((" ", "\t")):
                bullets[-1].append(cur.strip())
            elif cur.strip() and (bullets or _SECTION.match(cur)):
                break
            i += 1
        for bullet in bullets:
            body = " ".join(bullet).strip()
            out.append(make_finding("sourcery", title=first_sentence(body), body=body,
                                    category="general"))
    return out


def _individual(text: str, prompts: dict[str, str], notes: list[str]) -> list[Finding]:
    out: list[Finding] = []
    for num, lines in _sections(text):
        chunk = "\n".join(lines)
        path, start, end = _location(chunk)
        i = chunk.find(_ISSUE_OPEN)
        if i < 0:
            notes.append(f"Sourcery comment {num}: no <issue_to_address> block; not parsed")
            continue
        j = chunk.find(_ISSUE_CLOSE, i)
        issue = chunk[i + len(_ISSUE_OPEN): j if j >= 0 else len(chunk)]
        out.append(_issue_finding(issue, path, start, end, prompts.get(num)))
    return out


def _location(chunk: str) -> tuple[str | None, int | None, int | None]:
    m = _LOC_NEW.search(chunk)
    if m:
        path = m.group(1).strip()
        if m.group(2):
            _, start, end = path_and_lines(f"x:{m.group(2).strip()}")
            return path, start, end
        return path, None, None
    m = _LOC_OLD.search(chunk)
    if m:
        raw = m.group(1).strip().strip("`").strip()
        path, start, end = path_and_lines(raw)
        return (path, start, end) if path else (raw or None, None, None)
    return None, None, None


def _issue_finding(issue: str, path: str | None, start: int | None, end: int | None,
                   prompt: str | None) -> Finding:
    lines = remove_html_comments(issue).strip("\n").split("\n")
    severity = None
    title = ""
    if lines:
        m = _TYPE_LINE.match(lines[0])
        if m:
            severity = clean_inline(m.group(1)).strip(" 🚨")
            title = m.group(2).strip()
            lines = lines[1:]
    body_text, suggestion = split_suggestion("\n".join(lines))
    body = body_text
    kind_word = (severity or "").split("(")[0].strip().lower()
    category = {"nitpick": "nitpick", "praise": "lgtm"}.get(kind_word, "actionable")
    return make_finding(
        "sourcery", title=title or first_sentence(body), body=body, file_path=path,
        start_line=start, end_line=end, severity=severity, category=category,
        suggestion=suggestion, ai_prompt=prompt,
    )


register(SourceryParser())
