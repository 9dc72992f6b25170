"""The stack analysis from GitHub's data alone (no clone): relations, merge methods, old bases, strategies and
the plan's shape. The same decisions are exercised against real repositories in tests/e2e/test_stack.py."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.git import Git
from pr_agent.refs import PRRef
from pr_agent.stack.analysis import Analysis, Options, analyze
from pr_agent.stack.discovery import find_upstream
from pr_agent.stack.merge import detect_api
from pr_agent.stack.model import Commit, Event, Pull

OID = {name: name.ljust(40, "0") for name in ("m0", "m1", "b1", "b2", "b3", "b4", "d1", "d2", "c1", "sq", "x1")}
T = "2026-01-0{}T00:00:00Z"


def c(name: str, parent: str, day: int = 1) -> Commit:
    return Commit(OID[name], f"commit {name}", "alice", "a@x", T.format(day), (OID[parent],))


def pull(n: int, head: str, base: str, head_oid: str, commits: list[Commit], state: str = "OPEN",
         **kw: Any) -> Pull:
    return Pull(PRRef("acme", "widgets", n), f"PR {n}", "", state, head, base, OID[head_oid], OID["m0"],
                commits=commits, commit_count=len(commits), events=kw.pop("events", []), **kw)


class Src:
    def __init__(self, prs: list[Pull], tips: dict[str, str], history: dict[str, list[Commit]] | None = None):
        self.prs, self.tips, self.hist = prs, tips, history or {}
        self.default_branch = "main"
        self.notes: list[str] = []
        self.lookups: list[tuple[str, bool]] = []
        self.completed: list[int] = []

    def open_with_head(self, head: str) -> list[Pull] | None:
        return None  # no prefetched listing: by_head answers

    def by_head(self, head: str, detail: bool = False) -> list[Pull]:
        self.lookups.append((head, detail))
        return [p for p in self.prs if p.head_ref == head]

    def complete(self, pr: Pull) -> Pull:
        """StackSource.complete: a PR read without its timeline is read again in full."""
        if pr.events is not None:
            return pr
        self.completed.append(pr.number)
        return replace(pr, events=[])

    def children(self, base: str) -> list[Pull]:
        return [p for p in self.prs if p.base_ref == base and p.is_open]

    def branch_tip(self, name: str) -> str | None:
        return OID.get(self.tips.get(name, ""))

    def history(self, oid: str, n: int) -> list[Commit]:
        return self.hist.get(oid, [])[:n]


B_COMMITS = [c("b1", "m0", 1), c("b2", "b1", 2), c("b3", "b2", 3)]
D_COMMITS = [c("d1", "b3", 4), c("d2", "d1", 5)]


def merged_b(parents: int = 1, **kw: Any) -> Pull:
    return pull(11, "feature-b", "main", "b3", B_COMMITS, "MERGED", merge_commit=OID["sq"],
                merge_commit_parent_count=parents, merge_commit_headline="PR 11 (#11)", merge_commit_date=T.format(6),
                **kw)


def retargeted_d() -> Pull:
    return pull(12, "feature-d", "main", "d2", [*B_COMMITS, *D_COMMITS],
                events=[Event("base_ref_changed", previous_ref="feature-b", current_ref="main")])


def run(tmp_path: Path, base: Pull, dep: Pull, extra: list[Pull] = (), tips: dict[str, str] | None = None,
        history: dict[str, list[Commit]] | None = None, **opts: Any) -> Analysis:
    src = Src([base, dep, *extra], tips or {"main": "sq"}, history)
    ctx = Context(git=Git(tmp_path), env={})
    return analyze(ctx, src, base, dep, Options(**opts))  # type: ignore[arg-type]


def commands(a: Analysis) -> list[str]:
    return [s.command for s in a.steps]


def test_squash_merged_and_retargeted(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(), retargeted_d(), history={OID["sq"]: [Commit(OID["sq"], "PR 11 (#11)")]})
    assert (a.relation, a.merge.method, a.old.oid, a.old.how) == ("retargeted", "squash", OID["b3"], "head")
    assert a.needs_rebase and a.retarget_to is None and not a.in_clone
    s = a.strategy
    assert (s.recommended, s.ai_should_decide) == ("onto", False)
    assert s.onto_command == f"git rebase --onto refs/remotes/origin/main {OID['b3']} feature-d"
    assert [st.type for st in a.steps] == ["git", "git", "verification", "git", "git", "ci_wait", "fix", "git",
                                           "verification"]
    assert commands(a)[1] == ("git show-ref --verify --quiet refs/heads/feature-d || git branch --track feature-d "
                              "refs/remotes/origin/feature-d")
    assert commands(a)[4] == (f"git push --force-with-lease=refs/heads/feature-d:{OID['d2']} origin "
                              "refs/heads/feature-d:refs/heads/feature-d")
    assert a.risk == "medium" and "#12's own 2 commit(s)" in s.reason
    assert a.changes.source == "api" and [x.oid for x in a.changes.commits] == [OID["sq"]]


def test_rebase_merge_is_told_from_the_landed_history(tmp_path: Path) -> None:
    replayed = [replace(x, oid=OID["x1"]) for x in reversed(B_COMMITS)]
    a = run(tmp_path, merged_b(), retargeted_d(), history={OID["sq"]: replayed})
    assert a.merge.method == "rebase" and a.strategy.recommended == "onto"


def test_merge_commit_makes_both_strategies_valid(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(parents=2), retargeted_d())
    assert a.merge.method == "merge"
    assert (a.strategy.recommended, a.strategy.ai_should_decide) == ("regular", True)
    assert "git rebase refs/remotes/origin/main feature-d" in commands(a)


def test_branch_kept_child_still_on_old_base_is_retargeted_after_the_push(tmp_path: Path) -> None:
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    a = run(tmp_path, merged_b(), dep, auto_fix=False)
    assert a.relation == "direct" and a.retarget_to == "main" and a.needs_rebase
    cmds = commands(a)
    assert cmds[-2] == "gh api --method PATCH repos/acme/widgets/pulls/12 -f base=main --silent"
    assert cmds[-1] == "gh pr-agent checks 'acme/widgets#12' --wait"
    assert "Then point #12 at main" in a.reason


def test_open_base_with_new_commits_regular_rebase(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b4", [*B_COMMITS, c("b4", "b3", 6)])
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    a = run(tmp_path, base, dep)
    assert (a.old.oid, a.old.how) == (OID["b3"], "fork_point")
    assert (a.strategy.recommended, a.strategy.ai_should_decide) == ("regular", True)
    assert "git rebase refs/remotes/origin/feature-b feature-d" in commands(a)
    assert [x.oid for x in a.changes.commits] == [OID["b4"]]


def test_force_pushed_base_needs_onto_with_the_former_head(tmp_path: Path) -> None:
    rewritten = [c("b1", "m1", 7), c("b4", "b1", 8)]
    base = pull(11, "feature-b", "main", "b4", rewritten,
                events=[Event("head_ref_force_pushed", before_oid=OID["b3"], after_oid=OID["b4"])])
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS))
    assert (a.old.oid, a.old.how) == (OID["b3"], "former_head")
    assert (a.strategy.recommended, a.strategy.ai_should_decide) == ("onto", False)


def test_up_to_date_child_has_nothing_to_do(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS))
    assert a.is_stacked and not a.needs_rebase and a.steps == [] and a.strategy.recommended == "none"
    assert not a.action_required and "already contains #11's latest head" in a.strategy.reason


def test_closed_base_leaves_the_choice_to_the_agent(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS, "CLOSED")
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), tips={"main": "m1"})
    assert a.strategy.recommended == "regular" and a.strategy.ai_should_decide is True
    assert a.retarget_to == "main" and "closed without merging" in a.strategy.reason


@pytest.mark.parametrize(("use_onto", "rec", "risk"), [(False, "regular", "high"), (True, "onto", "medium")])
def test_use_onto_forces_the_choice(tmp_path: Path, use_onto: bool, rec: str, risk: str) -> None:
    a = run(tmp_path, merged_b(), retargeted_d(), use_onto=use_onto)
    assert a.strategy.recommended == rec and a.strategy.ai_should_decide is False and a.risk == risk


def test_onto_base_moves_the_child_off_an_open_base(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), tips={"main": "m1"},
            onto_base="main")
    assert a.strategy.recommended == "onto" and a.retarget_to == "main"
    assert f"git rebase --onto refs/remotes/origin/main {OID['b3']} feature-d" in commands(a)


def test_not_stacked(tmp_path: Path) -> None:
    other = pull(12, "feature-x", "main", "x1", [c("x1", "m0")])
    a = run(tmp_path, merged_b(), other)
    assert not a.is_stacked and a.steps == [] and "is not stacked on #11" in a.reason


def test_not_stacked_tree_draws_each_pr_on_its_real_base(tmp_path: Path) -> None:
    """#12 is stacked on #13, not on #11: the tree puts #12 under #13 and #11 beside them, each PR once."""
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    parent = pull(13, "feature-c", "main", "c1", [c("c1", "m0")])
    dep = pull(12, "feature-d", "feature-c", "d1", [c("d1", "c1")])
    a = run(tmp_path, base, dep, extra=[parent])
    assert not a.is_stacked and "It is stacked on #13" in a.reason
    assert a.visualization.splitlines() == [
        "main",
        "└─ #11 feature-b  [open]  base: main  <- base_pr",
        "└─ #13 feature-c  [open]  base: main",
        "   └─ #12 feature-d  [open]  base: feature-c  <- dependent_pr",
        "(not stacked: #12 is not built on #11)",
    ]


