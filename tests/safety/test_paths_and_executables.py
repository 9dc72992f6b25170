"""Path parts and executables (issue 18 items 10 and 12): an owner, repository or id never adds a path segment to a
REST path or a resource URI, and programs are never found in the current directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.executables import which
from pr_agent.gh import Gh, check_path
from pr_agent.refs import parse_ref, parse_remote_url, parse_repo_spec
from pr_agent.tools.checks_view import parse_job_log_uri


@pytest.mark.parametrize("uri", ["pr-agent://job-log/acme/../4242", "pr-agent://job-log/acme/./4242",
                                 "pr-agent://job-log/ghe.corp/acme/../4242", "pr-agent://job-log/../widgets/1",
                                 "pr-agent://job-log/acme/widgets/0", "pr-agent://job-log/acme/widgets/12/../3"])
def test_job_log_uris_with_path_tricks_are_refused(uri: str) -> None:
    assert parse_job_log_uri(uri) is None
    assert parse_job_log_uri("pr-agent://job-log/acme/widgets.js/4242") == ("acme", "widgets.js", 4242, None)


@pytest.mark.parametrize("text", ["acme/..#3", "acme/.#3", "https://github.com/acme/../pull/3",
                                  "github.com/acme/../pull/3", "-acme/widgets#3", "https://a.b;id>x/o/r/pull/1",
                                  "https://a.b$(id)/o/r/pull/1", "https://a.b%0aid/o/r/pull/1"])
def test_pr_references_with_dot_segments_are_refused(text: str) -> None:
    with pytest.raises(PrAgentError) as err:
        parse_ref(text)
    assert err.value.code == "invalid_pr_reference"


def test_repo_specs_and_remotes_with_dot_segments() -> None:
    with pytest.raises(PrAgentError):
        parse_repo_spec("acme/..", source="--repo")
    assert parse_remote_url("https://github.com/acme/...git") is None
    assert parse_remote_url("git@github.com:acme/...git") is None


@pytest.mark.parametrize("path", ["repos/acme/../actions/jobs/1/logs", "repos/acme/./pulls", "repos//x",
                                  "/repos/acme/widgets", "-X", "https://evil.dev/repos/a/b",
                                  "repos/a/b\n/pulls", "repos/a/b c"])
def test_the_gateway_refuses_a_walking_rest_path_before_gh(path: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GH_PR_AGENT_GH", str(tmp_path / "no-such-gh"))  # gh is never reached
    with pytest.raises(PrAgentError) as err:
        check_path(path)
    assert err.value.code == "invalid_arguments"
    with pytest.raises(PrAgentError) as err:
        Gh().rest("GET", path)
    assert err.value.code == "invalid_arguments"  # not gh_not_found: refused before gh was looked for


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho planted\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("windows", [False, True], ids=["posix", "windows-rules"])
def test_which_never_looks_in_the_current_directory(tmp_path: Path, monkeypatch, windows: bool) -> None:
    clone = tmp_path / "clone"
    name = "git.BAT" if windows else "git"
    _exe(clone / name)
    _exe(clone / "bin" / name)
    real = _exe(tmp_path / "tools" / name)
    monkeypatch.chdir(clone)
    monkeypatch.setenv("PATHEXT", ".COM;.EXE;.BAT;.CMD")
    sep = ";" if windows else os.pathsep
    assert which("git", sep.join(["", ".", "bin"]), windows=windows) is None
    assert which("git", sep.join(["", ".", "bin", str(real.parent)]), windows=windows) == str(real)
