"""Issue 12 (2)(3): the middle of a 3-level stack squash-merged into the bottom PR's branch (not into main), its
branch deleted and the top PR retargeted by GitHub onto the bottom PR's branch. Both `stack BOTTOM TOP` and
`rebase-after-squash TOP` (whose upstream is the merged middle PR, not the open bottom one) must replay only the
top PR's own commits onto the bottom branch; the plan is executed and the pushed result asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import assert_on_top, run_plan


def _three(tmp: Path) -> StackRepo:
    repo = StackRepo(tmp / "repo")
    repo.branch_commits("feature-a", "main", 2, "a.txt", "feature-a")
    repo.branch_commits("feature-b", "feature-a", 2, "b.txt", "feature-b")
    repo.branch_commits("feature-c", "feature-b", 2, "c.txt", "feature-c")
    repo.open_pr(21, "feature-a", "main")
    repo.open_pr(22, "feature-b", "feature-a")
    repo.open_pr(23, "feature-c", "feature-b")
    repo.user_clone("feature-c", checkout="main")
    repo.squash_merge(22, into="feature-a", delete=True)
    repo.refresh_pr(21)  # the squash commit is #21's new head
    repo.retarget(23, "feature-a", was="feature-b")
    return repo


@pytest.mark.parametrize("args", [["stack", "21", "23"], ["rebase-after-squash", "23"]],
                         ids=["stack-bottom-top", "rebase-after-squash-top"])
def test_middle_squash_merged_into_the_bottom_branch(agent, tmp_path: Path, args: list[str]) -> None:
    repo = _three(tmp_path)
    old_b = repo.prs[22]["head_sha"]
    a = agent(repo.scenario())
    out = a.json(*args, cwd=repo.clone)
    strat = out.get("rebase_strategy") or out["strategy"]
    assert strat["recommended"] == "onto", strat
    rebase = f"git rebase --onto refs/remotes/origin/feature-a {old_b} feature-c"
    assert rebase in [c["command"] for c in out["commands"]], out["commands"]
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-c", "feature-a", ["feature-c: step 1", "feature-c: step 2"], ["c.txt"])