def test_children_of_the_dependent_are_restacked_in_order(tmp_path: Path) -> None:
    child = pull(13, "feature-c", "feature-d", "c1", [c("c1", "d2")])
    a = run(tmp_path, merged_b(), retargeted_d(), extra=[child], auto_fix=False)
    cmds = commands(a)
    assert f"git rebase --onto refs/heads/feature-d {OID['d2']} feature-c" in cmds
    assert (f"git push --atomic --force-with-lease=refs/heads/feature-d:{OID['d2']} "
            f"--force-with-lease=refs/heads/feature-c:{OID['c1']} origin "
            "refs/heads/feature-d:refs/heads/feature-d refs/heads/feature-c:refs/heads/feature-c") in cmds
    assert [r[1] for r in a.chain] == ["base", "dependent", "above"]


def test_hostile_and_refused_branch_names(tmp_path: Path) -> None:
    evil = "d/$(rm${IFS}-rf${IFS}x);'y'|z>w"  # shell-hostile, yet a name git accepts
    dep = replace(retargeted_d(), head_ref=evil)
    a = run(tmp_path, merged_b(), dep)
    rebase = next(s.command for s in a.steps if "rebase" in s.command)
    assert shlex.split(rebase) == ["git", "rebase", "--onto", "refs/remotes/origin/main", OID["b3"], evil]
    with pytest.raises(PrAgentError) as err:
        run(tmp_path, merged_b(), replace(retargeted_d(), head_ref="-rf"))
    assert err.value.code == "unsafe_branch_name"
    with pytest.raises(PrAgentError) as err:  # git refuses '~' and ' ' in branch names: no command for it
        run(tmp_path, merged_b(), replace(retargeted_d(), head_ref="d/$(rm -rf ~)"))
    assert err.value.code == "unsafe_branch_name" and "'~'" in err.value.details["reason"]


