"""Issue 12 (4): a dependent PR from a fork. Its head branch lives in contrib/widgets, not in acme/widgets: the plan
fetches it through the fork's remote when the clone has one (else through GitHub's refs/pull/N/head), pushes it to
the fork's remote, and says plainly when it cannot push (no remote for the fork, or maintainerCanModify false and
the viewer is not the author). Every plan is executed in a real clone and the remotes are checked afterwards.

World: main <- #11 feature-b (acme) <- #12 contrib:feature-d (a fork PR based on feature-b); #11 is squash-merged
into main, its branch deleted, and GitHub retargets #12 to main."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.stack_repos import FORK_URL, StackRepo
from tests.e2e.test_stack import cmds, run_plan

OWN = ["feature-d: step 1", "feature-d: step 2"]


def _world(tmp: Path) -> StackRepo:
    repo = StackRepo(tmp / "repo")
    repo.branch_commits("feature-b", "main", 2, "b.txt", "feature-b")
    repo.open_pr(11, "feature-b", "main")
    repo.make_fork()
    repo.branch_commits("feature-d", "feature-b", 2, "d.txt", "feature-d")  # pushed to acme too: removed below
    repo.push_fork("feature-d")
    repo.delete_remote("feature-d")  # the contributor has no push access to acme: the branch is only in the fork
    repo.open_fork_pr(12, "feature-d", "feature-b")
    return repo


def _merge(repo: StackRepo) -> None:
    repo.squash_merge(11, delete=True)
    repo.retarget(12, "main", was="feature-b")


def _refs(where: Path, repo: StackRepo) -> dict[str, str]:
    out = repo.git(where, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(line.split(" ", 1) for line in out.splitlines())


def _scenario(repo: StackRepo, viewer: str, **pr12: Any) -> dict[str, Any]:
    sc = repo.scenario()
    sc["viewer"] = {"login": viewer}
    next(p for p in sc["repositories"][0]["pull_requests"] if p["number"] == 12).update(pr12)
    return sc


def _assert_fork_rebased(repo: StackRepo) -> None:
    """The fork's feature-d is exactly #12's own commits on top of acme's main (the squash commit)."""
    main = repo.tip("main")
    head = repo.tip("feature-d", repo.fork)
    repo.git(repo.fork, "fetch", "-q", str(repo.origin), "+refs/heads/main:refs/upstream/main")
    assert repo.git(repo.fork, "merge-base", main, head) == main
    assert repo.subjects(f"{main}..{head}", repo.fork) == OWN
    assert repo.git(repo.fork, "diff", "--name-only", main, head).split() == ["d.txt"]


@pytest.mark.parametrize("args", [["rebase-after-squash", "12"], ["stack", "11", "12"]],
                         ids=["rebase-after-squash", "stack"])
def test_contributor_clone_fetches_and_pushes_through_the_fork(one_agent, tmp_path: Path, args: list[str]) -> None:
    """origin = the fork, upstream = acme: fetch the new base from upstream and the head from origin, rebase,
    push to origin (the fork). acme's refs do not move."""
    repo = _world(tmp_path)
    clone = repo.contributor_clone("feature-d")
    _merge(repo)
    old_b, old_d = repo.prs[11]["head_sha"], repo.prs[12]["head_sha"]
    a = one_agent(_scenario(repo, "contrib"))
    out = a.json(*args, cwd=clone)
    got = cmds(out)
    assert "git fetch upstream +refs/heads/main:refs/remotes/upstream/main" in got, got
    assert "git fetch origin +refs/heads/feature-d:refs/remotes/origin/feature-d" in got, got
    assert f"git rebase --onto refs/remotes/upstream/main {old_b} feature-d" in got, got
    push = (f"git push --force-with-lease=refs/heads/feature-d:{old_d} origin "
            "refs/heads/feature-d:refs/heads/feature-d")
    assert push in got, got
    assert not any("refs/pull/" in c for c in got)
    base_refs = _refs(repo.origin, repo)
    run_plan(a, out["commands"], clone)
    assert _refs(repo.origin, repo) == base_refs  # nothing pushed to acme
    _assert_fork_rebased(repo)


