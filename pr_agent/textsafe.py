"""Make untrusted text harmless on a terminal: control characters and bidi overrides made visible."""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """Escape ANSI/C0/C1 controls and bidi overrides; keep newlines and tabs."""
    return _UNSAFE.sub(_escape, text)


def one_line(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit * 2 // 3:  # end on a whole word when one ends near the limit
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"
