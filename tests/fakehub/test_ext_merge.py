"""fakehub's merge-readiness extension: scenario keys, what it computes like GitHub, its REST routes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.merge_worlds import MAIN_RULESET, readiness_world
from tests.fakehub import FakeHub, ScenarioError
from tests.fakehub.ext_merge_rest import ROUTES as MERGE_ROUTES
from tests.fakehub.test_fakehub_unit import call

STATE_QUERY = """query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) {
  mergeable mergeStateStatus reviewDecision
  statusCheckRollup { state contexts(first: 10) { totalCount nodes { __typename
    ... on CheckRun { name status conclusion isRequired(pullRequestNumber: $n)
                      checkSuite { workflowRun { databaseId } } }
    ... on StatusContext { context state isRequired(pullRequestNumber: $n) } } } }
  latestOpinionatedReviews(first: 10, writersOnly: true) { nodes { state author { login } } }
  reviewRequests(first: 10) { nodes { requestedReviewer { __typename
    ... on User { login } ... on Team { combinedSlug } } } }
  baseRef { refUpdateRule { requiredStatusCheckContexts } } } } }"""


def pr_state(hub: FakeHub, number: int) -> dict[str, Any]:
    status, _, body = call(hub, "POST", "/graphql", {"query": STATE_QUERY, "variables": {"n": number}})
    assert status == 200 and "errors" not in body, body
    return body["data"]["repository"]["pullRequest"]


def test_github_like_derived_state() -> None:
    with FakeHub(readiness_world()) as hub:
        got = {n: (pr_state(hub, n)["mergeStateStatus"], pr_state(hub, n)["reviewDecision"])
               for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14)}
        assert got == {1: ("CLEAN", "APPROVED"), 2: ("DRAFT", None), 3: ("BLOCKED", "APPROVED"),
                       4: ("BLOCKED", "APPROVED"), 5: ("UNSTABLE", "APPROVED"), 6: ("BLOCKED", "CHANGES_REQUESTED"),
                       7: ("BLOCKED", "REVIEW_REQUIRED"), 8: ("BLOCKED", "APPROVED"), 9: ("BEHIND", "APPROVED"),
                       12: ("DIRTY", None), 13: ("BLOCKED", None), 14: ("UNSTABLE", None)}
        five = pr_state(hub, 5)
        assert [(n["name"], n["isRequired"]) for n in five["statusCheckRollup"]["contexts"]["nodes"]] == [
            ("test", True), ("lint", False)]
        assert five["statusCheckRollup"]["state"] == "FAILURE"
        seven = pr_state(hub, 7)
        assert [r["requestedReviewer"].get("login") or r["requestedReviewer"]["combinedSlug"]
                for r in seven["reviewRequests"]["nodes"]] == ["bob", "acme/core"]
        assert pr_state(hub, 13)["baseRef"]["refUpdateRule"] == {"requiredStatusCheckContexts": ["build"]}
        assert hub.problems == []


def test_unknown_reads_settle_or_never_do() -> None:
    with FakeHub(readiness_world()) as hub:
        assert [pr_state(hub, 10)["mergeable"] for _ in range(3)] == ["UNKNOWN", "UNKNOWN", "MERGEABLE"]
        assert {pr_state(hub, 11)["mergeStateStatus"] for _ in range(6)} == {"UNKNOWN"}
        assert hub.world.pull_request("acme/widgets", 10)["merge_state"]["reads"] == 3


def test_rest_routes_validate_against_the_openapi_subset() -> None:
    with FakeHub(readiness_world(viewer_permission="ADMIN")) as hub:
        repo = "/repos/acme/widgets"
        status, _, rules = call(hub, "GET", f"{repo}/rules/branches/main")
        assert status == 200 and [r["type"] for r in rules] == ["pull_request", "required_status_checks"]
        assert rules[0]["ruleset_id"] == 42 and rules[0]["ruleset_source"] == "acme/widgets"
        status, _, branch = call(hub, "GET", f"{repo}/branches/release")
        assert status == 200 and branch["protected"] is True
        assert branch["protection"]["required_status_checks"]["contexts"] == ["build"]
        status, _, prot = call(hub, "GET", f"{repo}/branches/release/protection")
        assert status == 200 and prot["required_status_checks"]["strict"] is True
        head = hub.world.pull_request("acme/widgets", 9)["head_sha"]
        status, _, cmp = call(hub, "GET", f"{repo}/compare/main...{head}?per_page=1")
        assert status == 200 and (cmp["behind_by"], cmp["status"]) == (3, "diverged")
        assert call(hub, "GET", f"{repo}/branches/main/protection")[2]["message"] == "Branch not protected"
        assert call(hub, "GET", f"{repo}/branches/nope")[0] == 404
        assert call(hub, "GET", f"{repo}/compare/main...{'0' * 40}")[0] == 404
        assert call(hub, "GET", f"{repo}/rules/branches/dev")[2] == []
        assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []
        assert set(MERGE_ROUTES) <= {r.route for r in hub.requests}
    with FakeHub(readiness_world()) as hub:  # not an admin: the protection endpoint is a plain 404
        assert call(hub, "GET", "/repos/acme/widgets/branches/release/protection")[2]["message"] == "Not Found"


RULES_QUERY = """query($n: Int!, $after: String) { repository(owner: "acme", name: "widgets") {
  pullRequest(number: $n) { baseRef { rules(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor }
    nodes { type repositoryRuleset { databaseId name enforcement source { __typename
        ... on Repository { nameWithOwner } ... on Organization { login } } }
      parameters { __typename
        ... on PullRequestParameters { requiredApprovingReviewCount requiredReviewThreadResolution
                                       requireCodeOwnerReview requireLastPushApproval dismissStaleReviewsOnPush }
        ... on RequiredStatusChecksParameters { strictRequiredStatusChecksPolicy
                                                requiredStatusChecks { context integrationId } } } } } } } } }"""


MERGE_QUEUE_PARAMETERS = {"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN",
                          "max_entries_to_build": 5, "max_entries_to_merge": 5, "merge_method": "SQUASH",
                          "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5}


def base_rules(hub: FakeHub, number: int, after: str | None = None) -> dict[str, Any]:
    """baseRef.rules of PR `number` (the rules of its base branch)."""
    status, _, body = call(hub, "POST", "/graphql", {"query": RULES_QUERY, "variables": {"n": number, "after": after}})
    assert status == 200 and "errors" not in body, body
    return body["data"]["repository"]["pullRequest"]["baseRef"]["rules"]


def test_ref_rules_serve_the_rulesets_rest_serves() -> None:
    world = readiness_world()
    org_set = {"id": 77, "name": "org policy", "source_type": "Organization", "rules": [
        {"type": "merge_queue", "parameters": MERGE_QUEUE_PARAMETERS},
        {"type": "pull_request", "parameters": {**MAIN_RULESET["rules"][0]["parameters"],
                                                "required_approving_review_count": 2,
                                                "allowed_merge_methods": ["squash"]}}]}
    world["repositories"][0]["branch_rules"] = {**world["repositories"][0]["branch_rules"],
                                                "main": {"rulesets": [MAIN_RULESET, org_set]}}
    with FakeHub(world) as hub:
        first = base_rules(hub, 1)  # base: main
        assert first["totalCount"] == 4 and first["pageInfo"]["hasNextPage"]
        rest = base_rules(hub, 1, first["pageInfo"]["endCursor"])
        assert not rest["pageInfo"]["hasNextPage"]
        nodes = first["nodes"] + rest["nodes"]
        _, _, rest_rules = call(hub, "GET", "/repos/acme/widgets/rules/branches/main")
        assert [(n["type"], n["repositoryRuleset"]["databaseId"]) for n in nodes] == [
            (r["type"].upper(), r["ruleset_id"]) for r in rest_rules]
        assert nodes[0]["repositoryRuleset"] == {"databaseId": 42, "name": "main protection", "enforcement": "ACTIVE",
                                                 "source": {"__typename": "Repository",
                                                            "nameWithOwner": "acme/widgets"}}
        assert nodes[0]["parameters"] == {"__typename": "PullRequestParameters", "requiredApprovingReviewCount": 1,
                                          "requiredReviewThreadResolution": True, "requireCodeOwnerReview": False,
                                          "requireLastPushApproval": False, "dismissStaleReviewsOnPush": False}
        assert nodes[1]["parameters"] == {"__typename": "RequiredStatusChecksParameters",
                                          "strictRequiredStatusChecksPolicy": True,
                                          "requiredStatusChecks": [{"context": "test", "integrationId": None}]}
        # merge_queue has no parameters type in the schema; allowed_merge_methods is REST-only
        assert nodes[2]["parameters"] is None
        assert nodes[2]["repositoryRuleset"]["source"] == {"__typename": "Organization", "login": "acme"}
        assert nodes[3]["parameters"]["requiredApprovingReviewCount"] == 2
        assert rest_rules[3]["parameters"]["allowed_merge_methods"] == ["squash"]
        assert base_rules(hub, 2) == {  # base: dev, no rules
       "totalCount": 0, "nodes": [],
                                                    "pageInfo": {"hasNextPage": False, "endCursor": None}}
        assert hub.problems == []


def test_bad_merge_keys_are_scenario_errors() -> None:
    world = readiness_world()
    world["repositories"][0]["pull_requests"][0]["checks"] = [{"name": "x", "colour": "red"}]
    with pytest.raises(ScenarioError, match=r"checks\[0\]: unknown key\(s\) colour"):
        FakeHub(world)
    world = readiness_world()
    world["repositories"][0]["pull_requests"][0]["merge_state"] = {"mergeable": "MAYBE"}
    with pytest.raises(ScenarioError, match="MAYBE"):
        FakeHub(world)


def test_world_snapshot_round_trips() -> None:
    with FakeHub(readiness_world()) as hub:
        pr_state(hub, 10)
        again = FakeHub(json.loads(json.dumps(hub.world.snapshot())))
        assert again.world.pull_request("acme/widgets", 10)["merge_state"]["reads"] == 1
