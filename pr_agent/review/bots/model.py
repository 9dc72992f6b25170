"""The findings model shared by every AI-reviewer parser.

A :class:`Finding` is one piece of feedback found inside a review *body* (as opposed to an inline
review thread). Everything here is pure: no I/O, no GitHub access.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

BotName = Literal["coderabbit", "copilot", "gemini", "codex", "sourcery", "codeant", "qodo", "greptile", "cursor",
                  "cubic", "bito", "augment", "ellipsis", "korbit", "baz", "graphite", "amazonq", "windsurf",
                  "generic"]
Category = Literal["actionable", "nitpick", "outside_diff", "duplicate", "additional", "lgtm", "general"]
SeverityLevel = Literal["critical", "major", "minor", "trivial", "info"]

BOT_NAMES: tuple[str, ...] = (  # detection order: CodeAnt before Qodo (its bodies carry Qodo's headings too)
    "coderabbit", "copilot", "gemini", "codex", "sourcery", "codeant", "qodo", "greptile", "cursor", "cubic",
    "bito", "augment", "ellipsis", "korbit", "baz", "graphite", "amazonq", "windsurf",
)
CATEGORIES: tuple[str, ...] = (
    "actionable", "nitpick", "outside_diff", "duplicate", "additional", "lgtm", "general",
)
LEVELS: tuple[str, ...] = ("critical", "major", "minor", "trivial", "info")
NON_ACTIONABLE_CATEGORIES = frozenset({"additional", "lgtm"})

# The keys of the `parse-review --json` item contract (issue 3), in order.
SPEC_FIELDS: tuple[str, ...] = (
    "file_path", "start_line", "end_line", "title", "body", "severity", "severity_level",
    "category", "suggestion", "ai_prompt", "fingerprint",
)


@dataclass(frozen=True)
class Finding:
    """One finding parsed out of an AI reviewer's review body.

    ``ai_prompt`` is text written by a bot for other agents: it is untrusted data and callers must
    label it as such before showing it to an agent.
    """

    file_path: str | None
    start_line: int | None
    end_line: int | None
    title: str
    body: str
    severity: str | None
    severity_level: str | None
    category: str
    suggestion: str | None
    ai_prompt: str | None
    fingerprint: str
    actionable: bool

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: the eleven contract fields plus ``actionable``."""
        return asdict(self)


@dataclass
class ParseResult:
    """What :func:`parse_review_body` returns."""

    bot: str | None
    items: list[Finding] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "items": [f.to_dict() for f in self.items],
            "uncertain": list(self.uncertain),
        }


# --- severity -------------------------------------------------------------------------------------

_LEVEL_WORDS: dict[str, str] = {
    "critical": "critical", "blocker": "critical", "p0": "critical", "urgent": "critical",
    "major": "major", "high": "major", "p1": "major", "important": "major", "error": "major",
    "bug": "major", "bug_risk": "major", "security": "major", "issue": "major",
    "potential issue": "major",
    "minor": "minor", "medium": "minor", "moderate": "minor", "p2": "minor", "warning": "minor",
    "suggestion": "minor", "refactor suggestion": "minor", "low confidence": "minor",
    "trivial": "trivial", "low": "trivial", "p3": "trivial", "nit": "trivial", "nitpick": "trivial",
    "style": "trivial", "typo": "trivial", "logic": "major", "syntax": "major",
    "info": "info", "informational": "info", "note": "info", "praise": "info", "question": "info",
    "lgtm": "info",
}
_EMOJI_LEVEL: dict[str, str] = {"🔴": "critical", "🟠": "major", "🟡": "minor", "🔵": "trivial", "⚪": "info"}
_WORD_RE = re.compile(r"[a-z0-9_]+(?: [a-z0-9_]+)?")


def normalize_severity(raw: str | None) -> str | None:
    """Map a severity as a bot wrote it ("🟠 Major", "P1", "high", "bug_risk") to a level.

    Returns one of :data:`LEVELS` or ``None`` when nothing is recognised (never a guess).
    """
    if not raw:
        return None
    text = html.unescape(raw)[:200]
    for emoji, level in _EMOJI_LEVEL.items():
        if emoji in text:
            return level
    words = re.sub(r"[^a-z0-9_ ]+", " ", text.lower())
    words = " ".join(t for t in (w.strip("_") for w in words.split()) if t)
    if words in _LEVEL_WORDS:
        return _LEVEL_WORDS[words]
    tokens = words.split()
    if "typo" in tokens:  # "issue (typo)": a typo is trivial whatever the bot files it under
        return "trivial"
    # Two-word phrases first ("potential issue"), then single words in order.
    for i in range(len(tokens) - 1):
        pair = f"{tokens[i]} {tokens[i + 1]}"
        if pair in _LEVEL_WORDS:
            return _LEVEL_WORDS[pair]
    for tok in tokens:
        if tok in _LEVEL_WORDS:
            return _LEVEL_WORDS[tok]
    return None


