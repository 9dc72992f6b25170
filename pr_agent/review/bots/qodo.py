"""Qodo Merge / PR-Agent bodies ("PR Reviewer Guide 🔍", "PR Code Suggestions ✨").

* Reviewer guide focus areas, newer form: ``<details><summary><a href='…'><strong>Possible
  Issue</strong></a>\n\ndescription</summary> ```code``` </details>``; older "Key issues to
  review" form: ``<a href='…'><strong>Title</strong></a><br>description``. Each is a finding; the
  link gives the location (a ``/blob/<sha>/path#L10-L20`` link gives the path, a
  ``/files#diff-<hash>R10-R20`` anchor only the lines).
* A "Security concerns" row (other than "No security concerns identified") is a general finding.
* Code suggestions: ``<details><summary>Title</summary>___ **what** [path [a-b]](link) ```diff```
  … Suggestion importance[1-10]: N`` — importance ≥ 7 is actionable, lower is a nitpick.
* "Estimated effort", tests and "No security concerns" rows yield nothing.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.markup import (
    Node,
    clean_inline,
    fences,
    first_sentence,
    github_link_location,
    iter_nodes,
    parse_tree,
    tidy_block,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_LINK_TITLE = re.compile(
    r"""<a\s+href=["']([^"'<>\s]{1,1000})["'][^<>]{0,100}>\s*(?:<strong>|\*\*)\s*([^<>*]{1,300}?)"""
    r"""\s*(?:</strong>|\*\*)\s*</a>\s*(?:<br\s*/?>)?(.*)""",
    re.IGNORECASE | re.DOTALL,
)
_SECURITY = re.compile(
    r"<strong>\s*Security concerns\s*</strong>(.{0,4000}?)</td>", re.IGNORECASE | re.DOTALL,
)
_SUGGESTED_AT = re.compile(r"\[([^\[\]\n]{1,400}?)\s*\[(\d{1,7})(?:-(\d{1,7}))?\]\]\(([^()\s]{1,1000})\)")
_IMPORTANCE = re.compile(r"importance\s*\[1-10\]\s*:\s*(\d{1,2})", re.IGNORECASE)


class QodoParser(BotParser):
    name = "qodo"
    logins = frozenset({
        "qodo-merge-pro", "qodo-merge", "qodo-ai", "qodo-code-review", "qodo-merge-pro-for-open-source",
        "codiumai-pr-agent-pro", "codiumai-pr-agent", "pr-agent", "codiumai-pr-agent-free",
    })
    markers = ("pr reviewer guide", "pr code suggestions", "recommended focus areas for review",
               "key issues to review", "qodo merge", "pr-agent", "estimated effort to review")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        root = parse_tree(text)
        findings: list[Finding] = []
        for node in iter_nodes(root):
            if _LINK_TITLE.search(node.summary):
                findings.append(_focus_from_summary(node))
            elif _is_code_suggestion(node):
                findings.append(_code_suggestion(node))
        # older "Key issues to review" rows live in plain text
        for part in [root.text(), *(n.text() for n in iter_nodes(root))]:
            for chunk in re.split(r"<br\s*/?>\s*(?=<a\s)", part, flags=re.IGNORECASE):
                if "<strong>" in chunk.lower() and "<a" in chunk.lower():
                    for m in _LINK_TITLE.finditer(chunk):
                        findings.append(_focus(m.group(1), m.group(2), _cut_row(m.group(3))))
        m = _SECURITY.search(text)
        if m and "no security concerns" not in words_of(m.group(0)):
            body = tidy_block(clean_inline(m.group(1).replace("<br>", "\n")))
            if body:
                findings.append(make_finding(
                    "qodo", title="Security concerns: " + first_sentence(body, 120), body=body,
                    severity="security concern", severity_level="major", category="general",
                ))
        if not findings and "recommended focus areas" in text.lower():
            notes.append("Qodo: 'Recommended focus areas for review' present but no focus area parsed")
        return findings


def _cut_row(text: str) -> str:
    return re.split(r"</td>|<tr>|<br\s*/?>\s*<a\s", text, maxsplit=1, flags=re.IGNORECASE)[0]


def _focus(link: str, title: str, desc: str) -> Finding:
    path, start, end = github_link_location(link)
    desc = re.sub(r"<br\s*/?>", "\n", desc, flags=re.IGNORECASE)
    body = tidy_block("\n".join(clean_inline(ln) for ln in desc.split("\n")))
    return make_finding(
        "qodo", title=clean_inline(title), body=body, file_path=path, start_line=start,
        end_line=end, category="actionable",
    )


def _focus_from_summary(node: Node) -> Finding:
    m = _LINK_TITLE.search(node.summary)
    if m is None:
        return _focus("", clean_inline(node.summary), "")
    return _focus(m.group(1), m.group(2), m.group(3))


def _is_code_suggestion(node: Node) -> bool:
    text = node.text()
    return text.lstrip().startswith("___") and _SUGGESTED_AT.search(text) is not None


def _code_suggestion(node: Node) -> Finding:
    text = node.text()
    loc = _SUGGESTED_AT.search(text)
    path = start = end = None
    if loc:
        path, start, end = github_link_location(loc.group(4))
        path = path or clean_inline(loc.group(1))
        start, end = int(loc.group(2)), int(loc.group(3) or loc.group(2))
    desc = text.lstrip().lstrip("_").split("[", 1)[0] if loc else text
    body = tidy_block("\n".join(clean_inline(ln).replace("**", "") for ln in desc.split("\n")))
    importance = None
    for child in node.children():
        m = _IMPORTANCE.search(child.summary)
        if m:
            importance = int(m.group(1))
    diff = next((f.text.strip("\n") for f in fences(text) if f.lang in ("diff", "suggestion")), None)
    category = "actionable" if importance is None or importance >= 7 else "nitpick"
    level = None
    if importance is not None:
        level = "major" if importance >= 9 else "minor" if importance >= 7 else "trivial"
    return make_finding(
        "qodo", title=clean_inline(node.summary), body=body, file_path=path, start_line=start,
        end_line=end, severity=f"importance {importance}/10" if importance is not None else None,
        severity_level=level, category=category, suggestion=diff,
    )


register(QodoParser())
