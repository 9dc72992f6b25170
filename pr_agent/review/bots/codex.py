"""OpenAI Codex (``chatgpt-codex-connector``) review bodies.

"### 💡 Codex Review … **Reviewed commit:** `abc`" with the "About Codex" details yields nothing.
Findings look like::

    https://github.com/o/r/blob/<sha>/path/file.py#L10-L12
    **<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Title**

    Prose…

    Useful? React with 👍 / 👎.

P0–P3 map to critical / major / minor / trivial.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.locations import github_link_location
from pr_agent.review.bots.markup import (
    FenceTracker,
    parse_tree,
    split_suggestion,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_BADGE_IMG = r"!\[(P\d)(?: Badge)?\]\([^()\s]{1,300}\)"
_TITLE = re.compile(
    r"^\s{0,3}\*\*(?:<sub>){0,3}" + _BADGE_IMG + r"(?:</sub>){0,3}\s*(.{0,400}?)\*\*\s*(.*)$"
    r"|^\s{0,3}\*\*" + _BADGE_IMG + r"\*\*\s*(.{1,400})$"
)
_STOP = re.compile(r"^\s*(?:useful\? react with|-{3,}\s*$|#{1,6}\s)", re.IGNORECASE)


class CodexParser(BotParser):
    name = "codex"
    logins = frozenset({"chatgpt-codex-connector", "openai-codex", "codex-connector"})
    markers = ("codex review", "img.shields.io/badge/p0-", "img.shields.io/badge/p1-",
               "img.shields.io/badge/p2-", "img.shields.io/badge/p3-", "chatgpt.com/codex")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        root = parse_tree(text)  # drops the "About Codex in GitHub" details from the text
        lines = root.text().split("\n")
        items: list[dict] = []
        last_link: str | None = None
        since_link = 99
        tracker = FenceTracker()
        for line in lines:
            state = tracker.feed(line)
            if state == "out":
                m = _TITLE.match(line)
                if m:
                    prio = m.group(1) or m.group(4)
                    title = (m.group(2) if m.group(1) else m.group(5)) or ""
                    extra = (m.group(3) if m.group(1) else "") or ""
                    items.append({"prio": prio.upper(), "title": title.strip(),
                                  "link": last_link if since_link <= 2 else None,
                                  "lines": [extra] if extra.strip() else [], "open": True})
                    last_link, since_link = None, 99
                    continue
                if _is_link_only(line):
                    last_link, since_link = line.strip().strip("<>"), 0
                    if items:
                        items[-1]["open"] = False
                    continue
                if line.strip():
                    since_link += 1
                if _STOP.match(line) and items:
                    items[-1]["open"] = False
                    continue
            if items and items[-1]["open"]:
                items[-1]["lines"].append(line)
        return [_finding(it) for it in items]


def _is_link_only(line: str) -> bool:
    s = line.strip().strip("<>")
    return s.startswith(("https://", "http://")) and "/blob/" in s and not any(c.isspace() for c in s)


def _finding(item: dict) -> Finding:
    raw = "\n".join(item["lines"])
    path, start, end = github_link_location(item["link"] or "")
    if path is None:
        path, start, end = github_link_location(raw)
    body_text, suggestion = split_suggestion(raw)
    return make_finding(
        "codex", title=item["title"], body=body_text, file_path=path,
        start_line=start, end_line=end, severity=item["prio"],
        severity_level={"P0": "critical", "P1": "major", "P2": "minor", "P3": "trivial"}.get(item["prio"]),
        category="actionable", suggestion=suggestion,
    )


register(CodexParser())
