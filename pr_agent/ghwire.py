"""What gh's answers mean: `gh api -i` output split into status, headers and body, and every failure
(gh's exit and stderr, an HTTP status, GraphQL ``errors``) turned into one typed :class:`PrAgentError`.
Pure functions over bytes: :mod:`pr_agent.gh` spawns gh and hands them what it printed."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import orjson

from pr_agent import surface
from pr_agent.errors import PrAgentError, command_repair

_UNPARSED: Any = object()


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    _data: Any = field(default=_UNPARSED, repr=False, compare=False)

    def json(self) -> Any:
        if self._data is not _UNPARSED:
            return self._data
        try:
            if not self.body.strip():
                if self.status != 204 and "json" in self.headers.get("content-type", ""):
                    raise ValueError("empty body")  # a JSON answer cut off before its first byte
                self._data = None
            else:
                self._data = orjson.loads(self.body)
        except (orjson.JSONDecodeError, ValueError) as exc:
            raise PrAgentError(
                "unexpected_response",
                f"GitHub returned a response that is not valid JSON (HTTP {self.status}).",
                suggestion="Retry the call; if it keeps failing, run with GH_PR_AGENT_DEBUG=1 and report it.",
                details={"status": self.status, "reason": str(exc), "body_start": self.body[:200].decode(
                    "utf-8", "replace")},
            ) from None
        return self._data


def parse_included(stdout: bytes) -> tuple[int, dict[str, str], bytes] | None:
    """Split `gh api -i` output into (status, lower-cased headers, body); None if there is no status line."""
    if not stdout.startswith(b"HTTP/"):
        return None
    nl = stdout.find(b"\n")
    status_line = stdout[:nl].decode("latin-1")
    parts = status_line.split()
    try:
        status = int(parts[1])
    except (IndexError, ValueError):
        return None
    rest = stdout[nl + 1 :]
    ends = [i for i in (rest.find(b"\r\n\r\n"), rest.find(b"\n\n")) if i >= 0]
    if rest.startswith((b"\r\n", b"\n")):
        head, body = b"", rest.lstrip(b"\r\n")
    elif ends:
        end = min(ends)
        head = rest[:end]
        body = rest[end + (4 if rest[end : end + 4] == b"\r\n\r\n" else 2) :]
    else:
        head, body = rest, b""
    headers: dict[str, str] = {}
    for line in head.decode("latin-1").splitlines():
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return status, headers, body


def _message_of(body: bytes) -> str:
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return ""
    if isinstance(data, dict):
        if isinstance(data.get("message"), str):
            return data["message"]
        errs = data.get("errors")
        if isinstance(errs, list):
            return "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errs)
    return ""


def retry_after_ms(headers: dict[str, str], now: float) -> int | None:
    ra = headers.get("retry-after")
    if ra:
        if ra.isascii() and ra.isdigit():  # str.isdigit() also accepts '²', which int() refuses
            return int(ra) * 1000
        try:
            return max(0, int((parsedate_to_datetime(ra).timestamp() - now) * 1000))
        except (TypeError, ValueError):
            pass
    reset = headers.get("x-ratelimit-reset")
    if headers.get("x-ratelimit-remaining") == "0" and reset and reset.isascii() and reset.isdigit():
        return max(0, int((int(reset) - now) * 1000))
    return None


def cancelled_error(what: str) -> PrAgentError:
    return PrAgentError("cancelled", f"The call was cancelled while waiting for {what}.",
                        suggestion="Call again when you want the answer.", details={"request": what})


def next_link(link: str) -> str | None:
    for part in link.split(","):
        m = re.search(r'<([^>]+)>\s*;\s*rel="next"', part)
        if m:
            url = m[1]
            m2 = re.match(r"https?://[^/]+(?:/api/v3)?/(.*)", url)
            return m2[1] if m2 else url
    return None


def process_error(proc: subprocess.CompletedProcess[bytes], what: str) -> PrAgentError:
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode == 4 or "gh auth login" in err:
        return PrAgentError(
            "gh_not_authenticated",
            "gh is not logged in to GitHub.",
            suggestion="Run `gh auth login` (or set GH_TOKEN), then retry.",
            details={"gh_stderr": err[:500]},
            repair=command_repair(["gh", "auth", "login"]),
        )
    low = err.lower()
    if "unexpected end of json input" in low or "invalid character" in low:
        return PrAgentError("unexpected_response", f"GitHub's answer to {what} was cut off or is not JSON.",
                            suggestion="Retry the call.", details={"gh_stderr": err[:500]})
    if any(s in low for s in ("connection refused", "dial tcp", "error connecting", "no such host",
                              "i/o timeout", "tls handshake", "connection reset", "eof")):
        return PrAgentError("network_error", f"gh could not reach GitHub for {what}.",
                            suggestion="Check the network connection and retry.",
                            details={"gh_stderr": err[:500]})
    return PrAgentError("gh_failed", f"gh failed for {what} (exit {proc.returncode}): {err[:300]}",
                        suggestion=surface.text(surface.face(
                            cli="Run with GH_PR_AGENT_DEBUG=1 to see the gh call.",
                            mcp="The server's stderr log shows the gh call when debugging is on.")),
                        details={"exit_code": proc.returncode, "gh_stderr": err[:500]})


def http_error(status: int, headers: dict[str, str], body: bytes, what: str) -> PrAgentError:
    msg = _message_of(body) or f"HTTP {status}"
    details: dict[str, Any] = {"status": status, "request": what, "github_message": msg}
    now = time.time()
    if status in (403, 429):
        retry = retry_after_ms(headers, now)
        if headers.get("x-ratelimit-remaining") == "0":
            details["kind"] = "primary"
            return PrAgentError("rate_limited", f"GitHub's API rate limit is exhausted ({msg}).",
                                suggestion="Wait until the limit resets, then retry.",
                                details=details, retry_after_ms=retry)
        if status == 429 or "retry-after" in headers or "secondary rate limit" in msg.lower():
            details["kind"] = "secondary"
            return PrAgentError("rate_limited", f"GitHub's secondary rate limit was hit ({msg}).",
                                suggestion="Slow down and retry after the indicated wait.",
                                details=details, retry_after_ms=retry if retry is not None else 60_000)
        return PrAgentError("forbidden", f"GitHub refused {what}: {msg}.",
                            suggestion="Check that your gh login has access (`gh auth status`); "
                            "you may need more scopes or repository permissions.",
                            details=details, repair=command_repair(["gh", "auth", "status"]))
    if status == 401:
        return PrAgentError("auth_failed", f"GitHub rejected gh's credentials ({msg}).",
                            suggestion="Log in again with `gh auth login` or refresh GH_TOKEN.",
                            details=details, repair=command_repair(["gh", "auth", "login"]))
    if status == 404:
        return PrAgentError("not_found", f"GitHub says {what} does not exist or is not visible to you.",
                            suggestion="Check the repository and number, and that your gh login can see it.",
                            details=details)
    if status in (409, 410, 422):
        return PrAgentError("validation_failed", f"GitHub refused {what}: {msg}.",
                            suggestion="Read details.github_message; the request was not applied.",
                            details={**details, "body": _safe_json(body)})
    if status >= 500:
        return PrAgentError("server_error", f"GitHub had a server error ({status}) on {what}.",
                            suggestion="Retry in a little while.", details=details)
    return PrAgentError("gh_failed", f"Unexpected HTTP {status} for {what}: {msg}.",
                        suggestion="Run with GH_PR_AGENT_DEBUG=1 to see the call.", details=details)


def _safe_json(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return body[:500].decode("utf-8", "replace")


_REFUSED = ("NOT_FOUND", "FORBIDDEN", "INSUFFICIENT_SCOPES")


def _tolerated(err: Any, tolerate: tuple[str, ...]) -> bool:
    """A field-level refusal under one of the ``tolerate`` paths (see Gh.graphql_partial)."""
    if not tolerate or not isinstance(err, dict) or err.get("type") not in _REFUSED:
        return False
    path = ".".join(str(p) for p in err.get("path") or [] if isinstance(p, str))
    return any(path == t or path.startswith(t + ".") for t in tolerate)


def raise_graphql_errors(headers: dict[str, str], body: bytes, what: str, tolerate: tuple[str, ...] = ()) -> None:
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise PrAgentError("unexpected_response", f"GitHub's answer to {what} is not valid JSON.",
                           suggestion="Retry the call.",
                           details={"body_start": body[:200].decode("utf-8", "replace")}) from None
    errors = data.get("errors") if isinstance(data, dict) else None
    if not errors:
        return
    if not isinstance(errors, list):  # not GitHub's shape, but still an error answer: typed, never a crash
        errors = [errors]
    if data.get("data") and all(_tolerated(e, tolerate) for e in errors):
        return  # only refused fields the caller said it can do without (it says so itself)
    errors = [e for e in errors if not _tolerated(e, tolerate)] + [e for e in errors if _tolerated(e, tolerate)]
    first = errors[0] if isinstance(errors[0], dict) else {"message": str(errors[0])}
    etype = str(first.get("type") or "")
    message = str(first.get("message") or "GraphQL error")
    details: dict[str, Any] = {
        "request": what,
        "graphql_errors": [
            {k: e.get(k) for k in ("type", "message", "path") if k in e}
            for e in errors
            if isinstance(e, dict)
        ][:10],
        "partial_data": bool(data.get("data")),
    }
    if etype in ("RATE_LIMITED", "RATE_LIMIT") or "rate limit" in message.lower():
        details["kind"] = "secondary" if "secondary" in message.lower() else "primary"
        raise PrAgentError("rate_limited", f"GitHub's GraphQL rate limit was hit ({message}).",
                           suggestion="Wait until the limit resets, then retry.", details=details,
                           retry_after_ms=retry_after_ms({**headers, "x-ratelimit-remaining": "0"},
                                                          time.time()))
    if etype == "NOT_FOUND":
        raise PrAgentError("not_found", message, suggestion="Check the reference; it may not exist or "
                           "may not be visible to your gh login.", details=details)
    if etype in ("FORBIDDEN", "INSUFFICIENT_SCOPES"):
        raise PrAgentError("forbidden", message, suggestion="Your gh login lacks the permission or scope "
                           "for this; check `gh auth status`.", details=details,
                           repair=command_repair(["gh", "auth", "status"]))
    raise PrAgentError("graphql_error", f"GitHub's GraphQL API returned an error: {message}",
                       suggestion=surface.text("Read details.graphql_errors; if it persists, report it",
                                                surface.face(cli=" with GH_PR_AGENT_DEBUG=1 output.", mcp=".")),
                       details=details)


def iter_nodes(conn: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    for node in (conn or {}).get("nodes") or []:
        if node is not None:
            yield node
