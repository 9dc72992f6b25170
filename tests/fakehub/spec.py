"""The scenario format's vocabulary: allowed keys and values, and the small helpers that check them.

fixtures/scenarios/README.md documents every key; :mod:`.scenario` fills in the defaults.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

USER_TYPES = ("User", "Bot", "Organization", "Mannequin")
PERMISSIONS = ("ADMIN", "MAINTAIN", "WRITE", "TRIAGE", "READ", None)
ASSOCIATIONS = ("OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER",
                "MANNEQUIN", "NONE")
PR_STATES = ("OPEN", "CLOSED", "MERGED")
REVIEW_STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING")
REACTIONS = ("THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES")
MINIMIZE_REASONS = ("abuse", "off-topic", "outdated", "resolved", "duplicate", "spam", "low-quality")
DEFAULT_PR_TIME = "2026-11-01T10:00:00Z"
WRITERS = ("ADMIN", "MAINTAIN", "WRITE")

# key -> allowed Python types; None is always allowed for optional keys
SPEC: dict[str, dict[str, Any]] = {
    "scenario": {"viewer": dict, "users": dict, "repositories": list, "now": str, "rate_limit": dict,
                 "web_url": str, "description": str},
    "viewer": {"login": str, "name": str, "id": int, "node_id": str},
    "user": {"type": str, "id": int, "node_id": str, "name": str, "association": str, "rest_login": str,
             "rest_comment_login": str, "site_admin": bool, "created_at": str},
    "rate_limit": {"limit": int, "remaining": int, "used": int, "reset": int},
    "repository": {"owner": str, "name": str, "id": int, "node_id": str, "default_branch": str,
                   "viewer_permission": str, "private": bool, "description": str, "created_at": str,
                   "pull_requests": list, "graphql_extra": dict,
                   "branch_rules": dict,  # branch_rules: ext_merge
                   "commits": list, "branches": dict},  # commits, branches: ext_stack
    "pull_request": {"number": int, "id": int, "node_id": str, "title": str, "body": str, "state": str,
                     "draft": bool, "author": str, "author_association": str, "head_ref": str,
                     "base_ref": str, "head_sha": str, "base_sha": str, "created_at": str, "updated_at": str,
                     "closed_at": str, "merged_at": str, "viewer_pending_review": bool, "threads": list,
                     "reviews": list, "issue_comments": list, "graphql_extra": dict, "rest_extra": dict,
                     "checks": list, "merge_state": dict,  # checks, merge_state: ext_merge
                     "commits": list, "merge_commit": str, "head_ref_deleted": bool,
                     "timeline": list, "head_repository": str, "maintainer_can_modify": bool,
                     # commits, merge_commit, head_ref_deleted, timeline, head_repository, maintainer_can_modify:
                     # ext_stack
                     "ci": dict},  # ci: ext_ci
    "thread": {"id": str, "path": str, "line": int, "start_line": int, "original_line": int,
               "original_start_line": int, "diff_side": str, "start_diff_side": str, "subject_type": str,
               "resolved": bool, "resolved_by": str, "outdated": bool, "collapsed": bool,
               "viewer_can_resolve": bool, "viewer_can_unresolve": bool, "viewer_can_reply": bool,
               "comments": list},
    "comment": {"id": int, "node_id": str, "author": str, "body": str, "created_at": str, "updated_at": str,
                "author_association": str, "diff_hunk": str, "commit_id": str, "original_commit_id": str,
                "review": int, "state": str, "minimized": bool, "minimized_reason": str, "reactions": dict},
    "review": {"id": int, "node_id": str, "author": str, "state": str, "body": str, "submitted_at": str,
               "created_at": str, "commit_id": str, "author_association": str, "minimized": bool,
               "reactions": dict, "implicit": bool},
    "issue_comment": {"id": int, "node_id": str, "author": str, "body": str, "created_at": str,
                      "updated_at": str, "author_association": str, "minimized": bool,
                      "minimized_reason": str, "reactions": dict},
}
REQUIRED = {"scenario": ("viewer",), "viewer": ("login",), "repository": ("owner", "name"),
            "pull_request": ("number",), "thread": ("comments",), "comment": ("author", "body"),
            "review": ("author",), "issue_comment": ("author", "body")}
ID_BASE = {"comment": 1_000_001, "review": 2_000_001, "issue_comment": 3_000_001, "pull_request": 500_001,
           "repository": 100_001}


class ScenarioError(ValueError):
    """The scenario is malformed; the message says where (e.g. repositories[0].pull_requests[1])."""


def load(source: dict[str, Any] | str | Path) -> dict[str, Any]:
    if isinstance(source, dict):
        return copy.deepcopy(source)
    path = Path(source)
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: the top level must be a JSON object")
    return data


def check(obj: Any, kind: str, where: str) -> dict[str, Any]:
    """Verify keys and types of one object; return it without `_comment` keys."""
    if not isinstance(obj, dict):
        raise ScenarioError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    spec = SPEC[kind]
    obj = {k: v for k, v in obj.items() if not k.startswith("_")}
    unknown = sorted(set(obj) - set(spec))
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s) {', '.join(unknown)} (a {kind} may have: "
                            f"{', '.join(sorted(spec))})")
    for key in REQUIRED.get(kind, ()):
        if obj.get(key) is None:
            raise ScenarioError(f"{where}: {key!r} is required")
    for key, value in obj.items():
        want = spec[key]
        if value is None:
            continue
        if (isinstance(value, bool) and want is not bool) or not isinstance(value, want):
            raise ScenarioError(f"{where}.{key}: expected {want.__name__}, got {json.dumps(value)[:60]}")
    return obj


def one_of(value: Any, allowed: tuple[Any, ...], where: str) -> Any:
    if value not in allowed:
        raise ScenarioError(f"{where}: {value!r} is not one of {', '.join(map(repr, allowed))}")
    return value


def node_id(prefix: str, *parts: Any) -> str:
    raw = ":".join(str(p) for p in parts).encode()
    return f"{prefix}_kwDO" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def sha(*parts: Any) -> str:
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()


def parse_time(value: str, where: str) -> datetime:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        raise ScenarioError(f"{where}: {value!r} is not an ISO-8601 timestamp like 2026-11-01T10:00:00Z") from None


def fmt_time(value: datetime) -> str:
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def strip_bot(login: str) -> str:
    return login[:-5] if login.endswith("[bot]") else login