def test_find_upstream_by_base_branch_and_by_former_base() -> None:
    kept = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    assert find_upstream(Src([merged_b(), kept], {}), kept, "main").number == 11  # type: ignore[arg-type]
    moved = retargeted_d()
    assert find_upstream(Src([merged_b(), moved], {}), moved, "main").number == 11  # type: ignore[arg-type]
    alone = pull(12, "feature-d", "main", "d2", D_COMMITS)
    assert find_upstream(Src([merged_b(), alone], {}), alone, "main") is None  # type: ignore[arg-type]


def test_find_upstream_returns_a_merged_upstream_complete() -> None:
    """The lookup asks for the merged PR in full; one it still got without its timeline (e.g. a fork's PR with
    the same branch name was merged later) is read again, and an open one, which is an error anyway, is not."""
    moved = retargeted_d()
    full = Src([merged_b(), moved], {})
    assert find_upstream(full, moved, "main") is not None  # type: ignore[arg-type]
    assert full.lookups == [("feature-b", True)] and full.completed == []
    light = Src([replace(merged_b(), events=None), moved], {})
    up = find_upstream(light, moved, "main")  # type: ignore[arg-type]
    assert up is not None and up.events == [] and light.completed == [11]
    kept = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    opened = Src([replace(pull(11, "feature-b", "main", "b3", B_COMMITS), events=None), kept], {})
    up = find_upstream(opened, kept, "main")  # type: ignore[arg-type]
    assert up is not None and up.is_open and opened.completed == []


