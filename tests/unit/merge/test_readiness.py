"""The readiness verdict (pure): fail closed, every blocker with a command, the one next action."""

from __future__ import annotations

from typing import Any

from pr_agent.merge.github import MAX_EXTRA_PAGES, ReadinessFacts, _capped, _more_pages, poll_delays
from pr_agent.merge.readiness import assess
from pr_agent.merge.rules import requirements, rules_from_graphql
from pr_agent.refs import PRRef

REF = PRRef("acme", "widgets", 7)


def facts(**pr: Any) -> ReadinessFacts:
    base = {"state": "OPEN", "isDraft": False, "mergeable": "MERGEABLE", "mergeStateStatus": "CLEAN",
            "reviewDecision": None, "baseRefName": "main", "baseRefOid": "b" * 40, "headRefName": "f",
            "headRefOid": "a" * 40, "isMergeQueueEnabled": False}
    return ReadinessFacts(repo={"viewerPermission": "WRITE", "squashMergeAllowed": False}, pr={**base, **pr},
                          rules=[], branch={"protected": False}, compare={"behind_by": 0, "ahead_by": 1})


def codes(out: dict[str, Any]) -> list[str]:
    return [b["code"] for b in out["blocking_issues"]]


def test_clean_is_ready_with_the_merge_command() -> None:
    out = assess(REF, facts())
    assert out["verdict"] == "ready" and out["ready_to_merge"] is True
    assert out["next_action"]["command"] == "gh pr merge 7 --repo acme/widgets --merge"  # squash not allowed


def test_blocked_without_a_visible_reason_is_still_blocked() -> None:
    out = assess(REF, facts(mergeStateStatus="BLOCKED"))
    assert (out["verdict"], codes(out)) == ("blocked", ["blocked_by_github"])
    assert out["next_action"]["command"] == "gh pr view 7 --repo acme/widgets --web"


def test_unknown_state_fails_closed() -> None:
    out = assess(REF, facts(mergeable="UNKNOWN", mergeStateStatus="UNKNOWN"))
    assert (out["verdict"], codes(out)) == ("unknown", ["mergeability_unknown"])
    assert out["checks"]["no_conflicts"] is False
    weird = assess(REF, facts(mergeStateStatus="SOMETHING_NEW"))
    assert weird["verdict"] == "unknown" and weird["ready_to_merge"] is False


def test_verdict_precedence_and_next_action_order() -> None:
    f = facts(isDraft=True, mergeable="CONFLICTING", mergeStateStatus="DIRTY", reviewDecision="CHANGES_REQUESTED")
    f.reviews = [{"state": "CHANGES_REQUESTED", "author": {"login": "bob"}}]
    out = assess(REF, f)
    assert out["verdict"] == "draft"
    assert codes(out) == ["merge_conflicts", "changes_requested", "draft"]
    assert out["next_action"]["command"] == "gh pr-agent conflicts 'acme/widgets#7'"


def test_closed_and_merged_prs() -> None:
    assert codes(assess(REF, facts(state="CLOSED"))) == ["pr_closed"]
    merged = assess(REF, facts(state="MERGED", mergeStateStatus="UNKNOWN", mergeable="UNKNOWN"))
    assert merged["verdict"] == "blocked" and codes(merged)[0] == "pr_merged"


def test_null_review_decision_means_no_requirement() -> None:
    f = facts()
    f.reviews = [{"state": "CHANGES_REQUESTED", "author": {"login": "bob"}}]
    f.rules = [{"type": "pull_request", "parameters": {"required_approving_review_count": 2}, "ruleset_id": 1}]
    out = assess(REF, f)
    assert out["verdict"] == "ready"
    assert [w["code"] for w in out["warnings"]] == ["changes_requested", "review_rule_not_applied"]


def test_strict_rule_and_behind_blocks_even_if_github_says_clean() -> None:
    f = facts()
    f.rules = [{"type": "required_status_checks", "parameters": {
        "required_status_checks": [], "strict_required_status_checks_policy": True}}]
    f.compare = {"behind_by": 2}
    assert codes(assess(REF, f)) == ["behind_base"]


def test_requirements_from_every_source() -> None:
    rules = [{"type": "pull_request", "ruleset_id": 3, "ruleset_source_type": "Organization",
              "ruleset_source": "acme", "parameters": {"required_approving_review_count": 1,
                                                       "allowed_merge_methods": ["squash", "rebase"]}},
             {"type": "required_status_checks", "ruleset_id": 3,
              "parameters": {"required_status_checks": [{"context": "test"}],
                             "strict_required_status_checks_policy": False}},
             {"type": "merge_queue", "ruleset_id": 3, "parameters": {}}]
    branch = {"protected": True, "protection": {"required_status_checks": {
        "enforcement_level": "everyone", "contexts": ["legacy"], "checks": [{"context": "legacy", "app_id": None}]}}}
    req = requirements(branch_name="main", rules=rules, branch=branch,
                       ref_update_rule={"requiredApprovingReviewCount": 2, "requiresConversationResolution": True},
                       protection=None, protection_status="skipped")
    assert (req.required_approvals, req.required_checks, req.strict) == (2, ["test", "legacy"], False)
    assert req.conversation_resolution and req.merge_queue and req.allowed_merge_methods == ["squash", "rebase"]
    assert req.classic == "partial" and req.sources[0] == "ruleset 3 (organization acme)"
    full = requirements(branch_name="main", rules=None, branch=branch, ref_update_rule=None, protection_status="read",
                        protection={"required_status_checks": {"strict": True, "contexts": [], "checks": []},
                                    "required_conversation_resolution": {"enabled": True}})
    assert full.classic == "read" and full.strict is True and any("rulesets" in n for n in full.notes)


