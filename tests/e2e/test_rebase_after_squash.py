"""rebase_after_squash_merge end to end: upstream auto-detection, the --onto plan executed verbatim in a real
clone, warnings about local state, and the typed errors when there is nothing to rebase after."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import OWN_D, assert_on_top, cmds, run_plan, squashed, stack_b_d


def test_finds_the_upstream_github_retargeted_away_from(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 5, delete=True)
    old_b = repo.prs[11]["head_sha"]
    a = agent(repo.scenario())
    out = a.json("rebase-after-squash", cwd=repo.clone)  # no PR: the current branch's (feature-d -> #12)
    assert out["pr"] == "acme/widgets#12"
    assert out["upstream_pr"] == "acme/widgets#11" and out["target_branch"] == "main"
    st = out["strategy"]
    assert st["recommended"] == "onto" and st["squash_merge_detected"] and st["last_upstream_commit"] == old_b
    assert f"git rebase --onto refs/remotes/origin/main {old_b} feature-d" in cmds(out)
    assert not any(c["type"] == "fix" for c in out["commands"])
    assert out["prerequisites"] and "warnings" not in out
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])


def test_branch_kept_upstream_is_the_base_branch_and_pr_is_retargeted(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 1, delete=False)
    a = agent(repo.scenario())
    out = a.json("rebase-after-squash", "12", cwd=repo.clone)
    assert out["upstream_pr"] == "acme/widgets#11" and out["target_branch"] == "main"
    assert any("pulls/12 -f base=main" in c for c in cmds(out))
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])
    assert a.hub.world.pull_request("acme/widgets", 12)["base_ref"] == "main"


def test_warns_about_unpushed_commits_and_rebases_them_too(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 2, delete=True)
    repo.git(repo.clone, "checkout", "-q", "feature-d")
    (repo.clone / "local.txt").write_text("not pushed yet\n")
    repo.git(repo.clone, "add", "local.txt")
    repo.git(repo.clone, "commit", "-q", "-m", "local work")
    a = agent(repo.scenario())
    out = a.json("rebase-after-squash", "12", "--upstream", "11", cwd=repo.clone)
    assert any("1 commit(s) that are not on GitHub" in w for w in out["warnings"])
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", [*OWN_D, "local work"], ["d.txt", "local.txt"])


def test_warns_when_the_branch_is_checked_out_in_another_worktree(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 2, delete=True)
    repo.git(repo.clone, "checkout", "-q", "main")
    other = tmp_path / "wt"
    repo.git(repo.clone, "worktree", "add", "-q", str(other), "feature-d")
    a = agent(repo.scenario())
    out = a.json("rebase-after-squash", "12", cwd=repo.clone)
    assert any(f"checked out in another worktree ({other})" in w for w in out["warnings"])
    run_plan(a, out["commands"], other)  # as the warning says: run it there
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])


def test_upstream_still_open_is_a_typed_error_with_a_repair(agent, tmp_path: Path) -> None:
    repo = stack_b_d(tmp_path, 2)
    a = agent(repo.scenario())
    proc = a.cli("rebase-after-squash", "acme/widgets#12", "--json")
    assert proc.returncode == 1
    err = __import__("json").loads(proc.stdout)["error"]
    assert err["code"] == "upstream_not_merged" and err["category"] == "logical"
    assert err["repair"] == {"command": "gh pr-agent stack 'acme/widgets#11' 'acme/widgets#12'",
                             "next_step": "Restack onto the upstream PR as it is now."}  # the CLI speaks CLI


def test_no_upstream_is_a_typed_error(agent, tmp_path: Path) -> None:
    repo = StackRepo(tmp_path / "repo")
    repo.branch_commits("lonely", "main", 1, "l.txt", "lonely")
    repo.open_pr(30, "lonely", "main")
    a = agent(repo.scenario())
    proc = a.cli("rebase-after-squash", "acme/widgets#30")
    assert proc.returncode == 1 and "upstream_not_found" in proc.stderr and "--upstream" in proc.stderr


def test_local_branch_behind_github_is_fast_forwarded_first(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 2, delete=True)
    repo.checkout("feature-d")  # a teammate pushed to feature-d; the user's clone lacks it
    repo.commit("teammate's commit", {"t.txt": "theirs\n"})
    repo.push("feature-d")
    repo.refresh_pr(12)
    a = agent(repo.scenario())
    out = a.json("rebase-after-squash", "12", cwd=repo.clone)
    ff = "git switch feature-d && git merge --ff-only refs/remotes/origin/feature-d"
    assert ff in cmds(out)
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", [*OWN_D, "teammate's commit"], ["d.txt", "t.txt"])


def test_diverged_local_branch_stops_the_plan_before_any_rewrite(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 2, delete=True)
    repo.checkout("feature-d")
    repo.commit("teammate's commit", {"t.txt": "theirs\n"})
    repo.push("feature-d")
    repo.refresh_pr(12)
    repo.git(repo.clone, "checkout", "-q", "feature-d")
    (repo.clone / "mine.txt").write_text("mine\n")
    repo.git(repo.clone, "add", "mine.txt")
    repo.git(repo.clone, "commit", "-q", "-m", "my commit")
    before = repo.git(repo.clone, "rev-parse", "feature-d")
    a = agent(repo.scenario())
    out = a.json("rebase-after-squash", "12", cwd=repo.clone)
    assert any("have diverged" in w for w in out["warnings"])
    verify = next(c for c in out["commands"] if c["type"] == "verification")
    try:
        run_plan(a, out["commands"], repo.clone)
    except AssertionError as err:
        assert f"step {verify['step']} failed" in str(err)
    else:
        raise AssertionError("the plan ran through a diverged branch")
    assert repo.git(repo.clone, "rev-parse", "feature-d") == before  # nothing rewritten
    assert repo.tip("feature-d") == repo.prs[12]["head_sha"]
