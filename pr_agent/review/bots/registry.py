"""One interface for every reviewer: detection by author then body markers, and safe parsing."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pr_agent.review.bots.markup import normalize_text
from pr_agent.review.bots.model import BOT_NAMES, Finding, ParseResult

MAX_BODY_CHARS = 8_000_000  # larger bodies are cut (with a note) rather than refused
_BOT_SUFFIX = re.compile(r"\[bot\]$", re.IGNORECASE)


def normalize_login(author: str | None) -> str:
    """``coderabbitai[bot]``, ``app/coderabbitai`` and ``CodeRabbitAI`` all become ``coderabbitai``."""
    if not author or not isinstance(author, str):
        return ""
    login = author.strip().lower()
    if login.startswith("app/"):
        login = login[4:]
    return _BOT_SUFFIX.sub("", login).strip()


def looks_like_bot_login(author: str | None) -> bool:
    return bool(author) and isinstance(author, str) and (
        author.strip().lower().endswith("[bot]") or author.strip().lower().startswith("app/")
    )


class BotParser:
    """Base class of a reviewer's parser.

    Subclasses set ``name``, ``logins`` (normalised logins, see :func:`normalize_login`) and
    ``markers`` (lower-case substrings that identify the bot's bodies), and implement
    :meth:`extract`. :meth:`parse` never raises.
    """

    name: str = ""
    logins: frozenset[str] = frozenset()
    markers: tuple[str, ...] = ()

    def detect_author(self, author: str | None) -> bool:
        return normalize_login(author) in self.logins

    def detect_body(self, body: str) -> bool:
        low = body[:200_000].lower()
        return any(m in low for m in self.markers)

    def detect(self, author: str | None, body: str) -> bool:
        return self.detect_author(author) or self.detect_body(body or "")

    def parse(self, body: str, notes: list[str] | None = None) -> list[Finding]:
        """All findings in ``body``; notes about unparseable parts go to ``notes`` when given."""
        sink: list[str] = notes if notes is not None else []
        try:
            text = normalize_text(body)
            if len(text) > MAX_BODY_CHARS:
                sink.append(f"body is {len(text)} characters; only the first {MAX_BODY_CHARS} were parsed")
                text = text[:MAX_BODY_CHARS]
            found = self.extract(text, sink)
        except Exception as exc:  # a parser bug must never take the caller down
            sink.append(f"{self.name or 'parser'} failed on this body ({type(exc).__name__}); no items kept")
            return []
        # a marker with nothing after it (a bare severity badge, an empty section) is no feedback: nothing
        # to act on or answer, so it is not an item
        return [f for f in found if f.title.strip() or f.body.strip() or (f.suggestion or "").strip()]

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        raise NotImplementedError


class GenericParser(BotParser):
    """Unknown bots and humans: yields nothing (the caller keeps the body as a whole review entry)."""

    name = "generic"

    def detect(self, author: str | None, body: str) -> bool:
        return True

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        return []


_REGISTRY: list[BotParser] = []
GENERIC = GenericParser()


def register(parser: BotParser) -> BotParser:
    """Add a parser to the registry (later registrations are tried later)."""
    if all(p.name != parser.name for p in _REGISTRY):
        _REGISTRY.append(parser)
    return parser


def parsers() -> Sequence[BotParser]:
    """Registered parsers in detection order (the order of ``BOT_NAMES``, unknown names last)."""
    return tuple(sorted(_REGISTRY, key=_order))


def _order(p: BotParser) -> int:
    return BOT_NAMES.index(p.name) if p.name in BOT_NAMES else len(BOT_NAMES)


def get_parser(bot: str | None) -> BotParser:
    for p in parsers():
        if p.name == bot:
            return p
    return GENERIC


def detect_bot(author: str | None = None, body: str | None = None) -> str | None:
    """Which AI reviewer wrote ``body``: by author login first, then by body markers.

    Body markers are only consulted when there is no author or the author is a bot account
    (``…[bot]``/``app/…``) we do not know by name: a human quoting a bot is still a human.
    """
    try:
        for p in parsers():
            if p.detect_author(author):
                return p.name
        if author and not looks_like_bot_login(author):
            return None
        text = body if isinstance(body, str) else ""
        for p in parsers():
            if p.detect_body(text):
                return p.name
    except Exception:
        return None
    return None


def parse_review_body(body: str, author: str | None = None) -> ParseResult:
    """Parse one review body into findings. Never raises; unparsed sections become notes."""
    text = body if isinstance(body, str) else ""
    bot = detect_bot(author, text)
    result = ParseResult(bot=bot)
    if bot is None and text.strip() and looks_like_bot_login(author):
        from pr_agent.review.bots.generic import extract_generic

        try:
            found = extract_generic(normalize_text(text[:MAX_BODY_CHARS]), "generic")
        except Exception:  # the generic path must never take the caller down either
            found = []
        if found:
            result.bot = "generic"
            result.items = found
            result.uncertain.append(
                f"unknown AI reviewer ({author}): {len(found)} finding(s) read from common markup shapes "
                "(severity badges, file:line references, per-finding blocks); low confidence")
            return result
    if bot is None:
        if text.strip():
            who = f" (author {author})" if author else ""
            result.uncertain.append(
                f"unrecognised format: no known AI reviewer detected{who}; body kept as a whole review"
            )
        return result
    result.items = get_parser(bot).parse(text, result.uncertain)
    return result
