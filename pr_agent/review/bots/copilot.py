"""GitHub Copilot code review bodies.

The "Pull request overview" / "Copilot review overview" summary yields nothing (its inline comments
are threads). What lives only in the body:

* ``<details><summary>Comments suppressed due to low confidence (N)</summary>`` (also
  ``Suppressed comments (N)``, as a summary or a ``###`` heading) with ``**path:12**`` (or
  ``:12-14``) lines, each followed by ``* finding`` prose and often a context fence;
* the v2 overview's ``Previously missed (N)`` section: one ``<details>`` per finding whose summary
  is a severity badge (``<img alt="Medium">``) plus a title, and whose content starts with
  `` `path:line` ``.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.locations import path_and_lines
from pr_agent.review.bots.markup import (
    FenceTracker,
    Node,
    clean_inline,
    count_of,
    first_sentence,
    parse_tree,
    split_fences,
    tidy_block,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_LOCATION = re.compile(r"^\s{0,3}\*\*([^*\n]{1,400}?):(\d{1,7})(?:\s*-\s*(\d{1,7}))?\*\*\s*$")
_SUPPRESSED_HEADING = re.compile(
    r"^#{2,4}\s*(?:suppressed comments|comments suppressed due to low confidence)\s*\((\d{1,5})\)\s*$",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^#{1,6}\s")
# Only real markup is dropped from finding text: "a new workspace under <path to be created>" is prose.
_HTML_TAG = re.compile(
    r"</?(?:details|summary|blockquote|br|p|div|sub|sup|img|picture|source|a|em|strong|b|i)\b[^<>\n]{0,300}>",
    re.IGNORECASE,
)
_ALT = re.compile(r"""alt=["']([A-Za-z ]{1,30})["']""")
_NITPICK_TAG = re.compile(r"^\[nitpick\]\s*", re.IGNORECASE)
# Repositories' custom instructions often make Copilot lead with a priority: "P1: …", "P1 (xref): …".
_PRIORITY_LEAD = re.compile(r"^(P[0-3])(?:[ \t]*\([^()\n]{1,40}\))?[ \t]*:[ \t]*")
_PRIORITY_LEVEL = {"P0": "critical", "P1": "major", "P2": "minor", "P3": "trivial"}


def _is_suppressed(summary: str) -> bool:
    words = words_of(summary)
    return words.startswith(("comments suppressed due to low confidence", "suppressed comments"))


class CopilotParser(BotParser):
    name = "copilot"
    logins = frozenset({"copilot-pull-request-reviewer", "copilot", "github-copilot"})
    markers = (
        "<!-- ccr-overview", "copilot reviewed ", "comments suppressed due to low confidence",
        "## copilot review overview", "add copilot custom instructions",
        "copilot-code-review/", "copilot was unable to run its full agentic suite",
    )

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        root = parse_tree(text)
        findings: list[Finding] = []
        stack: list[Node] = [root]
        while stack:
            node = stack.pop()
            if node is not root and _is_suppressed(node.summary):
                items = _suppressed_items(node.full_text())
                findings.extend(items)
                _check(clean_inline(node.summary), count_of(node.summary), len(items), notes)
                continue
            if node is not root and words_of(node.summary).startswith("previously missed"):
                items = [f for child in node.children() if (f := _missed_item(child)) is not None]
                findings.extend(items)
                _check(clean_inline(node.summary), count_of(node.summary), len(items), notes)
                continue
            findings.extend(self._heading_sections(node.text(), notes))
            stack.extend(reversed(node.children()))
        return findings

    def _heading_sections(self, text: str, notes: list[str]) -> list[Finding]:
        """``### Suppressed comments (N)`` headings inside a node's own text."""
        out: list[Finding] = []
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            m = _SUPPRESSED_HEADING.match(lines[i].strip())
            if not m:
                i += 1
                continue
            j = i + 1
            while j < len(lines) and not _HEADING.match(lines[j]):
                j += 1
            items = _suppressed_items("\n".join(lines[i + 1:j]))
            out.extend(items)
            _check(lines[i].strip("# "), int(m.group(1)), len(items), notes)
            i = j
        return out


def _suppressed_items(text: str) -> list[Finding]:
    items: list[tuple[str, int, int, list[str]]] = []
    tracker = FenceTracker()
    for line in text.split("\n"):
        state = tracker.feed(line)
        m = _LOCATION.match(line) if state == "out" else None
        if m:
            start = int(m.group(2))
            end = int(m.group(3)) if m.group(3) else start
            items.append((m.group(1).strip().strip("`"), start, end, []))
        elif items:
            items[-1][3].append(line)
    out = []
    for path, start, end, lines in items:
        body, suggestion = _body_and_suggestion(lines)
        lead = _first_prose(body)
        prio = _PRIORITY_LEAD.match(lead)
        severity, level = "low confidence", "minor"
        if prio:  # the bot stated a priority itself: keep it, still filed as low confidence
            severity, level = f"{prio.group(1)} (low confidence)", _PRIORITY_LEVEL[prio.group(1)]
            lead = lead[prio.end():]
        title = first_sentence(_NITPICK_TAG.sub("", lead))
        out.append(make_finding(
            "copilot", title=title, body=body, file_path=path, start_line=start, end_line=end,
            severity=severity, severity_level=level, category="nitpick",
            suggestion=suggestion,
        ))
    return out


def _body_and_suggestion(lines: list[str]) -> tuple[str, str | None]:
    suggestion = None
    parts: list[str] = []
    for kind, content in split_fences("\n".join(lines)):
        if kind == "fence:suggestion" and suggestion is None:
            suggestion = content.strip("\n")
        elif kind == "text":
            parts.append("\n".join(re.sub(r"^\s{0,3}[*-]\s+", "", ln, count=1) for ln in content.split("\n")))
        else:
            parts.append(f"```{kind[6:]}\n{content}\n```")
    return tidy_block(_HTML_TAG.sub("", "\n".join(parts))), suggestion


def _first_prose(body: str) -> str:
    for line in body.split("\n"):
        s = clean_inline(line)
        if s and not s.startswith(("```", "~~~")):
            return s
    return ""


def _missed_item(node: Node) -> Finding | None:
    summary = node.summary
    alt = _ALT.search(summary)
    title = clean_inline(summary)
    text = node.full_text()
    path = start = end = None
    rest: list[str] = []
    for line in text.split("\n"):
        if path is None and line.strip().startswith("`") and path_and_lines(line)[0]:
            path, start, end = path_and_lines(line)
            continue
        rest.append(line)
    if not title and path is None:
        return None
    body, suggestion = _body_and_suggestion(rest)
    severity = alt.group(1).strip() if alt else None
    return make_finding(
        "copilot", title=title or first_sentence(body), body=body, file_path=path, start_line=start,
        end_line=end, severity=severity, category="actionable", suggestion=suggestion,
    )


def _check(label: str, declared: int | None, found: int, notes: list[str]) -> None:
    if declared is not None and declared != found:
        notes.append(f"Copilot section '{label}' declares {declared} item(s); parsed {found}")


register(CopilotParser())
