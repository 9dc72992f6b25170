"""What the readiness answer tells a user beyond the verdict (issue 19 mutation survivors of merge/readiness.py).

Each test states an answer an agent acts on: which merge command to run, whom to re-request, who asked for
changes, which optional checks are red, which commit a missing required check has not reported on, and whether
the branch must be up to date. Expected values are literals from GitHub's documented behaviour.
"""

from __future__ import annotations

from typing import Any

import pytest

from pr_agent.merge.github import ReadinessFacts
from pr_agent.merge.readiness import assess
from pr_agent.refs import PRRef
from tests.unit.merge.test_readiness_signals import run_node

REF = PRRef("acme", "widgets", 7)


def facts(repo: dict[str, Any] | None = None, **pr: Any) -> ReadinessFacts:
    base = {"state": "OPEN", "isDraft": False, "mergeable": "MERGEABLE", "mergeStateStatus": "CLEAN",
            "reviewDecision": None, "baseRefName": "main", "baseRefOid": "b" * 40, "headRefName": "f",
            "headRefOid": "0123456789abcdef0123456789abcdef01234567", "isMergeQueueEnabled": False}
    return ReadinessFacts(repo={"viewerPermission": "WRITE", **(repo or {})}, pr={**base, **pr}, rules=[],
                          branch={"protected": False}, compare={"behind_by": 0, "ahead_by": 1})


def codes(out: dict[str, Any]) -> list[str]:
    return [b["code"] for b in out["blocking_issues"]]


@pytest.mark.parametrize(("repo", "method"), [
    ({}, "squash"),  # GitHub's defaults allow every method; squash is the first we offer
    ({"squashMergeAllowed": False}, "merge"),
    ({"squashMergeAllowed": False, "mergeCommitAllowed": False}, "rebase"),
    ({"squashMergeAllowed": False, "rebaseMergeAllowed": False}, "merge"),
])
def test_the_merge_command_uses_a_method_the_repository_allows(repo: dict[str, Any], method: str) -> None:
    out = assess(REF, facts(repo))
    assert out["next_action"]["command"] == f"gh pr merge 7 --repo acme/widgets --{method}"


def test_a_ruleset_restricting_merge_methods_is_obeyed() -> None:
    f = facts()
    f.rules = [{"type": "pull_request", "ruleset_id": 3, "parameters": {
        "required_approving_review_count": 0, "allowed_merge_methods": ["rebase"]}}]
    out = assess(REF, f)
    assert out["next_action"]["command"] == "gh pr merge 7 --repo acme/widgets --rebase"
    assert "Allowed methods" not in out["next_action"]["description"]


def test_several_allowed_methods_are_named_in_the_next_step() -> None:
    out = assess(REF, facts({"rebaseMergeAllowed": False}))
    assert out["next_action"]["description"] == "Merge it. Allowed methods: squash, merge."


def test_requested_reviewers_are_re_requested_by_name() -> None:
    f = facts(reviewDecision="REVIEW_REQUIRED", mergeStateStatus="BLOCKED")
    f.review_requests = ["carol", "dave"]
    out = assess(REF, f)
    blocker = next(b for b in out["blocking_issues"] if b["code"] == "review_required")
    assert blocker["command"] == "gh pr edit 7 --repo acme/widgets --add-reviewer carol --add-reviewer dave"
    assert blocker["action_required"] == "Waiting for carol, dave; re-requesting notifies them."


def test_without_requested_reviewers_the_command_says_what_to_replace() -> None:
    out = assess(REF, facts(reviewDecision="REVIEW_REQUIRED", mergeStateStatus="BLOCKED"))
    blocker = next(b for b in out["blocking_issues"] if b["code"] == "review_required")
    assert blocker["command"] == "gh pr edit 7 --repo acme/widgets --add-reviewer REVIEWER_LOGIN"


