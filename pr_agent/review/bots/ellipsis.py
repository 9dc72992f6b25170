"""Ellipsis (ellipsis-dev): "👍 Looks good to me!" / "❌ Changes requested." review bodies.

The body opens with the verdict and "Reviewed everything up to <sha> in <time>", then a "More details" block:
counts ("Skipped posting `N` drafted comments based on config settings.") and one numbered item per draft it
chose *not* to post — ``1. `path:line``` with "**Draft comment:**" and "**Reason this comment was not
posted:**". Its posted findings are inline comments (read by :mod:`pr_agent.review.bots.inline`). A draft
is kept as a non-actionable ``additional`` item (like CodeRabbit's "Additional comments"): Ellipsis itself
judged it wrong or not useful, so it is shown, never counted as something to fix. Both the raw Markdown
(``<details><summary>1. <code>path:line</code></summary>``) and github.com's rendered text (``1\\.`` escaped,
``*   `` bullets) are read.
"""

from __future__ import annotations

import re

from pr_agent.review.bots.markup import clean_inline, first_sentence, tidy_block
from pr_agent.review.bots.model import Finding, make_finding
from pr_agent.review.bots.registry import BotParser, register

_ITEM = re.compile(
    r"^[ \t]*(?:<details>[ \t]*)?(?:<summary>[ \t]*)?(\d{1,3})\\?\.[ \t]+(?:`|<code>)([^`<>\n:]{1,500}?)"
    r"(?::(\d{1,7})(?:-(\d{1,7}))?)?(?:`|</code>)", re.MULTILINE)
_DRAFT = re.compile(r"\*\*Draft comment:\*\*", re.IGNORECASE)
_REASON = re.compile(r"\*\*Reason this comment was not posted:\*\*", re.IGNORECASE)
_DECLARED = re.compile(r"Skipped posting\s+`?(\d{1,4})`?\s+drafted comments?", re.IGNORECASE)
_END = re.compile(r"^[ \t]*(?:Workflow ID:|</details>[ \t]*$|\* \* \*|---[ \t]*$)", re.MULTILINE)
_BULLET = re.compile(r"^[ \t]*[*-][ \t]+", re.MULTILINE)


class EllipsisParser(BotParser):
    name = "ellipsis"
    logins = frozenset({"ellipsis-dev"})
    markers = ("docs.ellipsis.dev", "teaching-ellipsis", "<!-- ellipsis_hidden -->", "app.ellipsis.dev")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        out: list[Finding] = []
        heads = list(_ITEM.finditer(text))
        for i, head in enumerate(heads):
            chunk = text[head.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
            if end := _END.search(chunk):
                chunk = chunk[:end.start()]
            draft = _DRAFT.search(chunk)
            if draft is None:
                continue  # a numbered line that is not a draft item
            reason = _REASON.search(chunk, draft.end())
            draft_text = _text(chunk[draft.end(): reason.start() if reason else len(chunk)])
            why = _text(chunk[reason.end():]).split("\n")[0] if reason else ""
            start = int(head.group(3)) if head.group(3) else None
            body = draft_text + (f"\n\nNot posted by Ellipsis: {why}" if why else "")
            out.append(make_finding(
                "ellipsis", title=first_sentence(draft_text), body=body, file_path=head.group(2).strip(),
                start_line=start, end_line=int(head.group(4)) if head.group(4) else start,
                category="additional", actionable=False,
                fingerprint_basis=(head.group(2).strip(), draft_text)))
        declared = sum(int(m.group(1)) for m in _DECLARED.finditer(text))
        if declared > len(out):
            notes.append(f"Ellipsis: body declares {declared} skipped draft comment(s), {len(out)} parsed")
        return out


def _text(raw: str) -> str:
    lines = [_BULLET.sub("", (clean_inline(ln) if "<" in ln else ln).strip() + " ").strip() for ln in raw.split("\n")]
    return tidy_block("\n".join(ln for ln in lines if ln not in ("*", "-")))


register(EllipsisParser())
