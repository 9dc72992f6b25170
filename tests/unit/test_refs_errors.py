"""How a bad PR reference or repository is refused, and `gh repo set-default` honoured (issue 19 mutation
survivors of refs.py): each refusal names its own reason, and untrusted text echoed back is cut at 200."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.git import Git
from pr_agent.refs import PRRef, parse_ref, parse_repo_spec, resolve_pr, resolve_repo


def reason(text: str) -> str:
    with pytest.raises(PrAgentError) as e:
        parse_ref(text)
    assert e.value.code == "invalid_pr_reference"
    return str(e.value.details["reason"])


@pytest.mark.parametrize("text", ["", "   ", "\t"])
def test_an_empty_reference_is_refused_as_empty(text: str) -> None:
    assert reason(text) == "it is empty"


@pytest.mark.parametrize("text", ["acme/widgets#7\x00", "acme/wid\x1bgets#7", "#7\x7f", "acme/widgets#7\x01",
                                  "https://github.com/acme/widgets/pull/7" + "/x" * 1100])
def test_control_characters_or_a_huge_reference_are_refused_as_such(text: str) -> None:
    assert reason(text) == "it contains control characters or is too long"


def test_printable_text_of_normal_length_is_not_called_a_control_character() -> None:
    assert reason("acme/widgets#x y") != "it contains control characters or is too long"


@pytest.mark.parametrize("url", ["https://localhost/acme/widgets/pull/7", "https://exa_mple.com/acme/widgets/pull/7"])
def test_a_url_whose_host_is_not_a_host_name_is_refused(url: str) -> None:
    assert reason(url) == "the URL's host is not a host name"


def test_a_long_bad_repository_is_echoed_cut_at_200_characters() -> None:
    with pytest.raises(PrAgentError) as e:
        parse_repo_spec("x" * 300, source="--repo")
    assert e.value.details["value"] == "x" * 200


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_gh_repo_set_default_names_the_repository(tmp_path: Path) -> None:
    """`gh repo set-default org/proj` writes remote.<name>.gh-resolved = org/proj; gh and we then use it."""
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "remote", "add", "origin", "https://github.com/me/fork.git")
    _git(tmp_path, "config", "remote.origin.gh-resolved", "org/proj")
    spec = resolve_repo(Context(git=Git(tmp_path), env={}))
    assert (spec.owner, spec.repo) == ("org", "proj")


def test_repo_flag_and_a_reference_on_another_host_conflict(tmp_path: Path) -> None:
    ctx = Context(git=Git(tmp_path), env={}, repo_override="ghe.example.com/acme/widgets")
    with pytest.raises(PrAgentError) as e:
        resolve_pr(ctx, "github.example.org/acme/widgets#7")
    assert e.value.code == "invalid_arguments"
    assert e.value.details["reason"] == "conflicts with the PR reference"
    same = resolve_pr(ctx, "ghe.example.com/acme/widgets#7")
    assert same == PRRef("acme", "widgets", 7, "ghe.example.com")


def test_a_conflict_echoes_the_reference_cut_at_200_characters(tmp_path: Path) -> None:
    ctx = Context(git=Git(tmp_path), env={}, repo_override="acme/widgets")
    text = "https://github.com/other/repo/pull/7/" + "f" * 300
    with pytest.raises(PrAgentError) as e:
        resolve_pr(ctx, text)
    assert e.value.details["pr"] == "https://github.com/other/repo/pull/7/" + "f" * 163
