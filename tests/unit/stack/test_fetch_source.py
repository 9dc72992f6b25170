"""What the stack analysis reads from GitHub when the first query's prefetch does not hold it (issue 19 mutation
survivors of stack/fetch.py): a branch's tip, a landed commit's history, and which PR a not-found error is about.
Real gh against fakehub; the expected values are the world's own commits, written out below."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.gh import Gh
from pr_agent.refs import PRRef
from pr_agent.stack import fetch
from pr_agent.stack.fetch import StackSource

C = [f"{i:040x}" for i in range(0xA1, 0xA8)]
REF = PRRef("acme", "widgets", 2)


def world(stacked: int = 0) -> dict[str, Any]:
    commits = [
        {"oid": C[0], "message": "init", "authored_date": "2026-01-01T00:00:00Z"},
        {"oid": C[1], "parents": [C[0]], "message": "b1", "authored_date": "2026-01-02T00:00:00Z"},
        {"oid": C[2], "parents": [C[1]], "message": "b2", "authored_date": "2026-01-03T00:00:00Z"},
        {"oid": C[3], "parents": [C[2]], "message": "d1", "authored_date": "2026-01-04T00:00:00Z"},
    ]
    return {"viewer": {"login": "octocat"}, "repositories": [{
        "owner": "acme", "name": "widgets", "commits": commits,
        "branches": {"main": C[2], "d": C[3], **{f"s{n}": C[3] for n in range(3, 3 + stacked)}},
        "pull_requests": [
            {"number": 2, "head_ref": "d", "base_ref": "main", "head_sha": C[3], "commits": [C[3]]},
            *({"number": n, "head_ref": f"s{n}", "base_ref": "d", "head_sha": C[3], "commits": [C[3]]}
              for n in range(3, 3 + stacked)),
        ]}]}


@pytest.fixture
def source(make_hub: Callable[..., Any], gh_path: str, monkeypatch: pytest.MonkeyPatch) -> Callable[..., StackSource]:
    def make(ref: PRRef = REF, stacked: int = 0) -> StackSource:
        hub = make_hub(world(stacked))
        monkeypatch.setenv("GH_PR_AGENT_GH", gh_path)
        return StackSource(Gh(base_env={**os.environ, **hub.env}, sleep=lambda s: None), ref)
    return make


def test_a_branch_tip_is_read_by_name_and_a_missing_branch_is_none(source: Callable[..., StackSource]) -> None:
    src = source()
    assert src.branch_tip("main") == C[2]
    assert src.branch_tip("d") == C[3]
    assert src.branch_tip("no-such-branch") is None


def test_a_history_not_prefetched_is_read_newest_first(source: Callable[..., StackSource]) -> None:
    history = source().history(C[3], 3)
    assert [(h.oid, h.headline, h.date) for h in history] == [
        (C[3], "d1", "2026-01-04T00:00:00Z"), (C[2], "b2", "2026-01-03T00:00:00Z"),
        (C[1], "b1", "2026-01-02T00:00:00Z")]


def test_a_missing_dependent_pr_is_named_not_the_base(source: Callable[..., StackSource]) -> None:
    with pytest.raises(PrAgentError) as err:
        source().pulls(2, 99)
    assert err.value.code == "pr_not_found" and "acme/widgets#99 " in err.value.message


def test_a_missing_base_pr_is_named(source: Callable[..., StackSource]) -> None:
    with pytest.raises(PrAgentError) as err:
        source().pulls(98, 2)
    assert err.value.code == "pr_not_found" and "acme/widgets#98 " in err.value.message


def test_a_missing_repository_is_a_typed_not_found(source: Callable[..., StackSource]) -> None:
    with pytest.raises(PrAgentError) as err:
        source(PRRef("acme", "gadgets", 2)).pulls(1, 2)
    assert err.value.code == "pr_not_found" and "acme/gadgets#1 " in err.value.message


def test_a_listing_cut_at_the_cap_is_said_once(source: Callable[..., StackSource],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fetch, "LISTING_CAP", 2)
    monkeypatch.setitem(fetch.FIRST_PAGE, "stack_children", 1)
    src = source(stacked=4)
    assert [p.number for p in src.children("d")] == [3, 4]  # the oldest two, one page each
    src.children("d")  # answered from what was read: no second note
    assert src.notes == [
        "Only the 2 oldest of the 4 open PRs based on 'd' were read; PRs stacked there beyond them are not in "
        "this answer."]
    src._note(src.notes[0])
    assert len(src.notes) == 1


def test_a_listing_within_the_cap_is_read_over_every_page(source: Callable[..., StackSource],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(fetch.FIRST_PAGE, "stack_children", 1)
    src = source(stacked=3)
    assert [p.number for p in src.children("d")] == [3, 4, 5] and src.notes == []


def test_the_first_query_prefetches_every_open_pr_by_head(source: Callable[..., StackSource]) -> None:
    src = source(stacked=2)
    assert src.open_with_head("d") is None  # nothing read yet: not known without a lookup
    base, dep = src.pulls(2, 3)
    assert (base.number, dep.number, dep.base_ref) == (2, 3, "d")
    assert [p.number for p in src.open_with_head("s4") or []] == [4]
    assert [p.number for p in src.open_with_head("d") or []] == [2]
    assert src.open_with_head("no-such-branch") == []
