"""Opaque, integrity-checked pagination cursors.

A cursor names the tool, a hash of the query it continues (PR and filters) and a keyset position
(the sort key of the last item returned), so pages stay correct when items appear or vanish in
between. A cursor made by the MCP server may also name the snapshot its page was cut from
(:mod:`pr_agent.snapshots`, key ``n``): the next page is then cut from the same read while the server
still holds it. Cursors without ``n`` (the CLI's, and those of earlier versions) stay valid; a reader
that ignores ``n`` just re-fetches. The MAC detects tampering and corruption; it is not a secret
(cursors carry no data the caller could not fetch anyway), which is why the snapshot store checks a
snapshot's tool and scope itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import dataclass
from typing import Any

import orjson

from pr_agent.errors import PrAgentError

_KEY = b"gh-pr-agent/cursor/v1"
MAX_AGE_S = 24 * 3600


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def scope_hash(scope: dict[str, Any]) -> str:
    return hashlib.sha256(orjson.dumps(scope, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


@dataclass(frozen=True)
class Cursor:
    position: Any
    snapshot: str | None = None  # the MCP server's snapshot the previous page was cut from


def encode_cursor(tool: str, scope: dict[str, Any], position: Any, *, now: float | None = None,
                  snapshot: str | None = None) -> str:
    issued = int(now if now is not None else time.time())
    data: dict[str, Any] = {"v": 1, "t": tool, "s": scope_hash(scope), "p": position, "i": issued}
    if snapshot:
        data["n"] = snapshot
    payload = orjson.dumps(data)
    mac = hmac.new(_KEY, payload, hashlib.sha256).digest()[:12]
    return f"{_b64(payload)}.{_b64(mac)}"


def _bad(cursor: str, reason: str) -> PrAgentError:
    return PrAgentError("invalid_cursor", f"The cursor is not valid: {reason}.",
                        suggestion="Pass back a nextCursor exactly as it was returned, or omit cursor "
                        "to start from the first page.",
                        details={"field": "cursor", "value": cursor[:80], "reason": reason})


def decode_cursor(cursor: str, tool: str, scope: dict[str, Any], *, now: float | None = None) -> Any:
    """The position stored in a cursor made by :func:`encode_cursor` for the same tool and scope."""
    return read_cursor(cursor, tool, scope, now=now).position


def read_cursor(cursor: str, tool: str, scope: dict[str, Any], *, now: float | None = None) -> Cursor:
    """Position and snapshot id of a cursor made by :func:`encode_cursor` for the same tool and scope."""
    try:
        body, _, mac = cursor.strip().partition(".")
        payload = _unb64(body)
        given = _unb64(mac)
    except (ValueError, UnicodeEncodeError):
        raise _bad(cursor, "it is not a cursor this server issued") from None
    want = hmac.new(_KEY, payload, hashlib.sha256).digest()[:12]
    if not mac or not hmac.compare_digest(given, want):
        raise _bad(cursor, "its integrity check failed (it was altered or truncated)")
    try:
        data = orjson.loads(payload)
        position, issued, version = data["p"], int(data["i"]), data["v"]
        cursor_tool, cursor_scope = data["t"], data["s"]
        snapshot = data.get("n")
        if snapshot is not None and not isinstance(snapshot, str):
            raise TypeError("snapshot id")
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        raise _bad(cursor, "its contents are malformed") from None
    if version != 1:
        raise _bad(cursor, "it comes from another version of gh-pr-agent")
    if cursor_tool != tool or cursor_scope != scope_hash(scope):
        raise PrAgentError(
            "cursor_mismatch",
            "The cursor belongs to a different query (another tool, PR or set of filters).",
            suggestion="Repeat the call with the same arguments as the call that returned the cursor, "
            "or omit cursor to start over.",
            details={"field": "cursor", "reason": "issued for a different tool or arguments",
                     "issued_for_tool": cursor_tool})
    age = (now if now is not None else time.time()) - issued
    if age > MAX_AGE_S:
        raise PrAgentError("cursor_expired", "The cursor is older than 24 hours.",
                           suggestion="Omit cursor to start from the first page.",
                           details={"field": "cursor", "age_s": int(age)})
    return Cursor(position, snapshot)
