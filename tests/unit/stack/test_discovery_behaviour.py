"""Which other PRs a stack answer names as stacked on the base (issue 19 mutation survivors of
stack/discovery.py): once the base PR merged and GitHub retargeted its children onto main, a PR that merely
targets main from an older commit is not one of them."""

from __future__ import annotations

from pr_agent.stack.discovery import siblings
from tests.unit.stack.test_analysis import B_COMMITS, OID, Event, Src, c, merged_b, pull, retargeted_d


def test_an_unrelated_pr_on_the_trunk_is_not_a_sibling() -> None:
    base, dep = merged_b(events=[Event("head_ref_deleted")]), retargeted_d()
    unrelated = pull(13, "feature-x", "main", "x1", [c("x1", "m1")])  # from an older main commit, not from #11
    sibling = pull(14, "feature-c", "main", "c1", [c("c1", "b2")])  # built on #11's b2, retargeted to main
    src = Src([base, dep, unrelated, sibling], {"main": "sq"})
    assert [p.number for p in siblings(src, base, dep)] == [14]


def test_a_pr_from_the_base_prs_own_fork_point_is_not_a_sibling() -> None:
    base, dep = merged_b(events=[Event("head_ref_deleted")]), retargeted_d()
    beside = pull(15, "feature-y", "main", "x1", [c("x1", "m0")])  # starts where #11 started: beside, not on it
    src = Src([base, dep, beside], {"main": "sq"})
    assert siblings(src, base, dep) == []
    assert OID["m0"] == base.base_oid and B_COMMITS[0].parents == (OID["m0"],)
