"""The exact restack commands and the reasons a branch name is refused (issue 19 mutation survivors of
stack/shell.py). tests/safety/test_properties.py checks *whether* a name is refused against real git; these
check *why* the user is told it is, and the commands a plan step carries, word for word."""

from __future__ import annotations

import shlex

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef
from pr_agent.stack import shell


@pytest.mark.parametrize(("name", "reason"), [
    ("", "it is empty"),
    ("-rf", "it starts with '-', so git would read it as an option"),
    ("a\tb", "it contains control characters"),
    ("a\x01b", "it contains control characters"),
    ("a\x7fb", "it contains control characters"),
    ("a b", "git refuses branch names containing ' '"),
    ("a~b^c", "git refuses branch names containing '^' '~'"),
    ("HEAD", "'HEAD' is not a branch name git accepts"),
    ("/a", "git refuses empty path components ('/' at either end or '//')"),
    ("a/", "git refuses empty path components ('/' at either end or '//')"),
    ("a//b", "git refuses empty path components ('/' at either end or '//')"),
    ("a..b", "git refuses '..' and '@{' in branch names"),
    ("a@{b", "git refuses '..' and '@{' in branch names"),
    ("a.", "git refuses branch names ending with '.'"),
    ("a/.b", "git refuses path components starting with '.' or ending with '.lock'"),
    ("a.lock/b", "git refuses path components starting with '.' or ending with '.lock'"),
])
def test_a_refused_name_says_why(name: str, reason: str) -> None:
    assert shell.ref_format_problem(name) == reason
    with pytest.raises(PrAgentError) as err:
        shell.check_name(name, "head branch of #12")
    assert err.value.code == "unsafe_branch_name" and err.value.details["reason"] == reason
    assert err.value.message.startswith("The head branch of #12 ")


@pytest.mark.parametrize("name", ["feature/b", "a.b", "x@y", "release-1.2", "a/b/c", "+main", "a;b$(c)"])
def test_a_name_git_accepts_is_used_as_is(name: str) -> None:
    assert shell.ref_format_problem(name) is None and shell.check_name(name, "branch") == name


def test_fetch_and_branch_commands() -> None:
    assert shell.fetch_ref("origin", "refs/pull/7/head", shell.pull_track("origin", 7)) == (
        "git fetch origin +refs/pull/7/head:refs/remotes/origin/pr/7")
    assert shell.fetch("origin", ["main", "feat", "main"]) == (
        "git fetch origin +refs/heads/main:refs/remotes/origin/main +refs/heads/feat:refs/remotes/origin/feat")
    assert shell.create_branch("origin", "feat") == "git branch --track feat refs/remotes/origin/feat"
    assert shell.create_branch("origin", "feat", "refs/remotes/origin/pr/7") == (
        "git branch feat refs/remotes/origin/pr/7")


def test_fast_forward_moves_the_branch_or_merges_where_it_is_checked_out() -> None:
    assert shell.fast_forward("origin", "feat", False) == "git branch --force feat refs/remotes/origin/feat"
    assert shell.fast_forward("origin", "feat", False, "refs/remotes/origin/pr/7") == (
        "git branch --force feat refs/remotes/origin/pr/7")
    assert shell.fast_forward("origin", "feat", True) == (
        "git switch feat && git merge --ff-only refs/remotes/origin/feat")


def test_rebases_and_pushes_word_for_word() -> None:
    assert shlex.split(shell.rebase_onto("refs/remotes/origin/main", "a" * 40, "feat")) == [
        "git", "rebase", "--onto", "refs/remotes/origin/main", "a" * 40, "feat"]
    assert shlex.split(shell.rebase("refs/remotes/origin/main", "feat")) == [
        "git", "rebase", "refs/remotes/origin/main", "feat"]
    assert shell.push("origin", [("feat", "a" * 40)]) == (
        f"git push --force-with-lease=refs/heads/feat:{'a' * 40} origin refs/heads/feat:refs/heads/feat")
    assert shell.push("origin", [("b", "1" * 40), ("c", "2" * 40)]) == (
        f"git push --atomic --force-with-lease=refs/heads/b:{'1' * 40} --force-with-lease=refs/heads/c:{'2' * 40} "
        "origin refs/heads/b:refs/heads/b refs/heads/c:refs/heads/c")
    assert shell.plain_push("fork", "feat") == "git push fork refs/heads/feat:refs/heads/feat"


def test_a_retarget_goes_to_the_prs_host() -> None:
    assert shell.retarget(PRRef("acme", "widgets", 12), "main") == (
        "gh api --method PATCH repos/acme/widgets/pulls/12 -f base=main --silent")
    assert shell.retarget(PRRef("acme", "widgets", 12, "ghe.example"), "main") == (
        "gh api --hostname ghe.example --method PATCH repos/acme/widgets/pulls/12 -f base=main --silent")
