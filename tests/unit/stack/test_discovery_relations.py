"""How two PRs relate and where the dependent's own commits start (issue 19 mutation survivors of
stack/discovery.py): stacking seen only in history, the old base from the listed commits, an ambiguous boundary
after a force-push, a copied commit in a real clone, the chain below and above, and the trees drawn for them."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

from pr_agent.git import Git
from pr_agent.stack import discovery
from pr_agent.stack.local import Clone
from pr_agent.stack.model import Commit, Event, Pull
from tests.unit.stack.test_analysis import B_COMMITS, D_COMMITS, OID, Src, c, merged_b, pull


def open_b() -> Pull:
    return pull(11, "feature-b", "main", "b3", B_COMMITS)


def test_stacking_seen_only_in_the_listed_commits_is_history() -> None:
    listing_base = pull(12, "feature-d", "main", "d2", [*B_COMMITS, *D_COMMITS])  # lists b3 itself
    starting_on_base = pull(12, "feature-d", "main", "d2", D_COMMITS)  # starts from b3 (its fork point)
    assert discovery.relation(open_b(), listing_base, None) == "history"
    assert discovery.relation(open_b(), starting_on_base, None) == "history"
    assert discovery.relation(open_b(), pull(12, "feature-d", "main", "d1", [c("d1", "m0")]), None) == "none"


def test_the_old_base_without_a_clone_is_the_base_head_the_dependent_has() -> None:
    dep = pull(12, "feature-d", "main", "d2", [*B_COMMITS, *D_COMMITS])
    assert discovery.old_base(open_b(), dep.head_oid, dep, None) == discovery.OldBase(OID["b3"], "head")
    starting = pull(12, "feature-d", "main", "d2", D_COMMITS)  # b3 not listed: only its fork point
    assert discovery.old_base(open_b(), starting.head_oid, starting, None) == discovery.OldBase(OID["b3"], "head")
    pushed = replace(open_b(), head_oid=OID["b4"], events=[
        Event("head_ref_force_pushed", before_oid=OID["b3"], after_oid=OID["b4"])])
    assert discovery.old_base(pushed, dep.head_oid, dep, None) == discovery.OldBase(OID["b3"], "former_head")
    on_branch = pull(12, "feature-d", "feature-b", "d2", [c("d1", "x1"), c("d2", "d1")])
    assert discovery.old_base(open_b(), on_branch.head_oid, on_branch, None) == discovery.OldBase(
        OID["x1"], "fork_point")
    elsewhere = pull(12, "feature-d", "main", "d2", [c("d1", "x1"), c("d2", "d1")])
    assert discovery.old_base(open_b(), elsewhere.head_oid, elsewhere, None) == discovery.OldBase(
        OID["b3"], "assumed")


def test_a_force_pushed_base_none_of_whose_versions_is_listed_leaves_every_boundary_open() -> None:
    pushed = replace(open_b(), head_oid=OID["b4"], events=[
        Event("head_ref_force_pushed", before_oid=OID["b2"], after_oid=OID["b4"])])
    dep = pull(12, "feature-d", "feature-b", "d2", [c("x1", "m0"), c("d1", "x1"), c("d2", "d1")])
    old = discovery.old_base(pushed, dep.head_oid, dep, None)
    assert (old.oid, old.how) == (OID["d1"], "ambiguous")  # the most conservative: replays only d2
    assert old.candidates == (
        (OID["m0"], ((OID["x1"], "commit x1"), (OID["d1"], "commit d1"), (OID["d2"], "commit d2"))),
        (OID["x1"], ((OID["d1"], "commit d1"), (OID["d2"], "commit d2"))),
        (OID["d1"], ((OID["d2"], "commit d2"),)),
    )


def test_a_childs_own_commits_start_at_its_parents_head_or_where_it_left_it() -> None:
    parent = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    on_head = pull(13, "feature-c", "feature-d", "c1", [c("c1", "d2")])
    assert discovery.child_old_base(parent, on_head, None) == OID["d2"]
    left_earlier = pull(13, "feature-c", "feature-d", "c1", [c("c1", "d1")])  # #12 got d2 after #13 branched
    assert discovery.child_old_base(parent, left_earlier, None) == OID["d1"]
    unlisted = pull(13, "feature-c", "feature-d", "c1", [])
    assert discovery.child_old_base(parent, unlisted, None) == OID["d2"]


def test_the_chain_below_is_followed_to_the_trunk_and_above_to_every_grandchild() -> None:
    bottom = pull(10, "feature-a", "main", "b1", B_COMMITS[:1])
    mid = pull(11, "feature-b", "feature-a", "b3", B_COMMITS[1:])
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    child = pull(13, "feature-c", "feature-d", "c1", [c("c1", "d2")])
    grandchild = pull(14, "feature-e", "feature-c", "x1", [c("x1", "c1")])
    src = Src([bottom, mid, dep, child, grandchild], {"main": "m1"})
    assert [p.number for p in discovery.ancestors(src, dep, "main")] == [11, 10]
    assert [(ch.number, par.number) for ch, par in discovery.descendants(src, dep)] == [(13, 12), (14, 13)]


def test_a_single_prefetched_open_pr_is_the_parent() -> None:
    class Prefetched(Src):
        def open_with_head(self, head: str) -> list[Pull] | None:
            return [p for p in self.prs if p.head_ref == head and p.is_open]

    mid = pull(11, "feature-b", "main", "b3", B_COMMITS)
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    src = Prefetched([mid, dep], {"main": "m1"})
    assert [p.number for p in discovery.ancestors(src, dep, "main")] == [11]
    assert src.lookups == []  # the prefetch answered


def test_an_open_bases_siblings_are_only_the_prs_on_its_branch() -> None:
    """While #11 is open, a PR on main that merely starts from #11's commits is not one it was retargeted from."""
    sib = pull(13, "feature-e", "feature-b", "c1", [c("c1", "b3")])
    on_main = pull(14, "feature-x", "main", "x1", [*B_COMMITS[:1], c("x1", "b1")])
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    src = Src([open_b(), dep, sib, on_main], {"main": "m1"})
    assert [p.number for p in discovery.siblings(src, open_b(), dep)] == [13]


