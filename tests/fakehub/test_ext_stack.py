"""fakehub's stacked-PR extension: scenario checks, GraphQL history/timeline on GitHub's schema, PATCH pulls."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.fakehub import FakeHub, ScenarioError, World
from tests.fakehub.test_fakehub_unit import call, gql

C = [f"{i:040x}" for i in range(1, 8)]


def world(**pr_extra: Any) -> dict[str, Any]:
    commits = [
        {"oid": C[0], "message": "init", "authored_date": "2026-01-01T00:00:00Z"},
        {"oid": C[1], "parents": [C[0]], "message": "b1\n\nbody", "authored_date": "2026-01-02T00:00:00Z",
         "author_login": "octocat"},
        {"oid": C[2], "parents": [C[1]], "message": "b2", "authored_date": "2026-01-03T00:00:00Z"},
        {"oid": C[3], "parents": [C[0]], "message": "B (#1)", "authored_date": "2026-01-04T00:00:00Z"},
        {"oid": C[4], "parents": [C[2]], "message": "d1", "authored_date": "2026-01-05T00:00:00Z"},
    ]
    return {"viewer": {"login": "octocat"}, "repositories": [{
        "owner": "acme", "name": "widgets", "commits": commits, "branches": {"main": C[3], "d": C[4]},
        "pull_requests": [
            {"number": 1, "head_ref": "b", "state": "MERGED", "head_sha": C[2], "commits": [C[1], C[2]],
             "merge_commit": C[3], "head_ref_deleted": True, "merged_at": "2026-01-04T00:00:00Z"},
            {"number": 2, "head_ref": "d", "base_ref": "main", "head_sha": C[4], "commits": [C[1], C[2], C[4]],
             "timeline": [{"type": "base_ref_changed", "previous": "b", "current": "main",
                           "created_at": "2026-01-04T00:01:00Z"}], **pr_extra},
        ]}]}


@pytest.mark.parametrize(("patch", "message"), [
    ({"commits": [{"oid": "xyz"}]}, "commits[0].oid: 'xyz' is not a 40-hex commit id"),
    ({"commits": [{"oid": C[0], "parents": [C[6]]}]}, f"commits[0].parents: {C[6]} is not listed in commits"),
    ({"commits": [{"oid": C[0], "colour": 1}]}, "commits[0]: unknown key(s) colour"),
    ({"branches": {"main": C[6]}}, f"branches.main: {C[6]} is not listed in commits"),
])
def test_repository_history_is_checked(patch: dict[str, Any], message: str) -> None:
    sc = world()
    sc["repositories"][0].update(patch)
    with pytest.raises(ScenarioError, match=re.escape(message)):
        World(sc)


@pytest.mark.parametrize(("extra", "message"), [
    ({"merge_commit": C[3]}, "merge_commit: only a MERGED pull request has one"),
    ({"commits": [C[6]]}, f"commits: {C[6]} is not listed"),
    ({"timeline": [{"type": "renamed"}]}, "timeline[0].type: 'renamed' is not one of"),
    ({"timeline": [{"previous": "b"}]}, "timeline[0]: 'type' is required"),
])
def test_pull_request_history_is_checked(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=re.escape(message)):
        World(world(**extra))


def test_merged_and_deleted_events_are_added_in_time_order() -> None:
    w = World(world())
    assert [e["type"] for e in w.pull_request("acme/widgets", 1)["timeline"]] == ["merged", "head_ref_deleted"]
    assert w.pull_request("acme/widgets", 1)["timeline"][0]["commit"] == C[3]


QUERY = """
query($n: Int!) { repository(owner: "acme", name: "widgets") {
  ref(qualifiedName: "refs/heads/main") { name target { oid } }
  gone: ref(qualifiedName: "refs/heads/b") { name }
  object(oid: "OID") { ... on Commit { history(first: 3) { nodes { oid messageHeadline } } } }
  pullRequest(number: $n) {
    mergeCommit { oid messageHeadline authoredDate parents(first: 2) { totalCount nodes { oid } } }
    commits(first: 1) { totalCount nodes { commit { oid messageBody author { name user { login } } } } }
    timelineItems(last: 10, itemTypes: [BASE_REF_CHANGED_EVENT, MERGED_EVENT, HEAD_REF_DELETED_EVENT]) {
      totalCount nodes { __typename ... on BaseRefChangedEvent { previousRefName currentRefName }
                         ... on MergedEvent { commit { oid } mergeRefName } }
    }
  } } }""".replace("OID", C[4])


def test_graphql_serves_refs_commits_history_and_timeline() -> None:
    with FakeHub(world()) as hub:
        merged = gql(hub, QUERY, n=1)["data"]["repository"]
        child = gql(hub, QUERY, n=2)["data"]["repository"]
        assert hub.unhandled == [] and hub.errors == []
    assert merged["ref"] == {"name": "main", "target": {"oid": C[3]}} and merged["gone"] is None
    assert [n["messageHeadline"] for n in merged["object"]["history"]["nodes"]] == ["d1", "b2", "b1"]
    pr = merged["pullRequest"]
    assert pr["mergeCommit"]["parents"] == {"totalCount": 1, "nodes": [{"oid": C[0]}]}
    assert pr["commits"]["totalCount"] == 2
    assert pr["commits"]["nodes"][0]["commit"] == {"oid": C[1], "messageBody": "body",
                                                   "author": {"name": "Octo Cat", "user": {"login": "octocat"}}}
    assert [n["__typename"] for n in pr["timelineItems"]["nodes"]] == ["MergedEvent", "HeadRefDeletedEvent"]
    assert pr["timelineItems"]["nodes"][0] == {"__typename": "MergedEvent", "commit": {"oid": C[3]},
                                               "mergeRefName": "main"}
    assert child["pullRequest"]["mergeCommit"] is None
    assert child["pullRequest"]["timelineItems"]["nodes"] == [
        {"__typename": "BaseRefChangedEvent", "previousRefName": "b", "currentRefName": "main"}]


def test_patch_pull_retargets_and_records_the_event() -> None:
    sc = world()
    sc["repositories"][0]["pull_requests"].append({"number": 3, "head_ref": "e", "base_ref": "d"})
    with FakeHub(sc) as hub:
        status, _, body = call(hub, "PATCH", "/repos/acme/widgets/pulls/3", {"base": "main", "title": "T"})
        assert status == 200 and body["base"]["ref"] == "main" and body["base"]["sha"] == C[3]
        assert body["title"] == "T"
        assert call(hub, "PATCH", "/repos/acme/widgets/pulls/3", {"base": "nope"})[0] == 422
        assert call(hub, "PATCH", "/repos/acme/widgets/pulls/3", {"base": 7})[0] == 422
        assert call(hub, "PATCH", "/repos/acme/widgets/pulls/1", {"base": "d"})[0] == 422  # merged
        assert call(hub, "PATCH", "/repos/acme/widgets/pulls/9", {"base": "main"})[0] == 404
        assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []
        pr = hub.world.pull_request("acme/widgets", 3)
        assert (pr["base_ref"], pr["title"]) == ("main", "T")
        assert pr["timeline"][-1]["type"] == "base_ref_changed" and pr["timeline"][-1]["previous"] == "d"
        events = gql(hub, "{ repository(owner: \"acme\", name: \"widgets\") { pullRequest(number: 3) { "
                          "timelineItems(first: 5) { nodes { ... on BaseRefChangedEvent { previousRefName "
                          "currentRefName actor { login } } } } } } }")
        assert events["data"]["repository"]["pullRequest"]["timelineItems"]["nodes"] == [
            {"previousRefName": "d", "currentRefName": "main", "actor": {"login": "octocat"}}]


PREFETCH = """
query { repository(owner: "acme", name: "widgets") {
  open: pullRequests(states: [OPEN], first: 1, orderBy: {field: CREATED_AT, direction: ASC}) {
    totalCount pageInfo { hasNextPage endCursor } nodes { number baseRef { name target { oid } } }
  }
  all: pullRequests(first: 5) { totalCount }
  merged: pullRequest(number: 1) {
    baseRef { name target { oid ... on Commit { messageHeadline } } }
    headRef { name target { oid } }
    mergeCommit { history(first: 2) { nodes { oid } } }
  } } }"""


def test_graphql_serves_ref_targets_and_the_open_listing() -> None:
    """What the stack tools' first query prefetches: a PR's baseRef/headRef tips (from ``branches``; the ref
    itself null, as on GitHub, for a deleted branch), the open PRs with paging, and the landed commit's history."""
    sc = world()
    sc["repositories"][0]["pull_requests"].append({"number": 3, "head_ref": "e", "base_ref": "d"})
    with FakeHub(sc) as hub:
        repo = gql(hub, PREFETCH)["data"]["repository"]
        assert hub.unhandled == [] and hub.errors == [] and hub.schema_violations == []
    assert repo["open"]["totalCount"] == 2 and repo["all"]["totalCount"] == 3
    assert repo["open"]["pageInfo"]["hasNextPage"] is True
    assert repo["open"]["nodes"] == [{"number": 2, "baseRef": {"name": "main", "target": {"oid": C[3]}}}]
    merged = repo["merged"]
    assert merged["baseRef"] == {"name": "main", "target": {"oid": C[3], "messageHeadline": "B (#1)"}}
    assert merged["headRef"] is None  # deleted after merging: GitHub answers null, not a Ref without target
    assert [n["oid"] for n in merged["mergeCommit"]["history"]["nodes"]] == [C[3], C[0]]


