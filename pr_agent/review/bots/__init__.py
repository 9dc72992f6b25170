"""Parsers for AI-reviewer review bodies (CodeRabbit, Copilot, Gemini, Codex, Sourcery, CodeAnt, Qodo,
Greptile, Cursor Bugbot, cubic, Bito, Augment, Ellipsis; Korbit, Baz, Graphite, Amazon Q and Windsurf by login
with the generic shapes), behind one interface; an unknown bot's body is read by :mod:`generic`.

    from pr_agent.review.bots import parse_review_body
    result = parse_review_body(body, author="coderabbitai[bot]")
    result.bot, result.items, result.uncertain
"""

from __future__ import annotations

from pr_agent.review.bots import (  # noqa: F401  (imported for their registration side effect)
    augment,
    bito,
    coderabbit,
    codex,
    copilot,
    cubic,
    cursor,
    ellipsis,
    gemini,
    greptile,
    qodo,
    sourcery,
    unverified,
)
from pr_agent.review.bots.model import (
    BOT_NAMES,
    CATEGORIES,
    LEVELS,
    SPEC_FIELDS,
    Finding,
    ParseResult,
    make_fingerprint,
    normalize_severity,
)
from pr_agent.review.bots.registry import (
    BotParser,
    detect_bot,
    get_parser,
    parse_review_body,
    parsers,
    register,
)

__all__ = [
    "BOT_NAMES",
    "CATEGORIES",
    "LEVELS",
    "SPEC_FIELDS",
    "BotParser",
    "Finding",
    "ParseResult",
    "detect_bot",
    "get_parser",
    "make_fingerprint",
    "normalize_severity",
    "parse_review_body",
    "parsers",
    "register",
]