def test_the_upstream_is_the_open_pr_on_the_base_branch_else_a_merged_former_base() -> None:
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    assert discovery.find_upstream(Src([open_b(), dep], {}), dep, "main").number == 11  # type: ignore[union-attr]
    same_head = pull(12, "feature-d", "feature-d", "d2", D_COMMITS)  # its own head as base: never its own upstream
    assert discovery.find_upstream(Src([same_head], {}), same_head, "main") is None
    moved = pull(12, "feature-d", "main", "d2", D_COMMITS,
                 events=[Event("base_ref_changed", previous_ref="feature-b", current_ref="main")])
    found = discovery.find_upstream(Src([merged_b(), moved], {}), moved, "main")
    assert found is not None and found.number == 11


def test_a_retarget_at_or_after_the_merge_is_found_and_a_bad_time_is_not() -> None:
    merged = replace(merged_b(), merged_at="2026-01-06T00:00:00Z")
    for when, found in [("2026-01-06T00:00:00Z", True), ("2026-01-06T00:00:01Z", True),
                        ("2026-01-05T23:59:59Z", False), ("yesterday", False)]:
        dep = pull(12, "feature-d", "main", "d2", [c("d1", "x1")],
                   events=[Event("base_ref_changed", when, previous_ref="feature-b", current_ref="main")])
        assert (discovery.retargeted_from_merged(Src([merged, dep], {}), dep) is not None) is found, when


def test_the_not_stacked_tree_draws_a_chain_of_three_levels() -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    parent = pull(13, "feature-c", "main", "c1", [c("c1", "m0")])
    dep = pull(12, "feature-d", "feature-c", "d1", [c("d1", "c1")])
    top = pull(14, "feature-e", "feature-d", "x1", [c("x1", "d1")])
    assert discovery.visualize_actual("main", [base, parent, dep, top], base, dep).splitlines() == [
        "main",
        "└─ #11 feature-b  [open]  base: main  <- base_pr",
        "└─ #13 feature-c  [open]  base: main",
        "   └─ #12 feature-d  [open]  base: feature-c  <- dependent_pr",
        "      └─ #14 feature-e  [open]  base: feature-d",
        "(not stacked: #12 is not built on #11)",
    ]


def test_the_not_stacked_tree_says_when_the_order_is_swapped() -> None:
    dep = pull(12, "feature-d", "main", "d2", D_COMMITS)
    base = pull(11, "feature-b", "feature-d", "b3", B_COMMITS)
    lines = discovery.visualize_actual("main", [base, dep], base, dep).splitlines()
    assert lines[-1] == ("(not stacked in that order: #11 is built on #12, so #12 is the base and #11 the "
                         "dependent)")
    assert lines[:3] == ["main", "└─ #12 feature-d  [open]  base: main  <- dependent_pr",
                         "   └─ #11 feature-b  [open]  base: feature-d  <- base_pr"]


# ---------------------------------------------------------------- in a real clone
def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A",
           "GIT_COMMITTER_EMAIL": "a@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def _commit(cwd: Path, name: str, message: str) -> str:
    (cwd / name).write_text(message + "\n")
    _git(cwd, "add", name)
    _git(cwd, "commit", "-q", "-m", message)
    return _git(cwd, "rev-parse", "HEAD")


