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


MERGE_QUEUE_RULE = {"type": "merge_queue", "parameters": {
    "check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
    "max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1,
    "min_entries_to_merge_wait_minutes": 5}}


def checks_only_world() -> dict[str, Any]:
    """``main``'s rules without a ``pull_request`` rule (so GraphQL's ``baseRef.rules`` says everything the
    REST rules would): the repository's ruleset requires ``test`` (strict); an organization ruleset adds a
    merge queue and requires ``build``."""
    w = readiness_world()
    repo = w["repositories"][0]
    org_set = {"id": 7, "name": "org policy", "source_type": "Organization",
               "rules": [MERGE_QUEUE_RULE, {"type": "required_status_checks", "parameters": {
                   "required_status_checks": [{"context": "build"}], "strict_required_status_checks_policy": False}}]}
    repo["branch_rules"] = {**BRANCH_RULES, "main": {"rulesets": [
        {**MAIN_RULESET, "rules": [MAIN_RULESET["rules"][1]]}, org_set]}}
    repo["pull_requests"] = [pr(1, checks=[ok("test"), ok("build")]),
                             pr(2, checks=[ok("test"), {"name": "build", "conclusion": "FAILURE"}]),
                             pr(3, checks=[ok("build")]),
                             pr(4, checks=[ok("test"), ok("build")], merge_state={"behind_by": 2})]
    return w


def merge_methods_world(methods: list[str]) -> dict[str, Any]:
    """``readiness_world`` whose ``main`` ruleset allows only ``methods`` (a REST-only rule parameter)."""
    w = readiness_world()
    rule = {**MAIN_RULESET["rules"][0]}
    rule["parameters"] = {**rule["parameters"], "allowed_merge_methods": methods}
    w["repositories"][0]["branch_rules"] = {**BRANCH_RULES, "main": {"rulesets": [
        {**MAIN_RULESET, "rules": [rule, MAIN_RULESET["rules"][1]]}]}}
    return w


def many_pages_world(threads: int, checks: int) -> dict[str, Any]:
    """PR #1 of ``readiness_world`` with `threads` resolved review threads and `checks` extra passing checks."""
    w = readiness_world()
    first = w["repositories"][0]["pull_requests"][0]
    first["threads"] = [thread(f"PRRT_{i}", "a.py", 1, [comment(60_000 + i, "carol", "ok", 1)], resolved=True)
                        for i in range(threads)]
    first["checks"] = first["checks"] + [ok(f"extra-{i}") for i in range(checks)]
    return w
