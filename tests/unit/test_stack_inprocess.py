"""`stack` and `rebase-after-squash` through the CLI in this process (tests/unit/inproc.py) against fakehub through
the real gh, in real git clones (tests/e2e/stack_repos.py): the plan is pasted into bash as written and the branch
ends up holding exactly its own commits on the new base."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_stack import OWN_D, assert_on_top, cmds, run_plan, squashed, stack_b_d


def test_after_a_squash_merge_the_plan_rebases_onto_the_new_base_with_a_lease(inproc, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 3, delete=True)
    old_b, old_d = repo.prs[11]["head_sha"], repo.prs[12]["head_sha"]
    a = inproc(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    assert out["squash_merge"] and out["stack_info"]["relation"] == "retargeted"
    assert out["rebase_strategy"]["recommended"] == "onto"
    assert f"git rebase --onto refs/remotes/origin/main {old_b} feature-d" in cmds(out)
    assert any(c.startswith(f"git push --force-with-lease=refs/heads/feature-d:{old_d} ") for c in cmds(out))
    text = a.cli("stack", "11", "12", cwd=repo.clone)
    assert text.code == 0 and "#11 feature-b" in text.stdout
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])


def test_rebase_after_squash_finds_the_upstream_from_the_current_branch(inproc, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 2, delete=False)
    a = inproc(repo.scenario())
    out = a.json("rebase-after-squash", cwd=repo.clone)  # no PR given: the checked-out feature-d's, #12
    assert (out["pr"], out["upstream_pr"], out["target_branch"]) == ("acme/widgets#12", "acme/widgets#11", "main")
    assert any("pulls/12 -f base=main" in c for c in cmds(out))  # GitHub kept the old base: retarget it
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])
    assert a.hub.world.pull_request("acme/widgets", 12)["base_ref"] == "main"


def test_a_merge_commit_needs_only_a_regular_rebase_and_unrelated_prs_are_not_a_stack(inproc,
                                                                                      tmp_path: Path) -> None:
    repo = stack_b_d(tmp_path, 2)
    repo.branch_commits("feature-x", "main", 1, "x.txt", "feature-x")
    repo.open_pr(13, "feature-x", "main")
    repo.user_clone("feature-d", checkout="main")
    repo.merge_commit(11, delete=True)
    repo.retarget(12, "main", was="feature-b")
    a = inproc(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    assert out["merge_method"] == "merge" and out["rebase_strategy"]["recommended"] == "regular"
    unrelated = a.json("stack", "acme/widgets#12", "acme/widgets#13")
    assert unrelated["is_stacked"] is False and unrelated["stack_info"]["relation"] == "none"
    lonely = a.cli("rebase-after-squash", "acme/widgets#13", cwd=repo.clone)  # stacked on nothing
    assert lonely.code == 3 and "upstream_not_found" in lonely.stderr and "--upstream" in lonely.stderr


def test_rebase_after_squash_refuses_an_open_upstream_and_knows_a_done_rebase(inproc, tmp_path: Path) -> None:
    repo = stack_b_d(tmp_path / "open", 1)
    a = inproc(repo.scenario())
    still_open = a.cli("rebase-after-squash", "acme/widgets#12", "--json")
    assert still_open.code == 3
    error = still_open.json()["error"]
    assert error["code"] == "upstream_not_merged"
    assert error["repair"]["command"] == "gh pr-agent stack 'acme/widgets#11' 'acme/widgets#12'"

    done = squashed(tmp_path / "done", 2, delete=True)
    done.checkout("feature-d")  # someone already ran the plan and pushed
    done.a("rebase", "-q", "--onto", "main", done.prs[11]["head_sha"], "feature-d")
    done.push("feature-d")
    done.refresh_pr(12)
    b = inproc(done.scenario())
    out = b.json("rebase-after-squash", "12", cwd=done.clone)
    assert out["commands"] == [] and out["action_required"] is False
    assert out["warnings"][0].startswith("feature-d is already rebased")
    text = b.cli("rebase-after-squash", "12", cwd=done.clone)
    assert text.code == 0 and "warning: feature-d is already rebased" in text.stdout


def test_more_open_prs_than_one_page_give_the_same_plan_and_a_cut_listing_is_said(inproc, tmp_path: Path) -> None:
    from tests.e2e.test_stack_prefetch import with_fillers

    repo = stack_b_d(tmp_path, 1)
    quick = inproc(repo.scenario()).json("stack", "acme/widgets#11", "acme/widgets#12")
    a = inproc(with_fillers(repo.scenario(), 205, "feature-b", repo.tip("feature-b")))
    out = a.json("stack", "acme/widgets#11", "acme/widgets#12")
    assert cmds(out) == cmds(quick) and out["stack_info"]["chain"] == quick["stack_info"]["chain"]
    assert out["warnings"] == ["Only the 200 oldest of the 206 open PRs based on 'feature-b' were read; PRs "
                               "stacked there beyond them are not in this answer."]
    missing = a.cli("stack", "acme/widgets#11", "acme/widgets#999", "--json")
    assert missing.code == 3 and missing.json()["error"]["code"] == "pr_not_found"
