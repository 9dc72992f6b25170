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