def test_maintainer_clone_without_a_fork_remote_fetches_refs_pull_and_says_it_cannot_push(one_agent,
                                                                                           tmp_path: Path) -> None:
    """A maintainer's clone (origin = acme) has no remote for contrib/widgets: the head comes through GitHub's
    refs/pull/12/head, the plan has no push and its warning says how to get one; after running the warning's
    `git remote add`, the next plan pushes to the fork (maintainerCanModify is true)."""
    repo = _world(tmp_path)
    clone = repo.user_clone(checkout="main")
    repo.git(clone, "config", f"url.file://{repo.fork}.insteadOf", FORK_URL)  # the network: the fork's URL
    _merge(repo)
    old_b = repo.prs[11]["head_sha"]
    a = one_agent(_scenario(repo, "octocat"))
    out = a.json("stack", "11", "12", cwd=clone)
    got = cmds(out)
    assert "git fetch origin +refs/pull/12/head:refs/remotes/origin/pr/12" in got, got
    assert "git branch feature-d refs/remotes/origin/pr/12" in got, got
    assert f"git rebase --onto refs/remotes/origin/main {old_b} feature-d" in got, got
    assert not any(c.startswith("git push") for c in got), got
    warning = next(w for w in out["warnings"] if "cannot push" in w)
    assert "contrib/widgets" in warning and "refs/pull/12/head" in warning
    before = (_refs(repo.origin, repo), _refs(repo.fork, repo))
    run_plan(a, out["commands"], clone)
    assert (_refs(repo.origin, repo), _refs(repo.fork, repo)) == before  # the plan pushed nothing anywhere
    add = warning.split("`")[1]
    assert shlex.split(add) == ["git", "remote", "add", "contrib", FORK_URL]
    assert a.shell(f"cd {shlex.quote(str(clone))} && {add}").returncode == 0
    repo.git(clone, "checkout", "-q", "main")
    repo.git(clone, "branch", "-q", "-D", "feature-d")  # the unpushed rebase is dropped: start from GitHub's copy
    again = a.json("stack", "11", "12", cwd=clone)
    got = cmds(again)
    assert "git fetch contrib +refs/heads/feature-d:refs/remotes/contrib/feature-d" in got, got
    assert any(c.startswith("git push --force-with-lease=refs/heads/feature-d:") and " contrib " in c
               for c in got), got
    run_plan(a, again["commands"], clone)
    assert _refs(repo.origin, repo) == before[0]
    _assert_fork_rebased(repo)


def test_no_push_when_maintainers_may_not_edit(one_agent, tmp_path: Path) -> None:
    """maintainerCanModify false and the viewer is not the author: even with the fork's remote, GitHub would refuse
    the push, so the plan has none and says why."""
    repo = _world(tmp_path)
    clone = repo.user_clone(checkout="main")
    repo.git(clone, "remote", "add", "contrib", FORK_URL)
    repo.git(clone, "config", f"url.file://{repo.fork}.insteadOf", FORK_URL)
    _merge(repo)
    a = one_agent(_scenario(repo, "octocat", maintainer_can_modify=False))
    out = a.json("rebase-after-squash", "12", cwd=clone)
    got = cmds(out)
    assert "git fetch contrib +refs/heads/feature-d:refs/remotes/contrib/feature-d" in got, got
    assert not any(c.startswith("git push") for c in got), got
    assert any("maintainerCanModify is false" in w and "you are not its author" in w for w in out["warnings"])
    before = (_refs(repo.origin, repo), _refs(repo.fork, repo))
    run_plan(a, out["commands"], clone)
    assert (_refs(repo.origin, repo), _refs(repo.fork, repo)) == before
