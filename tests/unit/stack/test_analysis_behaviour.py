"""Decisions of the stack analysis that a user acts on (issue 19 mutation survivors of stack/analysis.py and
stack/facts.py), from GitHub's data alone: nothing to do for a closed or unrelated dependent, a refused or missing
target branch, the fetch and change facts of a plan, capped listings said, the risk and the notes in the tree."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.git import Git
from pr_agent.stack.analysis import Options, analyze
from pr_agent.stack.facts import Changes
from pr_agent.stack.model import Commit, Event
from tests.unit.stack.test_analysis import (
    B_COMMITS,
    D_COMMITS,
    OID,
    Src,
    T,
    c,
    commands,
    merged_b,
    pull,
    retargeted_d,
    run,
)

SQUASHED = {OID["sq"]: [Commit(OID["sq"], "PR 11 (#11)")]}


def test_a_closed_dependent_has_nothing_to_restack(tmp_path: Path) -> None:
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS, "CLOSED")
    a = run(tmp_path, merged_b(), dep)
    assert a.is_stacked and a.reason == "#12 is closed: there is nothing to restack."
    assert (a.steps, a.needs_rebase, a.retarget_to, a.changes, a.strategy.recommended) == (
        [], False, None, Changes(), "none")
    assert not a.action_required and a.risk == "low"


def test_an_unrelated_dependent_reports_no_changes(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(), pull(12, "feature-x", "main", "x1", [c("x1", "m0")]))
    assert not a.is_stacked and (a.changes.total, a.changes.more, a.changes.commits, a.needs_rebase) == (
        0, False, [], False)


def test_the_target_branch_name_is_checked_before_it_is_looked_up(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    dep = pull(12, "feature-d", "feature-b", "d2", D_COMMITS)
    with pytest.raises(PrAgentError) as err:
        run(tmp_path, base, dep, tips={"-main": "m1"}, onto_base="-main")
    assert err.value.code == "unsafe_branch_name" and err.value.details["what"] == "target branch"


def test_a_missing_target_branch_is_a_typed_error(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    with pytest.raises(PrAgentError) as err:
        run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), onto_base="gone")
    assert err.value.code == "ref_not_found" and err.value.details == {"field": "onto_base", "value": "gone"}
    assert "acme/widgets" in err.value.message


def test_moving_off_an_open_base_targets_the_named_branch_and_fetches_both(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), tips={"main": "m1"},
            onto_base="main")
    assert a.target_branch == "main" and a.tip == OID["m1"] and a.needs_rebase
    assert commands(a)[0] == ("git fetch origin +refs/heads/main:refs/remotes/origin/main "
                              "+refs/heads/feature-d:refs/remotes/origin/feature-d")
    assert a.reason.endswith(" Then point #12 at main (its base is still feature-b).")


def test_a_squash_plan_lists_the_landed_commit_as_the_one_new_commit(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(), retargeted_d(), history=SQUASHED)
    assert commands(a)[0] == ("git fetch origin +refs/heads/main:refs/remotes/origin/main "
                              "+refs/heads/feature-d:refs/remotes/origin/feature-d")
    assert (a.changes.total, a.changes.more, a.changes.source) == (1, False, "api")
    assert [(x.oid, x.headline, x.date) for x in a.changes.commits] == [(OID["sq"], "PR 11 (#11)", T.format(6))]
    assert a.tip == OID["sq"] and a.target_branch == "main" and a.action_required is True


def test_an_open_base_lists_its_commits_after_the_old_base_oldest_first(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b4", [*B_COMMITS, c("b4", "b3", 6), c("x1", "b4", 7)])
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), commit_limit=1)
    assert [x.oid for x in a.changes.commits] == [OID["x1"]] and (a.changes.total, a.changes.more) == (2, True)
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), commit_offset=1)
    assert [x.oid for x in a.changes.commits] == [OID["b4"]] and not a.changes.more


def test_a_capped_listing_is_said_in_the_warnings(tmp_path: Path) -> None:
    src = Src([merged_b(), retargeted_d()], {"main": "sq"}, SQUASHED)
    src.notes.append("Only the 200 oldest of the 250 open PRs based on 'main' were read.")
    a = analyze(Context(git=Git(tmp_path), env={}), src, merged_b(), retargeted_d(), Options())  # type: ignore[arg-type]
    assert a.warnings.count("Only the 200 oldest of the 250 open PRs based on 'main' were read.") == 1


def test_a_child_with_a_refused_branch_name_stops_the_plan(tmp_path: Path) -> None:
    child = pull(13, "-c", "feature-d", "c1", [c("c1", "d2")])
    with pytest.raises(PrAgentError) as err:
        run(tmp_path, merged_b(), retargeted_d(), extra=[child], history=SQUASHED)
    assert err.value.code == "unsafe_branch_name" and err.value.details["what"] == "head branch of #13"


def test_a_merged_base_the_dependent_never_contained_needs_no_rebase(tmp_path: Path) -> None:
    """#12 was based on #11's branch (retargeted since) but holds none of #11's commits: nothing to skip."""
    dep = replace(retargeted_d(), commits=[c("d1", "m0", 4)], commit_count=1)
    a = run(tmp_path, merged_b(), dep, history=SQUASHED)
    assert a.relation == "retargeted" and not a.needs_rebase and a.steps == []
    assert (a.old.oid, a.old.how) == (None, "none")


