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
from pr_agent.stack.fetch import StackSource

C = [f"{i:040x}" for i in range(0xA1, 0xA8)]
REF = PRRef("acme", "widgets", 2)


def world() -> dict[str, Any]:
    commits = [
        {"oid": C[0], "message": "init", "authored_date": "2026-01-01T00:00:00Z"},
        {"oid": C[1], "parents": [C[0]], "message": "b1", "authored_date": "2026-01-02T00:00:00Z"},
        {"oid": C[2], "parents": [C[1]], "message": "b2", "authored_date": "2026-01-03T00:00:00Z"},
        {"oid": C[3], "parents": [C[2]], "message": "d1", "authored_date": "2026-01-04T00:00:00Z"},
    ]
    return {"viewer": {"login": "octocat"}, "repositories": [{
        "owner": "acme", "name": "widgets", "commits": commits, "branches": {"main": C[2], "d": C[3]},
        "pull_requests": [
            {"number": 2, "head_ref": "d", "base_ref": "main", "head_sha": C[3], "commits": [C[3]]},
        ]}]}


@pytest.fixture
def source(make_hub: Callable[..., Any], gh_path: str, monkeypatch: pytest.MonkeyPatch) -> Callable[..., StackSource]:
    def make(ref: PRRef = REF) -> StackSource:
        hub = make_hub(world())
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