def _middle_stack(dep_commits: list[Commit], fork_parent: str, when: str) -> tuple[Src, Pull]:
    """main <- #10 feature-a (open) <- #11 feature-b, merged into feature-a (branch deleted) <- #12, which GitHub
    retargeted from feature-b to feature-a at `when`."""
    bottom = pull(10, "feature-a", "main", "m1", [c("m1", "m0")])
    middle = replace(merged_b(), base_ref="feature-a", merged_at=T.format(6))
    dep = pull(12, "feature-d", "feature-a", "d2", dep_commits or [c("d1", fork_parent, 4), c("d2", "d1", 5)],
               events=[Event("base_ref_changed", when, previous_ref="feature-b", current_ref="feature-a")])
    return Src([bottom, middle, dep], {}), dep


def test_find_upstream_prefers_the_merged_middle_over_the_open_pr_it_was_retargeted_onto() -> None:
    """Issue 12 (3): the still-open bottom PR is not the upstream of a rebase after a merge. The merged former base
    is, when the dependent carries one of its commits (here its fork point b1, an early commit of #11's list), or
    when GitHub retargeted it away from that PR's branch after the merge (a force-push of #11 rewrote the commits
    the dependent carries, so no listing has one in common)."""
    src, dep = _middle_stack([], "b1", T.format(7))
    assert find_upstream(src, dep, "main").number == 11  # type: ignore[arg-type]
    src, dep = _middle_stack([], "x1", T.format(7))  # x1: a pre-force-push copy no listing names
    assert find_upstream(src, dep, "main").number == 11  # type: ignore[arg-type]
    src, dep = _middle_stack([], "x1", T.format(5))  # retargeted by hand before #11 merged: no evidence
    assert find_upstream(src, dep, "main").number == 10  # type: ignore[arg-type]
    src, dep = _middle_stack([], "x1", "not a time")
    assert find_upstream(src, dep, "main").number == 10  # type: ignore[arg-type]


def test_single_commit_pr_rebase_vs_squash() -> None:
    one = pull(11, "b", "main", "b1", [c("b1", "m0", 1)], "MERGED", merge_commit=OID["sq"],
               merge_commit_parent_count=1, merge_commit_headline="commit b1", merge_commit_date=T.format(1))
    assert detect_api(one, lambda o, n: []).method == "rebase"
    assert detect_api(replace(one, merge_commit_headline="B (#11)"), lambda o, n: []).method == "squash"


def test_swapped_arguments_are_pointed_out(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    a = run(tmp_path, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), base)
    assert not a.is_stacked and "call again as gh pr-agent stack 'acme/widgets#11' 'acme/widgets#12'" in a.reason


def test_visualization_of_a_three_pr_stack(tmp_path: Path) -> None:
    bottom = pull(21, "feature-a", "main", "b3", B_COMMITS, "MERGED", merge_commit=OID["sq"],
                  merge_commit_parent_count=1, events=[Event("head_ref_deleted")])
    mid = pull(22, "feature-b", "main", "d2", [*B_COMMITS, *D_COMMITS],
               events=[Event("base_ref_changed", previous_ref="feature-a", current_ref="main")])
    top = pull(23, "feature-c", "feature-b", "c1", [c("c1", "d2")])
    a = run(tmp_path, bottom, mid, extra=[top])
    assert a.visualization.splitlines() == [
        "main",
        "└─ #21 feature-a  [merged]  base: main  <- base_pr  (merged (squash) into main; branch deleted)",
        "   └─ #22 feature-b  [open]  base: main  <- dependent_pr  (was based on feature-a; restack onto origin/main)",
        "      └─ #23 feature-c  [open]  base: feature-b  (restack onto feature-b (just restacked))",
    ]


def fork_d(**kw: Any) -> Pull:
    d = retargeted_d()
    return replace(d, head_ref=kw.pop("head_ref", "feature-d"), cross_repo=True, head_repo="contrib/widgets", **kw)


@pytest.mark.parametrize(("may", "why"), [
    ({"maintainer_can_modify": True}, "has no remote for it, so the plan cannot push it"),
    ({"viewer_did_author": True}, "has no remote for it, so the plan cannot push it"),
    ({}, "maintainerCanModify is false) and you are not its author"),
])
def test_fork_pr_without_a_clone_fetches_refs_pull_and_does_not_push(tmp_path: Path, may: dict[str, bool],
                                                                     why: str) -> None:
    """No clone, so no remote for the fork is known: the head comes from GitHub's refs/pull/12/head into its own
    ref, the local branch is made from that ref (not tracking origin's same-named branch), and no push or CI wait
    (nothing reaches GitHub); the warning says why."""
    a = run(tmp_path, merged_b(), fork_d(**may), history={OID["sq"]: [Commit(OID["sq"], "PR 11 (#11)")]})
    cmds = commands(a)
    assert cmds[:3] == ["git fetch origin +refs/heads/main:refs/remotes/origin/main",
                        "git fetch origin +refs/pull/12/head:refs/remotes/origin/pr/12",
                        "git show-ref --verify --quiet refs/heads/feature-d || git branch feature-d "
                        "refs/remotes/origin/pr/12"]
    assert f"git rebase --onto refs/remotes/origin/main {OID['b3']} feature-d" in cmds
    assert not any(x.startswith("git push") for x in cmds) and not any(s.type == "ci_wait" for s in a.steps)
    assert any(why in w for w in a.warnings), a.warnings