def test_changes_requested_names_only_the_reviewers_who_requested_changes() -> None:
    f = facts(reviewDecision="CHANGES_REQUESTED", mergeStateStatus="BLOCKED")
    f.reviews = [{"state": "APPROVED", "author": {"login": "alice"}},
                 {"state": "COMMENTED", "author": {"login": "carol"}},
                 {"state": "CHANGES_REQUESTED", "author": {"login": "bob"}},
                 {"state": "CHANGES_REQUESTED", "author": None}]  # a deleted account
    out = assess(REF, f)
    blocker = next(b for b in out["blocking_issues"] if b["code"] == "changes_requested")
    assert blocker["description"] == "Changes requested by bob."
    assert out["github"]["changes_requested_by"] == ["bob"]
    assert out["github"]["approved_by"] == ["alice"]


def test_changes_requested_without_a_review_requirement_is_a_warning_naming_the_reviewer() -> None:
    f = facts()
    f.reviews = [{"state": "APPROVED", "author": {"login": "alice"}},
                 {"state": "CHANGES_REQUESTED", "author": {"login": "bob"}}]
    out = assess(REF, f)
    assert out["verdict"] == "ready"
    warning = next(w for w in out["warnings"] if w["code"] == "changes_requested")
    assert warning["description"].startswith("bob requested changes;")


def test_a_long_list_of_red_optional_checks_names_five_and_counts_the_rest() -> None:
    nodes = [run_node(f"opt{i}", "FAILURE", required=False, job_id=i) for i in range(1, 8)]
    out = assess(REF, _with(nodes, mergeStateStatus="UNSTABLE"))
    assert out["verdict"] == "ready"
    warning = next(w for w in out["warnings"] if w["code"] == "optional_checks_failing")
    assert "'CI / opt1', 'CI / opt2', 'CI / opt3', 'CI / opt4', 'CI / opt5' and 2 more;" in warning["description"]
    assert "opt6" not in warning["description"]


def test_five_red_optional_checks_are_all_named_with_nothing_more() -> None:
    nodes = [run_node(f"opt{i}", "FAILURE", required=False, job_id=i) for i in range(1, 6)]
    out = assess(REF, _with(nodes, mergeStateStatus="UNSTABLE"))
    warning = next(w for w in out["warnings"] if w["code"] == "optional_checks_failing")
    assert "'CI / opt5'; not required" in warning["description"] and "more" not in warning["description"]


def test_a_required_check_that_never_reported_names_the_head_commit() -> None:
    f = _with([run_node("lint", "SUCCESS")], mergeStateStatus="BLOCKED")
    f.rules = [{"type": "required_status_checks", "ruleset_id": 4, "parameters": {
        "required_status_checks": [{"context": "lint"}, {"context": "build"}],
        "strict_required_status_checks_policy": False}}]
    out = assess(REF, f)
    assert out["verdict"] == "pending"
    blocker = next(b for b in out["blocking_issues"] if b["code"] == "required_check_missing")
    assert blocker["description"] == "Required check 'build' has not reported on the head commit 0123456."
    assert out["branch_protection"]["pending_checks"] == ["build"]


@pytest.mark.parametrize("strict", [True, False])
def test_being_behind_blocks_only_when_the_branch_must_be_up_to_date(strict: bool) -> None:
    f = facts()
    f.rules = [{"type": "required_status_checks", "ruleset_id": 5, "parameters": {
        "required_status_checks": [], "strict_required_status_checks_policy": strict}}]
    f.compare = {"behind_by": 3, "ahead_by": 1}
    out = assess(REF, f)
    assert out["branch_protection"]["requires_up_to_date"] is strict
    assert out["checks"]["up_to_date"] is False
    assert out["github"]["behind_by"] == 3
    if strict:
        assert codes(out) == ["behind_base"]
        assert "behind 'main' by 3 commit(s)" in out["blocking_issues"][0]["description"]
        assert out["next_action"]["command"] == ("gh api --method PUT "
                                                 "repos/acme/widgets/pulls/7/update-branch")
    else:
        assert out["verdict"] == "ready" and codes(out) == []


def _with(nodes: list[dict[str, Any]], **pr: Any) -> ReadinessFacts:
    f = facts(**pr)
    f.rollup_nodes = nodes
    return f
