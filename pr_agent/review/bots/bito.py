"""Bito (bito-code-review): "Code Review Agent Run #abc123" review bodies and "Run Status" comments.

A run body lists its suggestions per file in HTML: ``<b>Actionable Suggestions - N</b>`` then, per file,
``<div id="suggestion"> path - <b>k</b> <ul> <li>Title · <a href="…">Line 12-14</a>`` items. Each item is
a finding (the suggestion itself is posted inline, so the body gives file, title and, when the link text
says so, lines). Fewer items parsed than the declared count is noted. A "Code Review Agent Run Status"
comment saying the agent skipped the change yields nothing (see :mod:`pr_agent.review.coverage`).
"""

from __future__ import annotations

import re

from pr_agent.review.bots.markup import clean_inline
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_FILE = re.compile(r"<div\s+id=[\"']suggestion[\"']\s*>\s*([^<>\n]{1,500}?)\s+-\s+<b>\s*(\d{1,4})\s*</b>", re.I)
_ITEM = re.compile(r"<li>\s*([^<>·]{2,300}?)\s*·\s*<a\s+href\s*=\s*[\"']([^\"'<>\s]{1,1000})(?:[\"'][^<>]{0,100}>"
                   r"\s*(?:Lines?\s+(\d{1,7})(?:\s*-\s*(\d{1,7}))?)?)?", re.I)
_DECLARED = re.compile(r"Actionable Suggestions\s*-\s*(\d{1,4})", re.I)


class BitoParser(BotParser):
    name = "bito"
    logins = frozenset({"bito-code-review", "bitoagent", "bito-pr-review", "bito-ai", "bito"})
    markers = ("code review agent run", "bito.ai", "changelist by bito")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        out: list[Finding] = []
        heads = list(_FILE.finditer(text))
        for i, head in enumerate(heads):
            chunk = text[head.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
            path = clean_inline(head.group(1)).strip("` ")
            for m in _ITEM.finditer(chunk):
                start = int(m.group(3)) if m.group(3) else None
                out.append(make_finding(
                    "bito", title=clean_inline(m.group(1)), body="", file_path=path, start_line=start,
                    end_line=int(m.group(4)) if m.group(4) else start, category="actionable"))
        declared = sum(int(m.group(1)) for m in _DECLARED.finditer(text))
        if declared > len(out):
            notes.append(f"Bito: body declares {declared} actionable suggestion(s), {len(out)} parsed")
        return out


register(BitoParser())
