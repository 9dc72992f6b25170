"""Issue 12 (2)(3): the middle of a 3-level stack squash-merged into the bottom PR's branch (not into main), its
branch deleted and the top PR retargeted by GitHub onto the bottom PR's branch. Both `stack BOTTOM TOP` and
`rebase-after-squash TOP` (whose upstream is the merged middle PR, not the open bottom one) must replay only the
top PR's own commits onto the bottom branch; the plan is executed and the pushed result asserted."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import assert_on_top, run_plan


def _three(tmp: Path, deleted: bool = True) -> StackRepo:
    repo = StackRepo(tmp / "repo")
    repo.branch_commits("feature-a", "main", 2, "a.txt", "feature-a")
    repo.branch_commits("feature-b", "feature-a", 2, "b.txt", "feature-b")
    repo.branch_commits("feature-c", "feature-b", 2, "c.txt", "feature-c")
    repo.open_pr(21, "feature-a", "main")
    repo.open_pr(22, "feature-b", "feature-a")
    repo.open_pr(23, "feature-c", "feature-b")
    repo.user_clone("feature-c", checkout="main")
    repo.squash_merge(22, into="feature-a", delete=deleted)
    repo.refresh_pr(21)  # the squash commit is #21's new head
    if deleted:
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


@pytest.mark.parametrize("args", [["stack", "21", "23"], ["rebase-after-squash", "23"]],
                         ids=["stack-bottom-top", "rebase-after-squash-top"])
def test_middle_squash_merged_into_the_bottom_branch_kept(agent, tmp_path: Path, args: list[str]) -> None:
    """The middle's branch kept after its squash merge: #23's base is still feature-b (no retarget). `stack 21 23`
    goes through the merged #22 (once: not stacked, no plan; seeds 1, 4, 28, 49, 85, 97, 139 of the generator) and
    moves #23 onto feature-a, then points it there."""
    repo = _three(tmp_path, deleted=False)
    old_b = repo.prs[22]["head_sha"]
    a = agent(repo.scenario())
    out = a.json(*args, cwd=repo.clone)
    strat = out.get("rebase_strategy") or out["strategy"]
    assert strat["recommended"] == "onto", strat
    commands = [c["command"] for c in out["commands"]]
    assert f"git rebase --onto refs/remotes/origin/feature-a {old_b} feature-c" in commands, commands
    assert any("pulls/23" in c and "base=feature-a" in c for c in commands), commands  # the retarget
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-c", "feature-a", ["feature-c: step 1", "feature-c: step 2"], ["c.txt"])
    assert a.hub.world.pull_request("acme/widgets", 23)["base_ref"] == "feature-a"


@pytest.mark.parametrize("deleted", [False, True], ids=["branch-kept", "branch-deleted-retargeted"])
def test_siblings_on_the_same_merged_base_are_listed_with_their_commands(agent, tmp_path: Path,
                                                                         deleted: bool) -> None:
    """Issue 12 (6): two PRs stacked on the same squash-merged base: the answer for one names the other with the
    command that restacks it, and that command, run, gives the sibling's own plan. With the base's branch deleted,
    GitHub retargeted both to main: the sibling is found among main's open PRs by the base's commits it still
    starts with; an unrelated PR on main (#14) is not listed."""
    repo = StackRepo(tmp_path / "repo")
    repo.branch_commits("feature-b", "main", 2, "b.txt", "feature-b")
    repo.branch_commits("feature-d", "feature-b", 1, "d.txt", "feature-d")
    repo.branch_commits("feature-e", "feature-b", 1, "e.txt", "feature-e")
    repo.branch_commits("feature-x", "main", 1, "x.txt", "feature-x")
    repo.open_pr(11, "feature-b", "main")
    repo.open_pr(12, "feature-d", "feature-b")
    repo.open_pr(13, "feature-e", "feature-b")
    repo.open_pr(14, "feature-x", "main")
    repo.user_clone("feature-d", "feature-e", checkout="main")
    repo.squash_merge(11, delete=deleted)
    if deleted:
        repo.retarget(12, "main", was="feature-b")
        repo.retarget(13, "main", was="feature-b")
    a = agent(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    cons = out["rebase_strategy"]["considerations"]
    note = "; #13 now based on main (retargeted when #11's branch was deleted)" if deleted else ""
    assert f"Also stacked on #11: #13 (call the tool for each{note})." in cons, cons
    line = next(c for c in cons if c.startswith("Restack commands for them: "))
    argv = shlex.split(line.removeprefix("Restack commands for them: ").removesuffix("."))
    assert argv[:3] == ["gh", "pr-agent", "stack"] and [x.rsplit("/", 2)[-2:] for x in argv[3:]] == [
        ["acme", "widgets#11"], ["acme", "widgets#13"]]
    sib = a.json(*argv[2:], cwd=repo.clone)
    assert "Also stacked on #11: #12 (call the tool for each" in " ".join(sib["rebase_strategy"]["considerations"])
    run_plan(a, sib["commands"], repo.clone)
    assert_on_top(repo, "feature-e", "main", ["feature-e: step 1"], ["e.txt"])