def test_poll_delays_follow_the_budget() -> None:
    assert poll_delays({}) == [1.0, 2.0, 3.0, 4.0]
    assert sum(poll_delays({"GH_PR_AGENT_MERGEABLE_WAIT": "0.5"})) == 0.5
    assert poll_delays({"GH_PR_AGENT_MERGEABLE_WAIT": "nonsense"}) == [1.0, 2.0, 3.0, 4.0]


def test_graphql_rules_read_as_the_rest_rule_objects() -> None:
    conn = {"totalCount": 3, "pageInfo": {"hasNextPage": False}, "nodes": [
        {"type": "PULL_REQUEST", "repositoryRuleset": {"databaseId": 3, "source": {
            "__typename": "Organization", "login": "acme"}},
         "parameters": {"__typename": "PullRequestParameters", "requiredApprovingReviewCount": 1,
                        "requiredReviewThreadResolution": True, "requireCodeOwnerReview": False,
                        "requireLastPushApproval": True, "dismissStaleReviewsOnPush": False}},
        {"type": "REQUIRED_STATUS_CHECKS", "repositoryRuleset": {"databaseId": 4, "source": {
            "__typename": "Repository", "nameWithOwner": "acme/widgets"}},
         "parameters": {"__typename": "RequiredStatusChecksParameters", "strictRequiredStatusChecksPolicy": True,
                        "requiredStatusChecks": [{"context": "test", "integrationId": None}]}},
        None,
        {"type": "MERGE_QUEUE", "repositoryRuleset": {"databaseId": 4, "source": {
            "__typename": "Repository", "nameWithOwner": "acme/widgets"}}, "parameters": None}]}
    rules = rules_from_graphql(conn)
    assert rules[0] == {"type": "pull_request", "ruleset_id": 3, "ruleset_source_type": "Organization",
                        "ruleset_source": "acme", "parameters": {
                            "required_approving_review_count": 1, "required_review_thread_resolution": True,
                            "require_code_owner_review": False, "require_last_push_approval": True,
                            "dismiss_stale_reviews_on_push": False}}
    assert rules[1]["parameters"] == {"strict_required_status_checks_policy": True,
                                      "required_status_checks": [{"context": "test", "integration_id": None}]}
    req = requirements(branch_name="main", rules=rules, branch=None, ref_update_rule=None, protection=None,
                       protection_status="skipped")
    assert (req.required_approvals, req.required_checks, req.strict, req.merge_queue) == (1, ["test"], True, True)
    assert req.conversation_resolution and req.last_push_approval
    assert req.sources == ["ruleset 3 (organization acme)", "ruleset 4 (repository acme/widgets)"]
    assert rules_from_graphql(None) == []


class PagesGh:
    """Answers every PrThreadStatesPage with one more page of one unresolved thread, forever."""

    def __init__(self) -> None:
        self.calls = 0

    def graphql(self, query: str, variables: dict[str, Any], hostname: str | None = None) -> dict[str, Any]:
        self.calls += 1
        conn = {"nodes": [{"isResolved": False}], "pageInfo": {"hasNextPage": True, "endCursor": f"c{self.calls}"}}
        return {"repository": {"pullRequest": {"reviewThreads": conn}}}


def test_page_chains_stop_at_the_cap_and_say_so() -> None:
    gh = PagesGh()
    nodes, capped = _more_pages(gh, REF, "pr_thread_states_page", ("reviewThreads",),  # type: ignore[arg-type]
                                {"pageInfo": {"hasNextPage": True, "endCursor": "c0"}})
    assert (len(nodes), capped, gh.calls) == (MAX_EXTRA_PAGES, True, MAX_EXTRA_PAGES)
    assert _more_pages(gh, REF, "pr_thread_states_page", ("reviewThreads",),  # type: ignore[arg-type]
                       {"pageInfo": {"hasNextPage": False}}) == ([], False)
    f = facts()
    _capped(f, True, "51 of 9000 review threads")
    assert f.notes and "stopped after 50 further pages" in f.notes[0]


def test_code_owner_review_is_named_not_miscounted() -> None:
    def run(approvers: list[str], owners: list[str]) -> dict[str, Any]:
        f = facts(reviewDecision="REVIEW_REQUIRED", mergeStateStatus="BLOCKED")
        f.rules = [{"type": "pull_request", "parameters": {"required_approving_review_count": 1,
                                                          "require_code_owner_review": True}}]
        f.reviews = [{"state": "APPROVED", "author": {"login": who}} for who in approvers]
        f.code_owner_requests = owners
        f.review_requests = list(owners)
        return assess(REF, f)

    named = run(["bob"], ["acme/core", "alice"])
    assert codes(named) == ["code_owner_review_required"]
    assert "acme/core, alice" in named["blocking_issues"][0]["description"]
    assert named["blocking_issues"][0]["command"].endswith("--add-reviewer acme/core --add-reviewer alice")
    short = run([], ["acme/core"])
    assert codes(short) == ["review_required", "code_owner_review_required"]
    unnamed = run(["bob"], [])
    assert codes(unnamed) == ["code_owner_review_required"]
    assert "CODEOWNERS" in unnamed["blocking_issues"][0]["description"]
    assert codes(run([], [])) == ["review_required"]  # an owner may have approved; only the count is short
