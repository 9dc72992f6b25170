"""cubic (cubic-dev-ai): inline comments ``P2: …`` with a "Prompt for AI agents" block, and review bodies
whose "Prompt for AI agents (all N issues)" block lists ``<violation number="1" location="path:12">`` items.

Inline comments are read by :mod:`pr_agent.review.bots.inline` (the ``P0``–``P3`` lead is the severity).
A review body's violations become findings; a body with none parsed is kept whole with a note, never
dropped.
"""

from __future__ import annotations

import html
import re

from pr_agent.review.bots.markup import first_sentence, tidy_block
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_VIOLATION = re.compile(
    r"<violation\b[^<>]{0,200}?location=[\"']([^\"'<>\s:]{1,500}):(\d{1,7})(?:-(\d{1,7}))?[\"'][^<>]{0,100}>"
    r"(.{1,20000}?)</violation>", re.IGNORECASE | re.DOTALL)
_LEAD = re.compile(r"^\s*(P[0-3])\s*:\s*", re.IGNORECASE)
_LEVEL = {"P0": "critical", "P1": "major", "P2": "minor", "P3": "trivial"}


class CubicParser(BotParser):
    name = "cubic"
    logins = frozenset({"cubic-dev-ai", "cubic"})
    markers = ("cubic-dev-ai", "cubic.dev", "re-trigger cubic")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        out = []
        for m in _VIOLATION.finditer(text):
            raw = tidy_block(html.unescape(m.group(4)).strip())
            lead = _LEAD.match(raw)
            prio = lead.group(1).upper() if lead else None
            body = raw[lead.end():] if lead else raw
            start = int(m.group(2))
            out.append(make_finding(
                "cubic", title=first_sentence(body), body=body, file_path=m.group(1), start_line=start,
                end_line=int(m.group(3) or start), severity=prio, severity_level=_LEVEL.get(prio or ""),
                category="actionable"))
        if not out and "issue" in text.lower() and "no issues found" not in text.lower():
            notes.append("cubic: review body with no violation block parsed; kept whole")
        return out


register(CubicParser())