REFS = """query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) {
  headRefName baseRefName headRef { name target { oid } } baseRef { name } } } }"""


@pytest.mark.parametrize(("branches", "extra", "head", "base"), [
    ({"main": C[3], "b": C[2]}, {}, {"name": "b", "target": {"oid": C[2]}}, {"name": "main"}),
    ({"main": C[3]}, {}, None, {"name": "main"}),  # the branch is gone from the repository
    ({"main": C[3], "b": C[2]}, {"head_ref_deleted": True}, None, {"name": "main"}),  # deleted, says the PR
    ({"main": C[3], "b": C[2]}, {"head_ref_deleted": True, "timeline": [
        {"type": "head_ref_deleted", "created_at": "2026-01-04T00:00:00Z"},
        {"type": "head_ref_restored", "created_at": "2026-01-05T00:00:00Z"}]}, {"name": "b", "target": {"oid": C[2]}},
     {"name": "main"}),
    ({"b": C[2], "d": C[4]}, {}, {"name": "b", "target": {"oid": C[2]}}, None),  # the base branch was deleted
    ({}, {}, {"name": "b", "target": None}, {"name": "main"}),  # no branch listing: nothing is known gone
])
def test_a_deleted_branch_is_a_null_ref(branches: dict[str, str], extra: dict[str, Any], head: Any,
                                        base: Any) -> None:
    """GitHub's PullRequest.headRef/baseRef are null once the branch is deleted (headRefName stays)."""
    sc = world()
    repo = sc["repositories"][0]
    repo["branches"] = branches
    pr = repo["pull_requests"][0]
    pr.update({"state": "OPEN", "merge_commit": None, "head_ref_deleted": False, "merged_at": None, **extra})
    with FakeHub(sc) as hub:
        got = gql(hub, REFS, n=1)["data"]["repository"]["pullRequest"]
        assert hub.unhandled == [] and hub.errors == [] and hub.schema_violations == []
    assert got == {"headRefName": "b", "baseRefName": "main", "headRef": head, "baseRef": base}


