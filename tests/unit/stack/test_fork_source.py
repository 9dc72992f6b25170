"""Where a restack plan fetches a PR's head from and pushes it to (issue 19 mutation survivors of stack/fork.py):
the PR's own repository, the fork's remote in the clone (matched by owner, name and host), or GitHub's read-only
refs/pull/N/head with no push and a plain reason. Real git clones with real remotes."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.git import Git
from pr_agent.refs import PRRef
from pr_agent.stack.fork import HeadSource, fork_remote, head_source
from pr_agent.stack.local import Clone
from pr_agent.stack.model import Pull


def clone_with(tmp_path: Path, remotes: dict[str, str]) -> Clone:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name, url in remotes.items():
        subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "--", name, url], check=True)
    return Clone(Git(tmp_path), "origin", str(tmp_path))


def fork_pull(**kw: Any) -> Pull:
    fields: dict[str, Any] = {"cross_repo": True, "head_repo": "Contrib/Widgets", "maintainer_can_modify": True,
                              **kw}
    return Pull(PRRef("acme", "widgets", 7), "t", "", "OPEN", "feat", "main", "b" * 40, "a" * 40, **fields)


ORIGIN = "https://github.com/acme/widgets.git"


def test_a_same_repository_pr_is_fetched_and_pushed_through_the_remote() -> None:
    src = head_source(fork_pull(cross_repo=False, head_repo="acme/widgets"), "upstream", None)
    assert (src.fetch_remote, src.fetch_ref, src.track, src.push_remote, src.cannot_push) == (
        "upstream", "refs/heads/feat", "refs/remotes/upstream/feat", "upstream", None)
    assert src.fork is False and src.tracks_branch


def test_a_fork_with_a_remote_in_the_clone_goes_through_that_remote(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {"origin": ORIGIN, "contrib": "git@github.com:contrib/widgets.git"})
    assert fork_remote(clone, fork_pull(), "github.com") == "contrib"  # owner and name match case-insensitively
    src = head_source(fork_pull(), "origin", clone)
    assert src == HeadSource("contrib", "refs/heads/feat", "refs/remotes/contrib/feat", "contrib", None, fork=True)
    assert src.fork is True


def test_a_fork_remote_on_another_host_is_not_the_fork(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {"origin": ORIGIN, "ghe": "https://GHE.example/contrib/widgets.git"})
    assert fork_remote(clone, fork_pull(), "github.com") is None
    assert fork_remote(clone, fork_pull(), "ghe.EXAMPLE") == "ghe"
    assert fork_remote(clone, fork_pull(head_repo="contrib/gadgets"), "ghe.example") is None
    assert fork_remote(clone, fork_pull(head_repo="other/widgets"), "ghe.example") is None


def test_no_clone_or_no_head_repository_means_no_fork_remote(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {"origin": ORIGIN, "contrib": "https://github.com/contrib/widgets.git"})
    assert fork_remote(None, fork_pull(), "github.com") is None
    assert fork_remote(clone, fork_pull(head_repo=None), "github.com") is None  # a deleted fork


@pytest.mark.parametrize(("in_clone", "where"), [(True, "this clone"), (False, "the clone the plan runs in")])
def test_a_fork_without_a_remote_is_fetched_read_only_and_says_how_to_push(tmp_path: Path, in_clone: bool,
                                                                           where: str) -> None:
    clone = clone_with(tmp_path, {"origin": ORIGIN}) if in_clone else None
    src = head_source(fork_pull(), "origin", clone)
    assert (src.fetch_remote, src.fetch_ref, src.track, src.push_remote, src.fork) == (
        "origin", "refs/pull/7/head", "refs/remotes/origin/pr/7", None, True)
    assert not src.tracks_branch
    assert src.cannot_push == (
        f"#7's branch feat lives in the fork Contrib/Widgets, and {where} has no remote for it, so the plan "
        "cannot push it (it fetches it through GitHub's refs/pull/7/head, which is read-only). Add one "
        "(`git remote add Contrib https://github.com/Contrib/Widgets.git`) and call again for a plan that pushes it.")


def test_a_fork_that_refuses_maintainer_edits_is_fetched_but_never_pushed(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {"origin": ORIGIN, "contrib": "https://github.com/contrib/widgets.git"})
    src = head_source(fork_pull(maintainer_can_modify=False), "origin", clone)
    assert (src.fetch_remote, src.fetch_ref, src.push_remote, src.fork) == ("contrib", "refs/heads/feat", None, True)
    assert src.cannot_push is not None and "maintainerCanModify is false" in src.cannot_push
    mine = head_source(fork_pull(maintainer_can_modify=False, viewer_did_author=True), "origin", clone)
    assert (mine.push_remote, mine.cannot_push) == ("contrib", None)  # the author may push to their own fork


def test_a_fork_remote_named_like_an_option_is_refused(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {"origin": ORIGIN, "-fork": "https://github.com/contrib/widgets.git"})
    with pytest.raises(PrAgentError) as err:
        head_source(fork_pull(), "origin", clone)
    assert err.value.code == "unsafe_branch_name" and err.value.details["name"] == "-fork"
