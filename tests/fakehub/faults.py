"""Injected faults: what GitHub does on a bad day.

    hub.add_fault(Fault(match="graphql", status=500))                      # one 500, then normal again
    hub.add_fault(Fault(match=r"GET /repos/.*/comments", status=502, times=3))  # HTML 502 burst
    hub.add_fault(Fault(kind="secondary_rate_limit"))                       # 403 + retry-after
    hub.add_fault(Fault(kind="graphql_rate_limited"))                       # 200 + errors[type=RATE_LIMITED]
    hub.add_fault(Fault(kind="hang", delay_s=5))                            # answer normally after 5 s
    hub.add_fault(Fault(match="graphql:CheckRunDetails", kind="graphql_field_refused",
                        body={"field": "annotations", "type": "FORBIDDEN"}))  # that field null + a typed error

``match`` is ``"graphql"`` (POST /graphql), ``"graphql:NAME"`` (GraphQL whose operation name or one of whose
top-level fields fully matches the regex NAME, e.g. ``"graphql:ResolveThread"`` or
``"graphql:resolveReviewThread"``), or a regex searched in ``"METHOD /path?query"`` (path without a /api/v3
prefix). ``operation`` (optional) is a regex like NAME that must match as well. A fault applies ``times`` times (None =
forever) and then expires; the first matching live fault wins.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

KINDS = (None, "http", "secondary_rate_limit", "primary_rate_limit", "graphql_rate_limited",
         "graphql_errors_partial", "graphql_field_refused", "hang", "truncated_json", "disconnect")
RATE_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
PRIMARY_MESSAGE = "API rate limit exceeded for user ID 1."
SECONDARY_MESSAGE = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
BAD_GATEWAY_HTML = """<!DOCTYPE html>
<html>
  <head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
  <title>Unicorn! &middot; GitHub</title></head>
  <body><p><strong>We had issues producing the response to your request.</strong></p>
  <p>Sorry about that. Please try refreshing and contact us if the problem persists.</p></body>
</html>
"""
PARTIAL_ERROR = {"message": "Something went wrong while executing your query. This may be the result of a "
                 "timeout, or it could be a GitHub bug. Please include `F4KE:1234:5678:9ABC:DEF0` when "
                 "reporting this issue."}


@dataclass
class Fault:
    """One injected misbehaviour. See the module docstring."""

    match: str = "graphql"
    status: int | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    times: int | None = 1
    delay_s: float = 0.0
    kind: str | None = None
    operation: str | None = None
    reset_in_s: int = 60     # primary_rate_limit / graphql_rate_limited: x-ratelimit-reset = now + this
    retry_after_s: int = 60  # secondary_rate_limit: retry-after header
    hits: int = 0            # how often it has fired so far

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Fault kind {self.kind!r} is not one of {KINDS}")
        graphql = self.match == "graphql" or self.match.startswith("graphql:")
        self._pattern = None if graphql else re.compile(self.match)
        self._ops = [re.compile(x) for x in (self.operation, self.match[len("graphql:"):] if graphql else "") if x]
        self._lock = threading.Lock()

    @property
    def expired(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def matches(self, method: str, path: str, query: str, operation: str | None, top_fields: list[str]) -> bool:
        if self._pattern is None:
            hit = path == "/graphql"
        else:
            hit = bool(self._pattern.search(f"{method} {path}" + (f"?{query}" if query else "")))
        for op in self._ops if hit else ():
            hit = hit and any(op.fullmatch(name) for name in [operation or "", *top_fields])
        return hit

    def claim(self) -> bool:
        """Count one use; False if the fault had already expired (another thread took the last one)."""
        with self._lock:
            if self.expired:
                return False
            self.hits += 1
            return True


def json_bytes(body: Any) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def canned(fault: Fault) -> tuple[int, dict[str, str], bytes] | None:
    """The whole response for faults that replace GitHub's answer; None for those that alter it."""
    now = int(time.time())
    kind = fault.kind
    if kind == "secondary_rate_limit":
        body = fault.body or {"message": SECONDARY_MESSAGE,
                              "documentation_url": RATE_DOCS + "#about-secondary-rate-limits"}
        headers = {"Retry-After": str(fault.retry_after_s)}
        status = fault.status or 403
    elif kind == "primary_rate_limit":
        body = fault.body or {"message": PRIMARY_MESSAGE, "documentation_url": RATE_DOCS}
        headers = {"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": str(now + fault.reset_in_s)}
        status = fault.status or 403
    elif kind == "graphql_rate_limited":
        body = fault.body or {"data": None, "errors": [{"type": "RATE_LIMITED", "message": PRIMARY_MESSAGE}]}
        headers = {"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": str(now + fault.reset_in_s)}
        status = fault.status or 200
    elif kind in (None, "http") or (kind == "hang" and (fault.status is not None or fault.body is not None)):
        status = fault.status or 500
        headers = {}
        body = fault.body if fault.body is not None else default_body(status)
    else:
        return None
    if isinstance(body, (bytes, str)):
        raw = body.encode() if isinstance(body, str) else body
        if raw.lstrip()[:1] == b"<":
            headers.setdefault("Content-Type", "text/html; charset=utf-8")
    else:
        raw = json_bytes(body)
    return status, merge_headers(headers, fault.headers), raw


def merge_headers(*layers: dict[str, str]) -> dict[str, str]:
    """Merge header dicts case-insensitively; later layers win (keeping their spelling)."""
    out: dict[str, str] = {}
    for layer in layers:
        for name, value in layer.items():
            for old in [k for k in out if k.lower() == name.lower()]:
                del out[old]
            out[name] = value
    return out


def default_body(status: int) -> Any:
    if status in (502, 504):
        return BAD_GATEWAY_HTML
    messages = {500: "Server Error", 503: "Service Unavailable", 404: "Not Found",
                403: "Resource not accessible by integration", 422: "Validation Failed"}
    try:
        phrase = messages.get(status) or HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    return {"message": phrase, "documentation_url": "https://docs.github.com/rest", "status": str(status)}


def refuse_fields(doc: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """``graphql_field_refused``: every non-null ``spec["field"]`` in ``doc["data"]`` becomes null with an error of
    ``spec["type"]`` (FORBIDDEN by default) at its path, as GitHub answers a field the token may not read. With
    ``"items": true`` the field's list items are refused one by one instead (``nodes(ids:)``)."""
    name, etype = spec["field"], spec.get("type") or "FORBIDDEN"
    message = spec.get("message") or "Resource not accessible by personal access token"
    errors: list[dict[str, Any]] = []

    def walk(value: Any, path: list[Any]) -> None:
        if isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, [*path, i])
        elif isinstance(value, dict):
            for key in list(value):
                if key == name and value[key] is not None:
                    if spec.get("items") and isinstance(value[key], list):
                        for i in range(len(value[key])):
                            value[key][i] = None
                            errors.append({"type": etype, "path": [*path, key, i], "message": message})
                    else:
                        value[key] = None
                        errors.append({"type": etype, "path": [*path, key], "message": message})
                else:
                    walk(value[key], [*path, key])

    walk(doc.get("data"), [])
    doc["errors"] = [*doc.get("errors", []), *errors]
    return doc