def test_a_fork_head_named_like_a_branch_here_has_no_descendants(tmp_path: Path) -> None:
    """A fork PR whose head branch is called `main`: the PRs based on acme's main are not stacked on it."""
    other = pull(14, "feature-x", "main", "x1", [c("x1", "m0")])
    a = run(tmp_path, merged_b(), fork_d(head_ref="main", maintainer_can_modify=True), extra=[other],
            history={OID["sq"]: [Commit(OID["sq"], "PR 11 (#11)")]})
    assert [r[1] for r in a.chain] == ["base", "dependent"]
    assert not any("feature-x" in x for x in commands(a))


def test_siblings_retargeted_after_the_base_branch_was_deleted(tmp_path: Path) -> None:
    """#11 squash-merged, branch deleted: GitHub retargeted #12 and #13 to main. #13 is found among main's open PRs
    (it starts with #11's commits) and named with its command; #14, also on main, is not stacked on #11."""
    sib = pull(13, "feature-e", "main", "c1", [*B_COMMITS, c("c1", "b3")])
    other = pull(14, "feature-x", "main", "x1", [c("x1", "m0")])
    a = run(tmp_path, merged_b(events=[Event("head_ref_deleted")]), retargeted_d(), extra=[sib, other],
            history={OID["sq"]: [Commit(OID["sq"], "PR 11 (#11)")]})
    cons = a.strategy.considerations
    assert ("Also stacked on #11: #13 (call the tool for each; #13 now based on main (retargeted when #11's branch "
            "was deleted)).") in cons, cons
    line = next(x for x in cons if x.startswith("Restack commands for them: "))
    assert shlex.split(line.removeprefix("Restack commands for them: ").removesuffix("."))[2:] == [
        "stack", "acme/widgets#11", "acme/widgets#13"]


def test_an_open_base_pr_from_a_fork_is_refused_not_mistaken_for_a_branch_here(tmp_path: Path) -> None:
    """#11 is an open fork PR whose branch is called `main`: rebasing onto acme's `main` would be another branch."""
    base = replace(pull(11, "main", "main", "b3", B_COMMITS), cross_repo=True, head_repo="contrib/widgets")
    dep = pull(12, "feature-d", "main", "d2", [*B_COMMITS, *D_COMMITS])
    with pytest.raises(PrAgentError) as err:
        run(tmp_path, base, dep)
    assert err.value.code == "invalid_arguments" and err.value.details["reason"] == "open PR from a fork"


def test_stack_bottom_top_with_the_middle_pr_open_says_the_answer_is_about_the_bottom_only(tmp_path: Path) -> None:
    """`stack 10 12` while #11 (between them) is open: #12 contains #10's head, so nothing is to be done against #10,
    but #12 is built on #11 (which may have been force-pushed): the answer names #11 and the call that restacks #12
    on it, instead of a silent "nothing to rebase"."""
    bottom = pull(10, "feature-a", "main", "b1", [c("b1", "m0")])
    middle = pull(11, "feature-b", "feature-a", "b2", [c("b2", "b1")])
    top = pull(12, "feature-d", "feature-b", "d1", [c("b2", "b1"), c("d1", "b2")])
    a = run(tmp_path, bottom, top, [middle], tips={"main": "m0", "feature-a": "b1"})
    assert a.relation == "history" and not a.steps
    assert a.warnings == ["#12 is based on #11 (feature-b), which is open and between #10 and #12: this answer is "
                          "about #10 only. To restack #12 on #11 (after a force-push of it, say), call gh pr-agent "
                          "stack 'acme/widgets#11' 'acme/widgets#12'."]
    direct = run(tmp_path, middle, top, [bottom], tips={"main": "m0", "feature-a": "b1"})
    assert not any("between" in w for w in direct.warnings)