# --- fingerprint ----------------------------------------------------------------------------------

_LINE_REF_RES = (
    re.compile(r"#?\bl\d+(?:\s*-\s*l?\d+)?\b"),  # L10-L12, #L5
    re.compile(r"\blines?\s*\[?\d+\]?(?:\s*(?:-|–|to|and)\s*(?:lines?\s*)?\[?\d+\]?)?"),
    re.compile(r"(?<=\w):\d+(?:-\d+)?\b"),  # path.py:12-14
)
_MARKUP_RE = re.compile(r"<[^<>]{0,200}>|!\[[^\]]{0,100}\]\([^)]{0,500}\)")
_NON_WORD_RE = re.compile(r"[^\w\s]+")


def normalize_path(path: str | None) -> str:
    """Normalise a file path for comparison: no ``./``, ``a/``-style or leading slashes, ``/`` only."""
    if not path:
        return ""
    p = html.unescape(path).strip().strip("`'\"").replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    p = p.lstrip("/")
    return p.lower()


def normalize_key_text(text: str | None) -> str:
    """Normalise a title/first line: case, markup, whitespace and line references removed."""
    if not text:
        return ""
    t = html.unescape(text[:2000]).lower()
    t = _MARKUP_RE.sub(" ", t)
    for rx in _LINE_REF_RES:
        t = rx.sub(" ", t)
    t = _NON_WORD_RE.sub(" ", t)
    t = t.replace("_", " ")
    return " ".join(t.split())


def first_meaningful_line(body: str | None) -> str:
    """The first line of ``body`` that carries words (not a fence, badge, rule or HTML)."""
    if not body:
        return ""
    for line in body.split("\n")[:200]:
        s = line.strip()
        if not s or s.startswith(("```", "~~~", "<", "---", "***", "|")):
            continue
        if normalize_key_text(s):
            return s
    return ""


def make_fingerprint(bot: str | None, file_path: str | None, title: str | None, body: str | None) -> str:
    """A stable id for "the same finding": bot + normalised path + normalised title.

    Line numbers, whitespace, markup and category are deliberately left out, so the same finding
    re-posted after a push (new lines, now under "♻️ Duplicate comments") keeps its fingerprint.
    When there is no title the first meaningful line of the body stands in for it.
    """
    key = normalize_key_text(title) or normalize_key_text(first_meaningful_line(body))
    material = "\x1f".join((bot or "", normalize_path(file_path), key))
    return hashlib.sha256(material.encode("utf-8", "replace")).hexdigest()[:16]


# --- construction helper --------------------------------------------------------------------------


def _clean_int(value: int | None) -> int | None:
    if value is None or value < 0 or value > 10_000_000:
        return None
    return value


def make_finding(
    bot: str,
    *,
    title: str,
    body: str = "",
    file_path: str | None = None,
    start_line: int | None = None,
    end_line: int | None = None,
    severity: str | None = None,
    severity_level: str | None = None,
    category: str = "actionable",
    suggestion: str | None = None,
    ai_prompt: str | None = None,
    actionable: bool | None = None,
    fingerprint_basis: tuple[str | None, str] | None = None,
) -> Finding:
    """Build a :class:`Finding`, filling the derived fields (level, fingerprint, actionable).

    ``fingerprint_basis`` — (path-like key, title-like key) — replaces path and title in the
    fingerprint when a bot's titles are generic ("Possible Issue") or its path is only an anchor.
    """
    start = _clean_int(start_line)
    end = _clean_int(end_line)
    if start is not None and end is None:
        end = start
    if start is not None and end is not None and end < start:
        start, end = end, start
    if category not in CATEGORIES:
        category = "actionable"
    level = severity_level if severity_level in LEVELS else normalize_severity(severity)
    path = file_path.strip() if file_path and file_path.strip() else None
    title_clean = " ".join((title or "").split())
    if actionable is None:
        actionable = category not in NON_ACTIONABLE_CATEGORIES
    return Finding(
        file_path=path,
        start_line=start,
        end_line=end,
        title=title_clean,
        body=(body or "").strip(),
        severity=severity.strip() if severity and severity.strip() else None,
        severity_level=level,
        category=category,
        suggestion=suggestion if suggestion and suggestion.strip() else None,
        ai_prompt=ai_prompt.strip() if ai_prompt and ai_prompt.strip() else None,
        fingerprint=(make_fingerprint(bot, fingerprint_basis[0], fingerprint_basis[1], body)
                     if fingerprint_basis else make_fingerprint(bot, path, title_clean, body)),
        actionable=bool(actionable),
    )
