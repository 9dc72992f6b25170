"""How GitHub's answer for a pull request becomes the stack analysis's Pull (issue 19 mutation survivors of
stack/model.py): every field the analysis decides on, from a full node and from a sparse one (GitHub's nulls)."""

from __future__ import annotations

from pr_agent.refs import PRRef
from pr_agent.stack.model import Commit, Event, pull_from_graphql

A, B, C, M, P = (ch * 40 for ch in "abc9f")
REF = PRRef("acme", "widgets", 1, "ghe.example")

FULL = {
    "number": 7, "title": "Add widgets", "url": "https://ghe.example/acme/widgets/pull/7", "state": "MERGED",
    "headRefName": "feature", "baseRefName": "main", "headRefOid": B, "baseRefOid": P,
    "isCrossRepository": True, "headRepository": {"nameWithOwner": "contrib/widgets"},
    "maintainerCanModify": True, "viewerDidAuthor": True, "mergedAt": "2026-01-05T00:00:00Z",
    "mergeCommit": {"oid": M, "messageHeadline": "Add widgets (#7)", "authoredDate": "2026-01-05T00:00:00Z",
                    "parents": {"totalCount": 2, "nodes": [{"oid": P}, {"oid": B}]}},
    "commits": {"totalCount": 3, "nodes": [
        {"commit": {"oid": A, "messageHeadline": "first", "authoredDate": "2026-01-02T00:00:00Z",
                    "author": {"name": "Alice A.", "email": "alice@example.com", "user": {"login": "alice"}},
                    "parents": {"nodes": [{"oid": P}]}}},
        {"commit": {"oid": B, "messageHeadline": "second", "authoredDate": "2026-01-03T00:00:00Z",
                    "author": {"name": "Bob B.", "email": "bob@example.com", "user": None},
                    "parents": {"nodes": [{"oid": A}]}}},
        None,
    ]},
    "timelineItems": {"nodes": [
        {"__typename": "BaseRefChangedEvent", "createdAt": "2026-01-03T01:00:00Z", "previousRefName": "old-base",
         "currentRefName": "main"},
        {"__typename": "HeadRefForcePushedEvent", "createdAt": "2026-01-03T02:00:00Z", "beforeCommit": {"oid": C},
         "afterCommit": {"oid": B}},
        {"__typename": "LabeledEvent", "createdAt": "2026-01-03T03:00:00Z"},
        None,
        {"__typename": "MergedEvent", "createdAt": "2026-01-05T00:00:00Z", "commit": {"oid": M}},
        {"__typename": "HeadRefDeletedEvent", "createdAt": "2026-01-05T00:01:00Z"},
    ]},
}


def test_a_full_node_keeps_every_fact_the_analysis_uses() -> None:
    p = pull_from_graphql(REF, FULL)
    assert (p.ref, p.title, p.url, p.state) == (PRRef("acme", "widgets", 7, "ghe.example"), "Add widgets",
                                                 "https://ghe.example/acme/widgets/pull/7", "MERGED")
    assert (p.head_ref, p.base_ref, p.head_oid, p.base_oid) == ("feature", "main", B, P)
    assert (p.cross_repo, p.head_repo, p.maintainer_can_modify, p.viewer_did_author) == (
        True, "contrib/widgets", True, True)
    assert (p.merged_at, p.merge_commit, p.merge_commit_parents, p.merge_commit_parent_count) == (
        "2026-01-05T00:00:00Z", M, (P, B), 2)
    assert (p.merge_commit_headline, p.merge_commit_date) == ("Add widgets (#7)", "2026-01-05T00:00:00Z")
    assert p.commits == [Commit(A, "first", "alice", "alice@example.com", "2026-01-02T00:00:00Z", (P,)),
                         Commit(B, "second", "Bob B.", "bob@example.com", "2026-01-03T00:00:00Z", (A,))]
    assert p.commit_count == 3 and not p.all_commits_listed  # GitHub has 3; 2 were listed
    assert p.events == [
        Event("base_ref_changed", "2026-01-03T01:00:00Z", "old-base", "main"),
        Event("head_ref_force_pushed", "2026-01-03T02:00:00Z", before_oid=C, after_oid=B),
        Event("merged", "2026-01-05T00:00:00Z", commit_oid=M),
        Event("head_ref_deleted", "2026-01-05T00:01:00Z"),
    ]
    assert (p.fork_point, p.commit_oids, p.former_bases(), p.former_heads()) == (P, {A, B}, ["old-base"], [C])
    assert p.head_branch_deleted and p.is_merged and not p.is_open


def test_a_sparse_node_reads_githubs_nulls_as_empty_and_open() -> None:
    p = pull_from_graphql(REF, {"number": 8, "title": None, "url": None, "state": None, "headRefName": "x",
                                "mergeCommit": None, "commits": {"nodes": None}})
    assert (p.number, p.title, p.url, p.state, p.is_open) == (8, "", "", "OPEN", True)
    assert (p.merge_commit, p.merge_commit_parent_count, p.merge_commit_headline, p.merge_commit_date) == (
        None, None, "", "")
    assert (p.commits, p.commit_count, p.fork_point, p.events) == ([], 0, None, None)  # no timeline asked: unknown
    assert not p.head_branch_deleted and p.former_bases() == []


def test_a_restored_head_branch_is_not_deleted() -> None:
    node = {**FULL, "timelineItems": {"nodes": [{"__typename": "HeadRefDeletedEvent"},
                                                {"__typename": "HeadRefRestoredEvent"}]}}
    assert not pull_from_graphql(REF, node).head_branch_deleted
    assert pull_from_graphql(REF, {**node, "timelineItems": {"nodes": [{"__typename": "HeadRefDeletedEvent"}]}}
                             ).head_branch_deleted


def test_a_commit_without_a_user_or_email_has_its_name_and_no_email() -> None:
    node = {**FULL, "commits": {"totalCount": 1, "nodes": [{"commit": {
        "oid": A, "author": {"name": "Carol", "email": None, "user": None}, "parents": None}}]}}
    p = pull_from_graphql(REF, node)
    assert p.commits == [Commit(A, "", "Carol", "", "", ())] and p.fork_point is None and p.all_commits_listed
