"""Stack answers that mutation testing showed no test relied on (issue 19): stacking known only from the
commit history, and a plain rebase that is not exact making the plan high-risk."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import OWN_D, assert_on_top, cmds, run_plan


def _b_and_d(tmp: Path, d_base: str) -> StackRepo:
    """#11 (feature-b, 3 commits on main) and #12 (feature-d, 2 commits on feature-b) opened against d_base."""
    repo = StackRepo(tmp / "repo")
    repo.branch_commits("feature-b", "main", 3, "b.txt", "feature-b")
    repo.branch_commits("feature-d", "feature-b", 2, "d.txt", "feature-d")
    repo.open_pr(11, "feature-b", "main")
    repo.open_pr(12, "feature-d", d_base)
    repo.user_clone("feature-b", "feature-d", checkout="feature-d")
    return repo


def test_stacking_known_only_from_history_is_found_and_restacked_onto(agent, tmp_path: Path) -> None:
    """#12 was built on #11's branch but opened against main (no retarget ever happened): only its commits
    say it is stacked. After #11 is squash-merged, --onto must replay exactly #12's own commits."""
    repo = _b_and_d(tmp_path, "main")
    old_b = repo.tip("feature-b")
    repo.squash_merge(11, delete=True)
    a = agent(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    assert out["is_stacked"] and out["stack_info"]["relation"] == "history"
    strat = out["rebase_strategy"]
    assert strat["recommended"] == "onto"
    assert strat["onto_command"] == f"git rebase --onto refs/remotes/origin/main {old_b} feature-d"
    assert strat["onto_command"] in cmds(out)
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])


def test_a_plain_rebase_asked_for_after_a_squash_merge_is_high_risk_and_says_why(agent, tmp_path: Path) -> None:
    repo = _b_and_d(tmp_path, "feature-b")
    repo.squash_merge(11, delete=True)
    repo.retarget(12, "main", was="feature-b")
    a = agent(repo.scenario())
    asked = a.json("stack", "11", "12", "--no-use-onto", cwd=repo.clone)
    strat = asked["rebase_strategy"]
    assert strat["recommended"] == "regular" and strat["regular_command"] in cmds(asked)
    assert any("also replays #11's original commits" in c for c in strat["considerations"])
    assert asked["summary"]["risk_level"] == "high"
    default = a.json("stack", "11", "12", cwd=repo.clone)
    assert default["rebase_strategy"]["recommended"] == "onto" and default["summary"]["risk_level"] == "low"