def test_a_copied_commit_of_the_base_moves_the_boundary_up_in_a_clone(tmp_path: Path) -> None:
    """#12 branched from b1 and cherry-picked b2 (same patch, new commit): its own work starts after the copy."""
    _git(tmp_path, "init", "-q", "-b", "main")
    _commit(tmp_path, "m.txt", "m0")
    _git(tmp_path, "checkout", "-q", "-b", "feature-b")
    b1 = _commit(tmp_path, "b1.txt", "b1")
    b2 = _commit(tmp_path, "b2.txt", "b2")
    _git(tmp_path, "checkout", "-q", "-b", "feature-d", b1)
    _git(tmp_path, "cherry-pick", "-x", b2)  # -x: a new commit (its message names b2), the same patch
    copy = _git(tmp_path, "rev-parse", "HEAD")
    d1 = _commit(tmp_path, "d1.txt", "d1")
    clone = Clone(Git(tmp_path), "origin", str(tmp_path))
    base = replace(open_b(), head_oid=b2)
    assert discovery.old_base(base, d1, None, clone) == discovery.OldBase(copy, "same_patch")
    child = replace(pull(13, "feature-c", "feature-b", "d1", []), head_oid=d1)
    assert discovery.child_old_base(base, child, clone) == b1  # where #13 left #11 (their merge-base)
    assert discovery.child_old_base(replace(base, head_oid=b1), child, clone) == b1  # #11's head is in #13


def test_a_merge_base_the_new_base_already_has_pins_nothing(tmp_path: Path) -> None:
    """#11 was rebased onto main's m1 (new head b4); #12 still has the old head b3 and merged m1 in. Its own work
    starts after b3: m1, also a merge-base with the new head, is in the new base anyway."""
    _git(tmp_path, "init", "-q", "-b", "main")
    _commit(tmp_path, "m.txt", "m0")
    _git(tmp_path, "checkout", "-q", "-b", "feature-b")
    _commit(tmp_path, "b1.txt", "b1")
    b3 = _commit(tmp_path, "b3.txt", "b3")
    _git(tmp_path, "checkout", "-q", "-b", "feature-d")
    _commit(tmp_path, "d1.txt", "d1")
    _git(tmp_path, "checkout", "-q", "main")
    m1 = _commit(tmp_path, "m.txt", "m1")
    _git(tmp_path, "checkout", "-q", "feature-d")
    _git(tmp_path, "merge", "-q", "-m", "merge main", m1)
    merged = _git(tmp_path, "rev-parse", "HEAD")
    _git(tmp_path, "checkout", "-q", "-b", "rebased-b", m1)
    _commit(tmp_path, "b1.txt", "b1 again")
    b4 = _commit(tmp_path, "b3.txt", "b3 again")
    clone = Clone(Git(tmp_path), "origin", str(tmp_path))
    base = replace(open_b(), head_oid=b4, events=[Event("head_ref_force_pushed", before_oid=b3, after_oid=b4)])
    assert discovery.old_base(base, merged, None, clone, b4) == discovery.OldBase(b3, "former_head")
    unpinned = discovery.old_base(base, merged, None, clone)  # without the new base: two boundaries, not in line
    assert (unpinned.how, {p for p, _ in unpinned.candidates}) == ("ambiguous", {m1, b3})


def test_each_boundary_is_told_in_plain_words() -> None:
    short = OID["b3"][:12]
    assert discovery.OldBase(OID["b3"], "head").describe(open_b()) == (
        f"{short} is #11's last head commit, and your branch contains it")
    assert discovery.OldBase(OID["b3"], "assumed").describe(open_b()) == (
        f"{short} is #11's last head commit; whether your branch contains it could not be checked without a "
        "clone (the plan verifies it before rebasing)")
    assert discovery.OldBase(None, "none").describe(open_b()) == "no commit of the base PR was found in your branch"


def test_an_open_boundary_offers_the_last_twenty_listed_commits_only() -> None:
    oids = [f"{i:02d}".ljust(40, "e") for i in range(23)]  # oids[0] is where the dependent started
    commits = [Commit(oids[i], f"x{i}", parents=(oids[i - 1],)) for i in range(1, 23)]  # 22 listed commits
    pushed = replace(open_b(), head_oid=OID["b4"], events=[
        Event("head_ref_force_pushed", before_oid=OID["b2"], after_oid=OID["b4"])])
    dep = pull(12, "feature-d", "feature-b", "d2", [])
    dep = replace(dep, head_oid=oids[22], commits=commits, commit_count=22)
    old = discovery.old_base(pushed, dep.head_oid, dep, None)
    assert [p for p, _ in old.candidates] == oids[2:22]  # from the parent of the 20th newest, up
    assert old.candidates[0][1][0] == (oids[3], "x3") and len(old.candidates[0][1]) == 20  # x3..x22
    assert (old.oid, old.how) == (oids[21], "ambiguous")
