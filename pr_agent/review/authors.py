"""Who wrote a comment: bot detection that agrees across GraphQL and REST logins."""

from __future__ import annotations

# Logins that are the same account under different spellings (REST vs GraphQL vs review lists).
_ALIASES = {"copilot": "copilot-pull-request-reviewer"}


def normalize_login(login: str | None) -> str:
    """Case-folded login without the REST ``[bot]`` suffix, with known aliases merged."""
    name = (login or "").strip().lower()
    if name.endswith("[bot]"):
        name = name[: -len("[bot]")]
    return _ALIASES.get(name, name)


def is_bot(login: str | None, typename: str | None = None, user_type: str | None = None) -> bool:
    """GraphQL ``__typename == "Bot"``, REST ``type == "Bot"`` or a ``[bot]`` login."""
    if typename == "Bot" or user_type == "Bot":
        return True
    name = (login or "").strip().lower()
    return name.endswith("[bot]") or name in _ALIASES or name in _ALIASES.values()


def display_login(author: dict | None) -> str:
    """The login as GitHub shows it; deleted accounts are ``ghost``."""
    return (author or {}).get("login") or "ghost"
