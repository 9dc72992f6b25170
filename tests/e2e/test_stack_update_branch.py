"""Issue 12 (5): after its base #11 was squash-merged, the dependent #12 pressed "Update branch" (GitHub merges the
default branch into it, squash commit included) and got one more commit. #12 still carries #11's original commits,
so it is not "already rebased": the plan replays only #12's own commits onto main. Executed and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import assert_on_top, cmds, run_plan


def _world(tmp: Path, delete: bool) -> StackRepo:
    repo = StackRepo(tmp / "repo")
    repo.branch_commits("feature-b", "main", 2, "b.txt", "feature-b")
    repo.branch_commits("feature-d", "feature-b", 2, "d.txt", "feature-d")
    repo.open_pr(11, "feature-b", "main")
    repo.open_pr(12, "feature-d", "feature-b")
    repo.squash_merge(11, delete=delete)
    if delete:
        repo.retarget(12, "main", was="feature-b")
    repo.checkout("feature-d")
    repo.a("reset", "-q", "--hard", "refs/heads/feature-d")
    repo.a("merge", "-q", "--no-ff", "-m", "Merge branch 'main' into feature-d", "main")  # "Update branch"
    repo.commit("feature-d: after the update", {"d2.txt": "more\n"})
    repo.push("feature-d")
    repo.refresh_pr(12)
    repo.user_clone("feature-d", checkout="main")
    return repo


@pytest.mark.parametrize("args", [["rebase-after-squash", "12"], ["stack", "11", "12"]],
                         ids=["rebase-after-squash", "stack"])
@pytest.mark.parametrize("delete", [True, False], ids=["branch-deleted", "branch-kept"])
def test_update_branch_after_the_squash_still_needs_the_onto_rebase(one_agent, tmp_path: Path, args: list[str],
                                                                    delete: bool) -> None:
    repo = _world(tmp_path, delete)
    old_b = repo.prs[11]["head_sha"]
    a = one_agent(repo.scenario())
    out = a.json(*args, cwd=repo.clone)
    strat = out.get("rebase_strategy") or out["strategy"]
    assert strat["recommended"] == "onto", strat
    assert not any("already rebased" in w for w in out.get("warnings") or []), out["warnings"]
    assert f"git rebase --onto refs/remotes/origin/main {old_b} feature-d" in cmds(out), cmds(out)
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main",
                  ["feature-d: step 1", "feature-d: step 2", "feature-d: after the update"], ["d.txt", "d2.txt"])
