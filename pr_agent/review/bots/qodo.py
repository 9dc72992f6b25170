"""Qodo Merge / PR-Agent bodies ("PR Reviewer Guide 🔍", "PR Code Suggestions ✨").

* Reviewer guide focus areas, newer form: ``<details><summary><a href='…'><strong>Possible
  Issue</strong></a>\n\ndescription</summary> ```code``` </details>``; older "Key issues to
  review" form: ``<a href='…'><strong>Title</strong></a><br>description``. Each is a finding; the
  link gives the location (a ``/blob/<sha>/path#L10-L20`` link gives the path, a
  ``/files#diff-<hash>R10-R20`` anchor only the lines).
* A "Security concerns" row (other than "No security concerns identified") is a general finding.
* Code suggestions: ``<details><summary>Title</summary>___ **what** [path [a-b]](link) ```diff```
  … Suggestion importance[1-10]: N`` in a Category | Suggestion | Impact table. The Impact column is the
  severity (High → major, Medium → minor, both actionable; Low → trivial nitpick); only without it does
  importance decide (≥ 7 actionable). "High-level" rows have no location and are kept too.
* A "Security concerns" row that says there are none ("No", "None", …) yields nothing.
* "Estimated effort", tests and "No security concerns" rows yield nothing.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.locations import github_link_location
from pr_agent.review.bots.markup import (
    Node,
    clean_inline,
    fences,
    first_sentence,
    iter_nodes,
    parse_tree,
    tidy_block,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_LINK_TITLE = re.compile(
    r"""<a\s+href=["']([^"'<>\s]{1,1000})["'][^<>]{0,100}>[ \t]{0,20}(?:<strong>|\*\*)([^<>*]{1,300})"""
    r"""(?:</strong>|\*\*)[ \t]{0,20}</a>[ \t]{0,20}(?:<br\s*/?>)?(.*)""",
    re.IGNORECASE | re.DOTALL,
)
_SUGGESTED_AT = re.compile(r"\[([^\[\]\n]{1,400})\[(\d{1,7})(?:-(\d{1,7}))?\]\]\(([^()\s]{1,1000})\)")
_IMPORTANCE = re.compile(r"importance\s*\[1-10\]\s*:\s*(\d{1,2})", re.IGNORECASE)


class QodoParser(BotParser):
    name = "qodo"
    label = "Qodo"
    logins = frozenset({
        "qodo-merge-pro", "qodo-merge", "qodo-ai", "qodo-code-review", "qodo-merge-pro-for-open-source",
        "codiumai-pr-agent-pro", "codiumai-pr-agent", "pr-agent", "codiumai-pr-agent-free",
    })
    markers = ("pr reviewer guide", "pr code suggestions", "recommended focus areas for review",
               "key issues to review", "qodo merge", "pr-agent", "estimated effort to review")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        root = parse_tree(text)
        findings: list[Finding] = []
        suggestion_nodes = [n for n in iter_nodes(root) if not _LINK_TITLE.search(n.summary) and _is_code_suggestion(n)]
        rows = _table_rows(text, len(suggestion_nodes))
        for node in iter_nodes(root):
            if _LINK_TITLE.search(node.summary):
                findings.append(_focus_from_summary(node, self.name))
            elif _is_code_suggestion(node):
                findings.append(_code_suggestion(node, rows.get(suggestion_nodes.index(node)), self.name))
        # older "Key issues to review" rows live in plain text
        for part in [root.text(), *(n.text() for n in iter_nodes(root))]:
            for chunk in _ROW_SPLIT.split(part):
                if "<strong>" in chunk.lower() and "<a" in chunk.lower():
                    for m in _LINK_TITLE.finditer(chunk):
                        findings.append(_focus(m.group(1), m.group(2), _cut_row(m.group(3)), self.name))
        row = _security_row(text)
        if row is not None:
            row = re.sub(r"^(?:\s*<br\s*/?>)+", "", row.strip(), flags=re.IGNORECASE)
            label = _LABEL.match(row)
            body = _text(row[label.end():] if label else row)
            title = f"Security concern: {label.group(1)}" if label else "Security concern"
            if body and not _says_none(body):
                findings.append(make_finding(
                    self.name, title=title, body=body, severity="security concern",
                    severity_level="major", category="general",
                ))
        low = text.lower()
        if not findings and ("recommended focus areas" in low or "recommended areas for review" in low):
            notes.append(f"{self.label}: recommended areas for review present but none parsed")
        return findings


_CODE_TAG = re.compile(r"<code>([^<>]{0,500})</code>", re.IGNORECASE)
_DIFF_ANCHOR = re.compile(r"#(diff-[0-9a-f]{8,64})")
_LABEL = re.compile(r"^\s*<strong>\s*([^<>]{1,200}?)\s*:?\s*</strong>\s*:?\s*(?:<br\s*/?>)?", re.IGNORECASE)


def _text(html_text: str) -> str:
    """Qodo HTML fragment → plain Markdown-ish text (``<code>`` kept as backticks)."""
    t = _CODE_TAG.sub(lambda m: f"`{m.group(1)}`", html_text)
    t = re.sub(r"<br\s*/?>", "\n", t, flags=re.IGNORECASE)
    return tidy_block("\n".join(clean_inline(ln) for ln in t.split("\n")))


def _basis(link: str, path: str | None, title: str, body: str) -> tuple[str | None, str]:
    """Fingerprint basis: Qodo titles are generic labels, so the first sentence joins them."""
    anchor = _DIFF_ANCHOR.search(link or "")
    return (path or (anchor.group(1) if anchor else None), f"{title} {first_sentence(body)}")


def _security_row(text: str) -> str | None:
    """The content of a "Security concerns" row (not the "No security concerns" one), by find()."""
    low = text.lower()
    i = low.find("security concerns</strong>")
    while i >= 0:
        head = low[max(0, i - 60): i]
        if "no security concerns" not in head + "security concerns":
            start = i + len("security concerns</strong>")
            end = low.find("</td>", start)
            return text[start: end if end >= 0 else start + 4000]
        i = low.find("security concerns</strong>", i + 1)
    return None


# rows are ``<br>``-separated (Qodo) or a ``- [ ]`` checkbox list (CodeAnt's "Recommended areas for review")
_ROW_SPLIT = re.compile(r"<br\s*/?>\s*(?:[-*]\s+\[[ xX]\]\s*)?(?=<a\s)", re.IGNORECASE)


def _cut_row(text: str) -> str:
    return re.split(r"</td>|<tr>|<br\s*/?>\s*(?:[-*]\s+\[[ xX]\]\s*)?<a\s", text, maxsplit=1,
                    flags=re.IGNORECASE)[0]


def _focus(link: str, title: str, desc: str, bot: str = "qodo") -> Finding:
    path, start, end = github_link_location(link)
    body = _text(desc)
    title = clean_inline(title)
    return make_finding(
        bot, title=title, body=body, file_path=path, start_line=start,
        end_line=end, category="actionable", fingerprint_basis=_basis(link, path, title, body),
    )


def _focus_from_summary(node: Node, bot: str = "qodo") -> Finding:
    m = _LINK_TITLE.search(node.summary)
    if m is None:
        return _focus("", clean_inline(node.summary), "", bot)
    return _focus(m.group(1), m.group(2), m.group(3), bot)


_NONE_WORDS = ("no", "none", "n/a", "na", "nothing", "no security concerns", "no security concerns identified",
               "no security concerns found", "no security issues", "no security issues identified")


def _says_none(body: str) -> bool:
    """A "Security concerns" row that only says there are none (``No``, ``None``, ``No security concerns…``)."""
    words = " ".join(re.sub(r"[^a-z/ ]", " ", body.lower()).split())
    return words in _NONE_WORDS or words.startswith(("no security concern", "no security issue", "none identified"))


_IMPACT_CELL = re.compile(r"</td>\s*<td\b[^<>]{0,40}>\s*(High|Medium|Low)\b", re.IGNORECASE)
_CATEGORY_CELL = re.compile(r"<td\s+rowspan=[\"']?(\d{1,3})[\"']?\s*>\s*([^<>]{1,80}?)\s*</td>", re.IGNORECASE)


def _table_rows(text: str, count: int) -> dict[int, tuple[str | None, str | None]]:
    """(table category, Impact) of the n-th code suggestion, when the table's cells line up with them.

    The Impact column (High / Medium / Low) is Qodo's severity; "importance N/10" is its ranking inside
    the Why block, not the severity it shows. Category cells span ``rowspan`` suggestions."""
    impacts = [m.group(1).title() for m in _IMPACT_CELL.finditer(text)]
    cats: list[str] = []
    for m in _CATEGORY_CELL.finditer(text):
        cats += [clean_inline(m.group(2))] * int(m.group(1))
    out: dict[int, tuple[str | None, str | None]] = {}
    for i in range(count):
        out[i] = (cats[i] if len(cats) == count else None, impacts[i] if len(impacts) == count else None)
    return out


_IMPACT_LEVEL = {"High": "major", "Medium": "minor", "Low": "trivial"}


def _is_code_suggestion(node: Node) -> bool:
    """A suggestion row: ``___`` then the what, a location link (absent for "High-level" rows) and the
    importance block."""
    text = node.text()
    if not text.lstrip().startswith("___"):
        return False
    return _SUGGESTED_AT.search(text) is not None or any(_IMPORTANCE.search(c.summary) for c in node.children())


def _code_suggestion(node: Node, row: tuple[str | None, str | None] | None = None, bot: str = "qodo") -> Finding:
    text = node.text()
    loc = _SUGGESTED_AT.search(text)
    path = start = end = None
    if loc:
        path, start, end = github_link_location(loc.group(4))
        path = path or clean_inline(loc.group(1)).strip() or None
        start, end = int(loc.group(2)), int(loc.group(3) or loc.group(2))
    desc = text[: loc.start()] if loc else text
    body = _text(desc.lstrip().lstrip("_")).replace("**", "").strip()
    importance = None
    for child in node.children():
        m = _IMPORTANCE.search(child.summary)
        if m:
            importance = int(m.group(1))
    diff = next((f.text.strip("\n") for f in fences(text) if f.lang in ("diff", "suggestion")), None)
    table_category, impact = row or (None, None)
    level = None
    severity = None
    if impact:
        level, severity = _IMPACT_LEVEL[impact], f"{impact} impact"
        category = "nitpick" if impact == "Low" else "actionable"
    else:  # no Impact column (older bodies): importance is all there is
        category = "actionable" if importance is None or importance >= 7 else "nitpick"
        if importance is not None:
            level = "major" if importance >= 9 else "minor" if importance >= 7 else "trivial"
            severity = f"importance {importance}/10"
    title = clean_inline(node.summary)
    high_level = bool(table_category) and words_of(table_category or "").replace("-", " ").startswith("high level")
    if high_level and not body.startswith("High-level"):
        body = f"High-level: {body}" if body else "High-level suggestion"
    return make_finding(
        bot, title=title, body=body, file_path=path, start_line=start,
        end_line=end, severity=severity,
        severity_level=level, category=category, suggestion=diff,
        fingerprint_basis=_basis(loc.group(4) if loc else "", path, title, body),
    )


class CodeAntParser(QodoParser):
    """CodeAnt AI: a PR-Agent derivative. Its "Nitpicks 🔍" comment holds "Recommended areas for review"
    checkbox rows (``- [ ] <a href='…/files#diff-…R9-R24'><strong>Title</strong></a><br>description``) and
    its "PR Code Suggestions ✨" comment the same Category | Suggestion | Score table as Qodo; both are read
    by the Qodo parser under CodeAnt's name. "CodeAnt AI is reviewing / finished reviewing your PR" status
    comments yield nothing."""

    name = "codeant"
    label = "CodeAnt"
    logins = frozenset({"codeant-ai", "codeant-ai-dev", "codeantai"})
    # "Recommended areas for review" is CodeAnt's wording (Qodo's is "Recommended focus areas for review")
    markers = ("codeant-ai", "codeant ai", "codeant.ai", "thanks for using codeant", "recommended areas for review")


register(QodoParser())
register(CodeAntParser())