@pytest.mark.parametrize(("fork_parent", "needs"), [("b3", True), ("b2", True), ("m0", False)])
def test_a_merged_base_needs_a_rebase_when_the_dependent_starts_on_its_commits(tmp_path: Path, fork_parent: str,
                                                                               needs: bool) -> None:
    dep = replace(retargeted_d(), commits=[c("d1", fork_parent, 4)], commit_count=1)
    a = run(tmp_path, merged_b(), dep, history=SQUASHED)
    assert a.needs_rebase is needs


def test_a_rebased_base_with_the_old_head_not_in_it_makes_a_plain_rebase_inexact(tmp_path: Path) -> None:
    """#11 is open and was force-pushed: #12 still has the old head b3, which the new #11 does not contain."""
    rewritten = [c("b1", "m0", 1), c("b4", "b1", 7)]
    base = pull(11, "feature-b", "main", "b4", rewritten,
                events=[Event("head_ref_force_pushed", before_oid=OID["b3"], after_oid=OID["b4"])])
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), use_onto=False)
    assert (a.old.how, a.strategy.recommended, a.strategy.regular_is_exact, a.risk) == (
        "former_head", "regular", False, "high")


def test_an_open_base_with_new_commits_on_the_old_head_keeps_a_plain_rebase_exact(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b4", [*B_COMMITS, c("b4", "b3", 6)])
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", D_COMMITS), use_onto=False)
    assert (a.old.oid, a.old.how, a.strategy.recommended, a.strategy.regular_is_exact) == (
        OID["b3"], "fork_point", "regular", True)
    assert a.risk == "medium"  # exact, but no clone to prove it


def test_the_tree_notes_how_the_base_landed(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(parents=2), retargeted_d())
    first = a.visualization.splitlines()[1]
    assert first == "└─ #11 feature-b  [merged]  base: main  <- base_pr  (merged (merge) into main)"


def test_a_forced_onto_is_said_unless_the_calling_tool_forced_it(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(), retargeted_d(), history=SQUASHED, use_onto=True)
    assert "use_onto=true asked for --onto." in a.strategy.considerations
    quiet = run(tmp_path, merged_b(), retargeted_d(), history=SQUASHED, use_onto=True, say_use_onto=False)
    assert quiet.strategy.recommended == "onto" and not any("use_onto" in x for x in quiet.strategy.considerations)


def test_an_unpinned_boundary_is_high_risk(tmp_path: Path) -> None:
    """#11 was force-pushed and #12 lists none of its versions: where #12's own work starts is a guess."""
    rewritten = [c("b1", "m1", 7), c("b4", "b1", 8)]
    base = pull(11, "feature-b", "main", "b4", rewritten,
                events=[Event("head_ref_force_pushed", before_oid=OID["b2"], after_oid=OID["b4"])])
    dep = pull(12, "feature-d", "feature-b", "d2", [c("x1", "m0", 4), c("d1", "x1", 4), c("d2", "d1", 5)])
    a = run(tmp_path, base, dep, use_onto=True)
    assert (a.old.how, a.old.oid, a.strategy.recommended, a.risk) == ("ambiguous", OID["d1"], "onto", "high")


def test_a_merged_middle_pr_moves_the_boundary_and_says_so(tmp_path: Path) -> None:
    """main <- #10 feature-a (open) <- #11 feature-b, squash-merged into feature-a <- #12, retargeted from
    feature-b to feature-a: #12 still carries #11's commits, so its own work starts after #11's last head."""
    bottom = pull(10, "feature-a", "main", "m1", [c("m1", "m0")])
    middle = replace(merged_b(), base_ref="feature-a", merged_at=T.format(6))
    dep = pull(12, "feature-d", "feature-a", "d2", D_COMMITS,
               events=[Event("base_ref_changed", T.format(7), previous_ref="feature-b", current_ref="feature-a")])
    a = run(tmp_path, bottom, dep, extra=[middle])
    assert (a.old.oid, a.old.how) == (OID["b3"], "former_head")
    assert (f"#11 (between #10 and #12) was merged into feature-a; #12 still carries its original commits, so its "
            f"own work starts after {OID['b3'][:12]}.") in a.warnings
    assert f"git rebase --onto refs/remotes/origin/feature-a {OID['b3']} feature-d" in commands(a)


def test_a_dependent_that_only_needs_a_new_base_is_not_told_to_rebase_first(tmp_path: Path) -> None:
    """#11 merged with its branch kept; #12, still based on it, holds none of its commits: only the base changes."""
    dep = pull(12, "feature-d", "feature-b", "d1", [c("d1", "m0", 4)])
    a = run(tmp_path, merged_b(), dep, history=SQUASHED)
    assert (a.needs_rebase, a.retarget_to) == (False, "main")
    assert "Then point" not in a.reason and a.reason.endswith("Only its base must change, from feature-b to main.")
