"""Merge-readiness worlds for fakehub (keys checks / merge_state / branch_rules: tests/fakehub/ext_merge.py).

Base branches with different rules:
- ``main``: a ruleset requiring 1 approval, resolved conversations and the check ``test`` (strict: up to date).
- ``release``: classic branch protection requiring the check ``build`` (only partly readable by non-admins).
- ``dev``: no rules at all.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.worlds import comment, thread

MAIN_RULESET = {
    "id": 42, "name": "main protection",
    "rules": [
        {"type": "pull_request", "parameters": {
            "required_approving_review_count": 1, "required_review_thread_resolution": True,
            "dismiss_stale_reviews_on_push": False, "require_code_owner_review": False,
            "require_last_push_approval": False}},
        {"type": "required_status_checks", "parameters": {
            "required_status_checks": [{"context": "test"}], "strict_required_status_checks_policy": True}},
    ],
}
BRANCH_RULES = {
    "main": {"rulesets": [MAIN_RULESET]},
    "release": {"classic": {"required_checks": ["build"], "strict": True}},
    "dev": {},
    "release/v1": {"classic": {"required_checks": ["build"]}},
}
APPROVED = [{"author": "alice", "state": "APPROVED", "body": "LGTM"}]


def ok(name: str, **kw: Any) -> dict[str, Any]:
    return {"name": name, "status": "COMPLETED", "conclusion": "SUCCESS", **kw}


def pr(number: int, base: str = "main", **extra: Any) -> dict[str, Any]:
    return {"number": number, "title": f"PR {number}", "author": "octocat", "head_ref": f"feature-{number}",
            "base_ref": base, **extra}


def readiness_world(viewer_permission: str = "WRITE") -> dict[str, Any]:
    lint_fails = {"name": "lint", "conclusion": "FAILURE"}
    pulls = [
        pr(1, reviews=APPROVED, checks=[ok("test"), ok("lint")]),
        pr(2, base="dev", draft=True, checks=[ok("test")]),
        pr(3, reviews=APPROVED, checks=[{"name": "test", "status": "IN_PROGRESS"}, ok("lint")]),
        pr(4, reviews=APPROVED, checks=[ok("lint")]),
        pr(5, reviews=APPROVED, checks=[ok("test"), lint_fails]),
        pr(6, reviews=[{"author": "bob", "state": "CHANGES_REQUESTED", "body": "Please split this."}],
           checks=[ok("test")]),
        pr(7, checks=[ok("test")], merge_state={"review_requests": ["bob", "acme/core"]}),
        pr(8, reviews=APPROVED, checks=[ok("test")],
           threads=[thread("PRRT_open", "src/app.py", 3, [comment(9001, "carol", "Rename this?", 1)])]),
        pr(9, reviews=APPROVED, checks=[ok("test")], merge_state={"behind_by": 3}),
        pr(10, base="dev", checks=[ok("test")], merge_state={"unknown_reads": 2}),
        pr(11, base="dev", checks=[ok("test")], merge_state={"unknown_reads": -1}),
        pr(12, base="dev", checks=[ok("test")], merge_state={"mergeable": "CONFLICTING"}),
        pr(13, base="release", checks=[{"name": "build", "conclusion": "FAILURE"}, ok("test")]),
        pr(14, base="dev", checks=[ok("test"), {"name": "ci/legacy", "kind": "status", "state": "PENDING"}],
           threads=[thread("PRRT_soft", "a.py", 1, [comment(9101, "carol", "nit", 1)])]),
        pr(15, base="release/v1", checks=[{"name": "build", "status": "QUEUED"}]),
    ]
    return {
        "viewer": {"login": "octocat"},
        "users": {"alice": {}, "bob": {}, "carol": {}},
        "repositories": [{"owner": "acme", "name": "widgets", "viewer_permission": viewer_permission,
                          "branch_rules": BRANCH_RULES, "pull_requests": pulls}],
    }
