"""rebase_after_squash_merge without --upstream finds the upstream PR itself, and must then know as much about
it as when it is named: every commit, the landed commit's parents and history, the timeline (force-pushes,
branch deletion). For upstream PRs of several commits that landed by merge commit or rebase, or were
force-pushed before their squash merge, the answer without --upstream equals the answer with it (in a clone
and from GitHub alone), costs no more requests, and its plan works when executed verbatim in a real clone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import OWN_D, assert_on_top, cmds, run_plan, stack_b_d
from tests.e2e.test_stack_prefetch import operations

DEP, UP = "acme/widgets#12", "acme/widgets#11"


def merged(tmp: Path, how: str, delete: bool = True) -> StackRepo:
    """main <- #11 (feature-b, 3 commits) <- #12 (feature-d); #11 lands by `how`; with `delete` its branch
    is deleted and GitHub retargets #12 to main."""
    repo = stack_b_d(tmp, 3)
    repo.user_clone("feature-d", checkout="feature-d")
    {"merge": repo.merge_commit, "rebase": repo.rebase_merge, "squash": repo.squash_merge}[how](11, delete=delete)
    if delete:
        repo.retarget(12, "main", was="feature-b")
    return repo


def force_pushed_then_squashed(tmp: Path) -> tuple[StackRepo, str]:
    """#11's last commit is amended and force-pushed after #12 was built on it, then #11 is squash-merged: #12
    still holds #11's head from before the force-push, which only #11's timeline names. Returns that head."""
    repo = stack_b_d(tmp, 3)
    repo.user_clone("feature-d", checkout="feature-d")
    before = repo.tip("feature-b")
    repo.checkout("feature-b")
    repo.a("commit", "-q", "--amend", "-m", "feature-b: step 3, amended")
    repo.push("feature-b")
    repo.refresh_pr(11)
    repo.prs[11].setdefault("timeline", []).append(
        {"type": "head_ref_force_pushed", "before": before, "after": repo.tip("feature-b")})
    repo.squash_merge(11, delete=True)
    repo.retarget(12, "main", was="feature-b")
    return repo, before


def both(agent: Any, repo: StackRepo, in_clone: bool) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """The answer without --upstream and with --upstream #11, and the agent whose GitHub gave them (the first
    answer's GraphQL operations are asserted: the PR, then one lookup of the upstream by head branch)."""
    a = agent(repo.scenario())
    cwd = repo.clone if in_clone else None
    found = a.json("rebase-after-squash", DEP, cwd=cwd)
    assert operations(a) == ["StackPull", "StackByHead"]
    a.hub.reset_counters()
    named = a.json("rebase-after-squash", DEP, "--upstream", UP, cwd=cwd)
    assert operations(a) == ["StackPulls"]
    return found, named, a


@pytest.mark.parametrize("in_clone", [True, False], ids=["clone", "github-only"])
@pytest.mark.parametrize("how", ["merge", "rebase"])
def test_multi_commit_upstream_merged_without_a_squash(agent, tmp_path: Path, how: str, in_clone: bool) -> None:
    repo = merged(tmp_path, how)
    found, named, a = both(agent, repo, in_clone)
    assert found == named
    st = found["strategy"]
    assert st["merge_method"] == how and not st["squash_merge_detected"]
    assert st["last_upstream_commit"] == repo.prs[11]["head_sha"]
    assert f"merged ({how}) into main; branch deleted" in found["visualization"]
    run_plan(a, found["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])


@pytest.mark.parametrize("in_clone", [True, False], ids=["clone", "github-only"])
def test_upstream_force_pushed_before_its_squash_merge(agent, tmp_path: Path, in_clone: bool) -> None:
    repo, before = force_pushed_then_squashed(tmp_path)
    found, named, a = both(agent, repo, in_clone)
    assert found == named
    st = found["strategy"]
    assert st["merge_method"] == "squash" and st["last_upstream_commit"] == before != repo.prs[11]["head_sha"]
    assert f"git rebase --onto refs/remotes/origin/main {before} feature-d" in cmds(found)
    run_plan(a, found["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])


def test_rebase_merged_upstream_whose_branch_was_kept(agent, tmp_path: Path) -> None:
    """#12's base is still feature-b: the upstream is the PR whose head it is, and the target branch's tip
    comes with that lookup (no request of its own)."""
    repo = merged(tmp_path, "rebase", delete=False)
    found, named, a = both(agent, repo, True)
    assert found == named and found["strategy"]["merge_method"] == "rebase"
    assert "gh api --method PATCH repos/acme/widgets/pulls/12 -f base=main --silent" in cmds(found)
    run_plan(a, found["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])
    assert a.hub.world.pull_request("acme/widgets", 12)["base_ref"] == "main"