def test_the_stack_queries_are_within_githubs_limits() -> None:
    """The prefetching first query stays cheap: a few rate-limit points and far below the node limit."""
    from graphql import get_operation_ast, parse

    from pr_agent.queries import load_query
    from tests.fakehub.gql_checks import analyze
    from tests.fakehub.schemas import graphql_schema

    common = {"owner": "acme", "repo": "widgets"}
    cases: list[tuple[str, dict[str, Any]]] = [
        ("stack_pulls", {"base": 1, "dependent": 2, "withOnto": True, "onto": "refs/heads/main"}),
        ("stack_pull", {"number": 1}), ("stack_children", {"base": "b", "first": 50}),
        ("stack_by_head", {"head": "b", "first": 100, "after": "Y3Vyc29yOjE="}),
        ("stack_by_head", {"head": "b", "first": 20, "withMerged": True})]  # the upstream lookup: + one in full
    for name, variables in cases:
        doc = parse(load_query(name))
        errors, cost, nodes = analyze(graphql_schema(), doc, get_operation_ast(doc), {**common, **variables})
        assert errors == [] and cost <= 5 and nodes <= 2_000, (name, errors, cost, nodes)


FORK = """query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) {
  isCrossRepository maintainerCanModify headRefName headRepository { nameWithOwner isFork owner { login } }
  headRepositoryOwner { login } repository { nameWithOwner } } } }"""


def test_a_fork_pr_is_served_as_github_serves_it() -> None:
    """GitHub: a PR from a fork has isCrossRepository true, headRepository the fork (not the base repository),
    maintainerCanModify as its author set it; REST's head.repo / head.label name the fork too."""
    sc = world(head_repository="contrib/widgets", maintainer_can_modify=True)
    sc["repositories"].append({"owner": "contrib", "name": "widgets"})
    with FakeHub(sc) as hub:
        fork = gql(hub, FORK, n=2)["data"]["repository"]["pullRequest"]
        same = gql(hub, FORK, n=1)["data"]["repository"]["pullRequest"]
        status, _, rest = call(hub, "GET", "/repos/acme/widgets/pulls/2")
        assert hub.unhandled == [] and hub.errors == [] and hub.schema_violations == []
    assert fork == {"isCrossRepository": True, "maintainerCanModify": True, "headRefName": "d",
                    "headRepository": {"nameWithOwner": "contrib/widgets", "isFork": True,
                                       "owner": {"login": "contrib"}},
                    "headRepositoryOwner": {"login": "contrib"}, "repository": {"nameWithOwner": "acme/widgets"}}
    assert same["isCrossRepository"] is False and same["maintainerCanModify"] is False
    assert same["headRepository"]["nameWithOwner"] == "acme/widgets"
    assert status == 200 and rest["head"]["label"] == "contrib:d" and rest["maintainer_can_modify"] is True
    assert rest["head"]["repo"]["full_name"] == "contrib/widgets" and rest["head"]["user"]["login"] == "contrib"
    assert rest["base"]["repo"]["full_name"] == "acme/widgets"


@pytest.mark.parametrize(("extra", "message"), [
    ({"head_repository": "no-slash"}, "head_repository: 'no-slash' is not 'owner/name'"),
    ({"maintainer_can_modify": True}, "maintainer_can_modify: only a fork PR (head_repository) has it"),
    ({"head_repository": "contrib/widgets"}, "head_repository: 'contrib/widgets' is not a listed repository"),
])
def test_fork_keys_are_checked(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=re.escape(message)):
        World(world(**extra))
