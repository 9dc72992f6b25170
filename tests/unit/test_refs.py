"""PR references: every accepted form, the rejects, and repository resolution in real git clones."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.git import Git
from pr_agent.refs import ParsedRef, PRRef, parse_ref, parse_remote_url, resolve_pr, resolve_repo


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("123", ParsedRef(123)),
        ("#123", ParsedRef(123)),
        (" 7 ", ParsedRef(7)),
        ("cli/cli#42", ParsedRef(42, "cli", "cli")),
        ("my-org/my.repo_x#9", ParsedRef(9, "my-org", "my.repo_x")),
        ("cli/cli/pull/42", ParsedRef(42, "cli", "cli")),
        ("cli/cli/pulls/42", ParsedRef(42, "cli", "cli")),
        ("ghe.example.com/team/app#5", ParsedRef(5, "team", "app", "ghe.example.com")),
        ("https://github.com/cli/cli/pull/42", ParsedRef(42, "cli", "cli", "github.com")),
        ("https://github.com/cli/cli/pull/42/files", ParsedRef(42, "cli", "cli", "github.com")),
        ("https://github.com/cli/cli/pull/42/checks?check_run_id=1", ParsedRef(42, "cli", "cli", "github.com")),
        ("https://github.com/cli/cli/pull/42#discussion_r1234567", ParsedRef(42, "cli", "cli", "github.com", 1234567)),
        ("https://github.com/cli/cli/pull/42/files#r99", ParsedRef(42, "cli", "cli", "github.com", 99)),
        ("http://ghe.corp:8080/a/b/pull/3/commits/abc", ParsedRef(3, "a", "b", "ghe.corp:8080")),
        ("https://www.github.com/cli/cli/pull/1", ParsedRef(1, "cli", "cli", "github.com")),
        ("github.com/cli/cli/pull/8", ParsedRef(8, "cli", "cli", "github.com")),
        # a PR URL's path without the host takes the same suffixes as with it (the host: -R, GH_REPO, the clone)
        ("cli/cli/pull/42/files", ParsedRef(42, "cli", "cli")),
        ("cli/cli/pulls/42/checks?check_run_id=1", ParsedRef(42, "cli", "cli")),
        ("cli/cli/pull/42#discussion_r1234567", ParsedRef(42, "cli", "cli", None, 1234567)),
        ("cli/cli/pull/42/files#r99", ParsedRef(42, "cli", "cli", None, 99)),
    ],
)
def test_accepted_forms(text: str, expected: ParsedRef) -> None:
    assert parse_ref(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "   ", "abc", "#0", "0", "-1", "12a", "cli/cli", "cli/cli#", "cli/cli#x", "cli#1", "a/b/c#1x",
     "ftp://github.com/cli/cli/pull/1", "https://github.com/cli/cli/issues/1", "https://github.com/cli",
     "cli/cli#1; rm -rf /", "$(touch x)", "cli/cli#1\n2", "99999999999", "-o/r#1", "cli/cli/pull/42x",
     "cli/cli/pull/42files", "cli/./pull/1/files", "cli/cli/issues/1/files", "cli/cli/pull/0/files"],
)
def test_rejects_with_accepted_forms(text: str) -> None:
    with pytest.raises(PrAgentError) as exc:
        parse_ref(text)
    err = exc.value
    assert err.code == "invalid_pr_reference"
    assert err.category == "user"
    assert "owner/repo#123" in err.details["accepted_forms"]
    assert err.exit_code == 2


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_parse_ref_never_crashes(text: str) -> None:
    try:
        parsed = parse_ref(text)
    except PrAgentError as err:
        assert err.code == "invalid_pr_reference"
    else:
        assert parsed.number and parsed.number > 0


@pytest.mark.parametrize(
    ("url", "spec"),
    [
        ("https://github.com/cli/cli.git", ("cli", "cli", "github.com")),
        ("https://github.com/cli/cli", ("cli", "cli", "github.com")),
        ("git@github.com:cli/cli.git", ("cli", "cli", "github.com")),
        ("ssh://git@ssh.github.com:443/cli/cli.git", ("cli", "cli", "github.com")),
        ("https://user@ghe.corp/team/app.git", ("team", "app", "ghe.corp")),
        ("/srv/git/repo.git", None),
        ("file:///srv/git/repo.git", None),
    ],
)
def test_remote_urls(url: str, spec: tuple[str, str, str] | None) -> None:
    got = parse_remote_url(url)
    assert (None if got is None else (got.owner, got.repo, got.host)) == spec


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    repo = tmp_path / "clone"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "remote", "add", "origin", "https://github.com/me/fork.git")
    return repo


def ctx_for(path: Path, env: dict[str, str] | None = None, repo: str | None = None) -> Context:
    return Context(git=Git(path), env=env or {}, repo_override=repo)


def test_bare_number_uses_repo_flag_then_gh_repo_then_clone(clone: Path) -> None:
    assert resolve_pr(ctx_for(clone, {"GH_REPO": "env/repo"}, "flag/repo"), "5") == PRRef("flag", "repo", 5)
    assert resolve_pr(ctx_for(clone, {"GH_REPO": "ghe.corp/env/repo"}), "5") == PRRef("env", "repo", 5, "ghe.corp")
    assert resolve_pr(ctx_for(clone), "#5") == PRRef("me", "fork", 5, "github.com")


def test_full_reference_ignores_clone(tmp_path: Path) -> None:
    assert resolve_pr(ctx_for(tmp_path), "a/b#1") == PRRef("a", "b", 1)


def test_remote_priority_and_set_default(clone: Path) -> None:
    _git(clone, "remote", "add", "upstream", "git@github.com:org/proj.git")
    assert resolve_repo(ctx_for(clone)).owner == "org"
    _git(clone, "config", "remote.origin.gh-resolved", "base")
    assert resolve_repo(ctx_for(clone)).owner == "me"


def test_gh_host_filters_remotes(clone: Path) -> None:
    with pytest.raises(PrAgentError) as exc:
        resolve_repo(ctx_for(clone, {"GH_HOST": "github.localhost"}))
    assert exc.value.code == "repository_not_determined"
    _git(clone, "remote", "add", "fake", "http://github.localhost/acme/widgets.git")
    assert resolve_repo(ctx_for(clone, {"GH_HOST": "github.localhost"})).owner == "acme"


def test_outside_a_clone_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(PrAgentError) as exc:
        resolve_pr(ctx_for(tmp_path), "12")
    assert exc.value.code == "repository_not_determined"
    assert "--repo" in exc.value.suggestion


def test_bad_repo_flag(tmp_path: Path) -> None:
    with pytest.raises(PrAgentError) as exc:
        resolve_pr(ctx_for(tmp_path, repo="not a repo"), "12")
    assert exc.value.code == "invalid_arguments"


def test_current_branch_with_pull_ref_needs_no_api(clone: Path) -> None:
    _git(clone, "commit", "-q", "--allow-empty", "-m", "x")
    _git(clone, "checkout", "-q", "-b", "pr-77")
    _git(clone, "config", "branch.pr-77.merge", "refs/pull/77/head")
    assert resolve_pr(ctx_for(clone), None) == PRRef("me", "fork", 77, "github.com")


def test_detached_head(clone: Path) -> None:
    _git(clone, "commit", "-q", "--allow-empty", "-m", "x")
    _git(clone, "checkout", "-q", "--detach")
    with pytest.raises(PrAgentError) as exc:
        resolve_pr(ctx_for(clone), None)
    assert exc.value.code == "detached_head"
