"""Readiness decided by each GitHub signal on its own (issue 19's surviving mutants, as user-visible behaviour).

GitHub computes ``mergeable`` and ``mergeStateStatus`` separately and they disagree for a while after a push
(one says CONFLICTING/UNKNOWN while the other still says BLOCKED/CLEAN), so the fail-closed promise must rest on
each signal alone. Expected values are literals written from GitHub's documented meaning, not from our code.
"""

from __future__ import annotations

from typing import Any

import pytest

from pr_agent.ci.rollup import check_from_node, latest_per_check
from pr_agent.merge.github import ReadinessFacts
from pr_agent.merge.readiness import assess
from pr_agent.refs import PRRef

REF = PRRef("acme", "widgets", 7)


def facts(rollup: list[dict[str, Any]] | None = None, **pr: Any) -> ReadinessFacts:
    base = {"state": "OPEN", "isDraft": False, "mergeable": "MERGEABLE", "mergeStateStatus": "CLEAN",
            "reviewDecision": None, "baseRefName": "main", "baseRefOid": "b" * 40, "headRefName": "f",
            "headRefOid": "a" * 40, "isMergeQueueEnabled": False}
    return ReadinessFacts(repo={"viewerPermission": "WRITE", "squashMergeAllowed": False}, pr={**base, **pr},
                          rules=[], branch={"protected": False}, compare={"behind_by": 0, "ahead_by": 1},
                          rollup_nodes=rollup or [])


def run_node(name: str, conclusion: str | None, *, required: bool = True, event: str = "pull_request",
             run_id: int = 900, job_id: int = 1) -> dict[str, Any]:
    return {"__typename": "CheckRun", "name": name, "status": "COMPLETED" if conclusion else "IN_PROGRESS",
            "conclusion": conclusion, "isRequired": required, "databaseId": job_id,
            "checkSuite": {"app": {"slug": "github-actions"},
                           "workflowRun": {"databaseId": run_id, "event": event, "workflow": {"name": "CI"}}}}


def codes(out: dict[str, Any]) -> list[str]:
    return [b["code"] for b in out["blocking_issues"]]


@pytest.mark.parametrize(("mergeable", "status"), [("CONFLICTING", "BLOCKED"), ("CONFLICTING", "CLEAN"),
                                                   ("MERGEABLE", "DIRTY"), ("UNKNOWN", "DIRTY")])
def test_a_conflict_reported_by_one_signal_alone_blocks(mergeable: str, status: str) -> None:
    out = assess(REF, facts(mergeable=mergeable, mergeStateStatus=status))
    assert out["ready_to_merge"] is False
    assert "merge_conflicts" in codes(out)
    assert out["checks"]["no_conflicts"] is False
    assert out["next_action"]["command"] == "gh pr-agent conflicts 'acme/widgets#7'"


@pytest.mark.parametrize(("mergeable", "status"), [("UNKNOWN", "CLEAN"), ("MERGEABLE", "UNKNOWN"),
                                                   ("UNKNOWN", "BLOCKED")])
def test_unknown_reported_by_one_signal_alone_is_not_ready(mergeable: str, status: str) -> None:
    out = assess(REF, facts(mergeable=mergeable, mergeStateStatus=status))
    assert out["verdict"] == "unknown" and out["ready_to_merge"] is False
    assert codes(out) == ["mergeability_unknown"]
    # no_conflicts follows `mergeable` (GitHub's test merge): only MERGEABLE is evidence of no conflicts
    assert out["checks"]["no_conflicts"] is (mergeable == "MERGEABLE")
    assert "merge_conflicts" not in codes(out)


def test_a_cancelled_required_check_blocks_with_its_rerun_command() -> None:
    out = assess(REF, facts([run_node("test", "CANCELLED", run_id=4242), run_node("lint", "SUCCESS", job_id=2)],
                            mergeStateStatus="BLOCKED"))
    assert out["ready_to_merge"] is False
    assert codes(out) == ["required_check_cancelled"]
    assert out["blocking_issues"][0]["command"] == "gh run rerun 4242 --repo acme/widgets"
    assert out["checks"]["ci_passing"] is False
    bp = out["branch_protection"]
    assert (bp["failing_checks"], bp["passing_checks"], bp["pending_checks"]) == (["test"], ["lint"], [])


def test_failing_checks_lists_exactly_the_required_checks_not_passing() -> None:
    nodes = [run_node("unit", "FAILURE", job_id=1), run_node("e2e", "TIMED_OUT", job_id=2),
             run_node("docs", "SUCCESS", job_id=3), run_node("slow", None, job_id=4),
             run_node("optional", "FAILURE", required=False, job_id=5)]
    out = assess(REF, facts(nodes, mergeStateStatus="BLOCKED"))
    bp = out["branch_protection"]
    assert bp["failing_checks"] == ["unit", "e2e"]
    assert bp["passing_checks"] == ["docs"]
    assert bp["pending_checks"] == ["slow"]
    assert codes(out).count("required_check_failed") == 2
    assert [w["code"] for w in out["warnings"]] == ["optional_checks_failing"]


def test_only_approving_reviews_count_as_approvals() -> None:
    f = facts(reviewDecision="REVIEW_REQUIRED", mergeStateStatus="BLOCKED")
    f.rules = [{"type": "pull_request", "parameters": {"required_approving_review_count": 2}, "ruleset_id": 1}]
    f.reviews = [{"state": "COMMENTED", "author": {"login": "carol"}},
                 {"state": "DISMISSED", "author": {"login": "dave"}},
                 {"state": "PENDING", "author": {"login": "erin"}},
                 {"state": "CHANGES_REQUESTED", "author": {"login": "frank"}},
                 {"state": "APPROVED", "author": {"login": "alice"}},
                 {"state": "APPROVED", "author": None}]  # a deleted account ("ghost")
    out = assess(REF, f)
    assert out["branch_protection"]["current_approvals"] == 1
    blocker = next(b for b in out["blocking_issues"] if b["code"] == "review_required")
    assert "Needs 2 approving review(s), has 1" in blocker["description"]
    assert out["checks"]["approvals_met"] is False


def test_push_and_pull_request_runs_of_one_job_stay_two_checks() -> None:
    """A workflow on `push` and `pull_request` reports the same job twice; a red push run must not be hidden."""
    push = check_from_node(run_node("build", "FAILURE", event="push", run_id=1, job_id=10))
    pr = check_from_node(run_node("build", "SUCCESS", event="pull_request", run_id=2, job_id=11))
    assert push is not None and pr is not None
    kept = latest_per_check([push, pr])
    assert [(c.event, c.state) for c in kept] == [("push", "FAILURE"), ("pull_request", "SUCCESS")]
    rerun = check_from_node(run_node("build", "SUCCESS", event="push", run_id=3, job_id=12))
    assert rerun is not None
    assert [(c.event, c.state) for c in latest_per_check([push, pr, rerun])] == [
        ("push", "SUCCESS"), ("pull_request", "SUCCESS")]
