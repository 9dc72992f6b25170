"""Cursor Bugbot bodies.

A bug is a ``### Title`` (older: ``### Bug: Title``) section carrying Bugbot's markers::

    **High Severity**                      (older: <!-- **High Severity** -->)
    <!-- DESCRIPTION START --> … <!-- DESCRIPTION END -->
    <!-- BUGBOT_BUG_ID: 1f2e… -->
    <!-- LOCATIONS START
    path/file.ts#L10-L12
    LOCATIONS END -->

Review summaries ("Cursor Bugbot has reviewed your changes…") and the ``CURSOR_SUMMARY`` note in PR
bodies yield nothing. Severity High / Medium / Low maps to major / minor / trivial.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.locations import github_link_location, parse_range
from pr_agent.review.bots.markup import (
    clean_inline,
    first_sentence,
    parse_tree,
    remove_html_comments,
    tidy_block,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_HEADING = re.compile(r"^[ \t]{0,3}#{2,4}[ \t]+(\S.{0,300})$")
_SEVERITY = re.compile(r"\*\*\s*(Critical|High|Medium|Low)\s+Severity\s*\*\*", re.IGNORECASE)
_BUG_ID = re.compile(r"BUGBOT_BUG_ID:\s*([\w-]{1,100})")
_LOC_ENTRY = re.compile(r"^\s*([^\s#]{1,500})(?:#(L\d{1,7}(?:-L\d{1,7})?))?\s*$")


class CursorParser(BotParser):
    name = "cursor"
    logins = frozenset({"cursor", "cursor-bugbot", "cursoragent"})
    markers = ("bugbot_bug_id", "cursor bugbot", "<!-- cursor_summary -->", "cursor.com/open?",
               "tab=bugbot")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        text = parse_tree(text).text()  # drops "Fix in Cursor" details blocks
        sections: list[tuple[str, list[str]]] = []
        for line in text.split("\n"):
            m = _HEADING.match(line)
            if m:
                sections.append((m.group(1).rstrip(" \t#"), []))
            elif sections:
                sections[-1][1].append(line)
        findings = []
        for title, lines in sections:
            chunk = "\n".join(lines)
            if not (_BUG_ID.search(chunk) or "DESCRIPTION START" in chunk or _SEVERITY.search(chunk)):
                continue
            findings.append(_bug(title, chunk))
        if not findings and _BUG_ID.search(text):
            notes.append("Cursor Bugbot: BUGBOT_BUG_ID marker present but no bug section parsed")
        return findings


def _bug(heading: str, chunk: str) -> Finding:
    title = clean_inline(heading)
    if title.lower().startswith("bug:"):
        title = title[4:].strip()
    sev = _SEVERITY.search(chunk)
    severity = sev.group(1).capitalize() if sev else None
    path = start = end = None
    locs = _between(chunk, "LOCATIONS START", "LOCATIONS END", comment_open=False)
    if locs:
        for entry in locs.split("\n"):
            m = _LOC_ENTRY.match(entry)
            if m:
                path = m.group(1)
                start, end = parse_range(m.group(2)) if m.group(2) else (None, None)
                break
    if path is None:
        path, start, end = github_link_location(chunk)
    desc = _between(chunk, "DESCRIPTION START", "DESCRIPTION END")
    body = desc if desc is not None else _SEVERITY.sub("", remove_html_comments(chunk))
    body = tidy_block(re.sub(r"<(?:p|div|a|picture|source|img)\b[^<>]{0,2000}>.*$", "",
                             remove_html_comments(body), flags=re.MULTILINE))
    return make_finding(
        "cursor", title=title or first_sentence(body), body=body, file_path=path, start_line=start,
        end_line=end, severity=severity, category="actionable",
    )


def _between(text: str, start_mark: str, end_mark: str, comment_open: bool = True) -> str | None:
    """The text between ``<!-- START -->`` and ``<!-- END -->`` markers (linear, no regex).

    With ``comment_open=False`` the start marker opens a comment that only the end marker closes
    (``<!-- LOCATIONS START\n…\nLOCATIONS END -->``).
    """
    i = text.find(start_mark)
    if i < 0:
        return None
    if not comment_open:
        j = text.find(end_mark, i)
        return text[i + len(start_mark): j] if j >= 0 else None
    i = text.find("-->", i)
    j = text.find(end_mark, i + 3) if i >= 0 else -1
    if i < 0 or j < 0:
        return None
    k = text.rfind("<!--", i, j)
    return text[i + 3: k if k >= 0 else j]


register(CursorParser())
