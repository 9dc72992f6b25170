"""What the rebase strategy tells an agent, beyond the recommended command (issue 19 mutation survivors of
stack/strategy.py): the reason names the right commits and ids, the considerations warn exactly when a plain
rebase is not exact, and a forced choice says who forced it. Expected texts are literals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.stack.test_analysis import (
    B_COMMITS,
    OID,
    Event,
    T,
    c,
    merged_b,
    pull,
    retargeted_d,
    run,
)

SHORT_B3 = OID["b3"][:12]


def test_an_up_to_date_dependent_names_the_base_head_it_already_contains(tmp_path: Path) -> None:
    base = pull(11, "feature-b", "main", "b3", B_COMMITS)
    a = run(tmp_path, base, pull(12, "feature-d", "feature-b", "d2", [c("d1", "b3", 4), c("d2", "d1", 5)]))
    assert a.strategy.reason == f"#12 already contains #11's latest head {SHORT_B3}: nothing to rebase."


def test_a_squash_merge_reason_names_the_old_base_commit_to_cut_at(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(), retargeted_d())
    assert f"--onto origin/main {SHORT_B3} replays only #12's own 2 commit(s)." in a.strategy.reason


@pytest.mark.parametrize(("b_commits", "consideration"), [
    (3, "A plain rebase would replay #11's 3 original commit(s) and conflict with the squash commit."),
    (2, "A plain rebase would replay #11's 2 original commit(s) and conflict with the squash commit."),
    (1, "A plain rebase would replay #11's 1 original commit(s); git skips a single identical commit only when "
        "it recognises it."),
])
def test_after_a_squash_merge_the_cost_of_a_plain_rebase_is_said(tmp_path: Path, b_commits: int,
                                                                    consideration: str) -> None:
    commits = B_COMMITS[:b_commits]
    top = ["b1", "b2", "b3"][b_commits - 1]
    base = pull(11, "feature-b", "main", top, commits, "MERGED", merge_commit=OID["sq"],
                merge_commit_parent_count=1, merge_commit_headline="PR 11 (#11)", merge_commit_date=T.format(6))
    dep = pull(12, "feature-d", "main", "d2", [*commits, c("d1", top, 4), c("d2", "d1", 5)],
               events=[Event("base_ref_changed", previous_ref="feature-b", current_ref="main")])
    a = run(tmp_path, base, dep)
    assert a.merge.method == "squash"
    assert consideration in a.strategy.considerations


def test_a_merge_commit_reason_says_both_rebases_give_the_same_result(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(parents=2), retargeted_d())
    assert a.strategy.reason.startswith("#11 was merged into main with a merge commit that contains its commits "
                                        "unchanged: a plain rebase onto origin/main replays only #12's own")
    assert not any("also replays" in x for x in a.strategy.considerations)  # exact: no conflict warning


def test_the_not_exact_warning_comes_only_with_a_plain_rebase(tmp_path: Path) -> None:
    default = run(tmp_path, merged_b(), retargeted_d())
    assert default.strategy.recommended == "onto"
    assert not any("also replays" in x for x in default.strategy.considerations)
    forced = run(tmp_path, merged_b(), retargeted_d(), use_onto=False)
    assert ("This plain rebase also replays #11's original commits: expect conflicts, or use --onto."
            in forced.strategy.considerations)


@pytest.mark.parametrize(("use_onto", "said"), [(True, "use_onto=true asked for --onto."),
                                                (False, "use_onto=false asked for a plain rebase.")])
def test_a_forced_choice_says_it_was_asked_for(tmp_path: Path, use_onto: bool, said: str) -> None:
    a = run(tmp_path, merged_b(), retargeted_d(), use_onto=use_onto)
    assert said in a.strategy.considerations


def test_without_a_choice_nothing_claims_one_was_asked_for(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(), retargeted_d())
    assert not any(x.startswith("use_onto=") for x in a.strategy.considerations)


def test_outside_a_clone_the_answer_says_what_a_clone_would_add(tmp_path: Path) -> None:
    a = run(tmp_path, merged_b(), retargeted_d())
    assert any(x.startswith("Not run inside a clone of acme/widgets:") for x in a.strategy.considerations)


@pytest.mark.parametrize("n_children", [1, 2])
def test_prs_stacked_above_the_dependent_are_said_to_be_restacked(tmp_path: Path, n_children: int) -> None:
    children = [pull(13, "feature-c", "feature-d", "c1", [c("c1", "d2")])]
    if n_children == 2:
        children.append(pull(14, "feature-e", "feature-c", "x1", [c("x1", "c1")]))
    a = run(tmp_path, merged_b(), retargeted_d(), extra=children, auto_fix=False)
    said = [x for x in a.strategy.considerations if "restacked too" in x]
    if n_children == 1:
        assert said == ["#13 (stacked on #12) is restacked too, each onto its freshly rebased parent."]
    else:
        assert said == ["#13, #14 (stacked on #12) are restacked too, each onto its freshly rebased parent."]
