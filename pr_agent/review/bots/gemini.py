"""Gemini Code Assist review bodies.

Its review bodies are normally a "## Code Review" / "Summary of Changes" summary: no items. Findings
carry a priority badge, ``![high](https://www.gstatic.com/codereviewagent/high-priority.svg)``
(critical / high / medium / low); when such badges appear in a body each one starts a finding,
located by the nearest preceding ``path:line`` line (``### path:12``, ``**path:12**`` or
`` `path:12` ``) or a GitHub blob link in the finding.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.locations import github_link_location, path_and_lines
from pr_agent.review.bots.markup import (
    FenceTracker,
    clean_inline,
    first_sentence,
    remove_html_comments,
    split_suggestion,
    unquote_alert_blocks,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_BADGE = re.compile(
    r"!\[((?:security-)?(?:critical|high|medium|low))\]\(https?://www\.gstatic\.com/codereviewagent/[a-z-]{1,40}\.svg\)"
    r"|<img\b[^<>]{0,300}codereviewagent/((?:security-)?(?:critical|high|medium|low))[a-z-]{0,20}\.svg[^<>]{0,200}>",
    re.IGNORECASE,
)
_LOC_LINE = re.compile(r"^\s{0,3}(?:#{1,6}\s+|[-*]\s+)?(\*\*|`)?([^\s`*]{1,400}:\d{1,7}(?:-\d{1,7})?)(?:\*\*|`)?\s*$")
# "### docker-compose.yml (164-165)": the heading form of the "I am having trouble creating
# individual review comments" fallback, where Gemini lists every finding in the body.
_LOC_PAREN = re.compile(r"^\s{0,3}#{1,6}\s+`?([^\s`*()]{1,400}?)`?\s+\((\d{1,7})(?:\s*-\s*(\d{1,7}))?\)\s*$")
_STOP = re.compile(r"^\s{0,3}(?:-{3,}|\*{3,}|#{1,6}\s|</?details>\s*$)")


class GeminiParser(BotParser):
    name = "gemini"
    logins = frozenset({"gemini-code-assist", "gemini-code-assist-bot"})
    markers = ("gstatic.com/codereviewagent", "gemini-code-assist", "using gemini code assist",
               "i'm gemini code assist", "having trouble creating individual review comments")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        lines = remove_html_comments(unquote_alert_blocks(text)).split("\n")
        items: list[dict] = []
        pending: tuple[str | None, int | None, int | None] = (None, None, None)
        since_loc = 99
        tracker = FenceTracker()
        for line in lines:
            state = tracker.feed(line)
            if state == "out":
                loc = _LOC_LINE.match(line)
                paren = None if loc else _LOC_PAREN.match(line)
                badge = _BADGE.search(line)
                if (loc or paren) and not badge:
                    pending = path_and_lines(loc.group(2)) if loc else _paren_location(paren)
                    since_loc = 0
                    if items:
                        items[-1]["closed"] = True
                    continue
                if badge:
                    sev = _severity(line)
                    where = pending if since_loc <= 3 else (None, None, None)
                    rest = _BADGE.sub("", line).strip()
                    items.append({"sev": sev, "loc": where, "lines": [rest] if rest else [],
                                  "closed": False})
                    pending, since_loc = (None, None, None), 99
                    continue
                if line.strip():
                    since_loc += 1
                if _STOP.match(line) and items:
                    items[-1]["closed"] = True
            if items and not items[-1]["closed"]:
                items[-1]["lines"].append(line)
        return [_finding(it) for it in items]


def _paren_location(m: re.Match[str]) -> tuple[str | None, int | None, int | None]:
    start = int(m.group(2))
    return m.group(1), start, int(m.group(3)) if m.group(3) else start


def _severity(line: str) -> str:
    """The priority badge ("critical"); "critical (security)" when a security badge rides along."""
    names = [(m.group(1) or m.group(2)).lower() for m in _BADGE.finditer(line)]
    plain = [n for n in names if not n.startswith("security-")]
    security = len(plain) != len(names)
    prio = plain[0] if plain else names[0].removeprefix("security-")
    return f"{prio} (security)" if security else prio


def _finding(item: dict) -> Finding:
    path, start, end = item["loc"]
    raw = "\n".join(item["lines"])
    if path is None:
        path, start, end = github_link_location(raw)
    body_text, suggestion = split_suggestion(raw)
    body = body_text
    title = first_sentence(body) or clean_inline(body)[:120]
    return make_finding(
        "gemini", title=title, body=body, file_path=path, start_line=start, end_line=end,
        severity=item["sev"], category="actionable", suggestion=suggestion,
    )


register(GeminiParser())
