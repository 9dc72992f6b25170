"""What the user's clone tells the stack analysis (issue 19 mutation survivors of stack/local.py): which remote is
the PR's repository, fetching missing commits, the local branch against GitHub's head, the new base's commits
and files, and the predicted conflicts. Real git repositories; expected values are the commits made here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pr_agent.git import Git
from pr_agent.refs import PRRef
from pr_agent.stack.local import Clone, LocalBranch

REPO = PRRef("acme", "widgets", 1)
ENV = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A",
       "GIT_COMMITTER_EMAIL": "a@example.com", "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def commit(cwd: Path, name: str, text: str, message: str) -> str:
    (cwd / name).write_text(text)
    git(cwd, "add", name)
    git(cwd, "commit", "-q", "-m", message)
    return git(cwd, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main: m0 - m1 (m1 changes f.txt line 1, adds main.txt); feature from m0: d1 (changes f.txt line 1 too)."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    oids = {"m0": commit(work, "f.txt", "one\ntwo\n", "m0")}
    git(work, "checkout", "-q", "-b", "feature")
    oids["d1"] = commit(work, "f.txt", "ONE (feature)\ntwo\n", "d1")
    git(work, "checkout", "-q", "main")
    oids["m1"] = commit(work, "f.txt", "ONE (main)\ntwo\n", "m1")
    oids["m2"] = commit(work, "main.txt", "new\n", "m2")
    return work, oids


def test_the_prs_repository_is_found_among_the_remotes_origin_first(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    for name, url in [("aaa", "https://github.com/acme/widgets.git"), ("fork", "https://github.com/me/widgets.git"),
                      ("origin", "git@github.com:ACME/Widgets.git"), ("zzz", "https://github.com/acme/widgets")]:
        git(tmp_path, "remote", "add", name, url)
    clone = Clone.detect(Git(tmp_path), REPO, {})
    assert clone is not None and clone.remote == "origin" and clone.toplevel == str(tmp_path)
    git(tmp_path, "remote", "remove", "origin")
    assert Clone.detect(Git(tmp_path), REPO, {}).remote == "aaa"  # type: ignore[union-attr]


def test_a_clone_of_another_repository_or_host_is_not_the_prs(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "https://github.com/acme/gadgets.git")
    git(tmp_path, "remote", "add", "other", "https://github.com/octo/widgets.git")
    git(tmp_path, "remote", "add", "ghe", "https://ghe.example/acme/widgets.git")
    assert Clone.detect(Git(tmp_path), REPO, {}) is None
    assert Clone.detect(Git(tmp_path), REPO, {"GH_HOST": "ghe.example"}).remote == "ghe"  # type: ignore[union-attr]


def test_missing_commits_are_fetched_and_an_unknown_one_is_reported(tmp_path: Path,
                                                                    repo: tuple[Path, dict[str, str]]) -> None:
    work, oids = repo
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", "--no-local", "--single-branch", "-b", "main", str(work), str(mine))
    clone = Clone(Git(mine), "origin", str(mine))
    assert not clone.has(oids["d1"]) and clone.has(oids["m1"]) and not clone.has(None) and not clone.has("")
    assert clone.ensure([oids["d1"], None, oids["m1"]]) == [] and clone.has(oids["d1"]) and not clone.fetch_failed
    unknown = "e" * 40
    assert clone.ensure([unknown]) == [unknown] and clone.fetch_failed


def test_the_local_branch_against_githubs_head(tmp_path: Path, repo: tuple[Path, dict[str, str]]) -> None:
    work, oids = repo
    clone = Clone(Git(work), "origin", str(work))
    git(work, "branch", "behind", oids["m0"])
    git(work, "branch", "ahead", oids["m2"])
    git(work, "branch", "diverged", oids["d1"])
    elsewhere = tmp_path / "elsewhere"
    git(work, "worktree", "add", "-q", str(elsewhere), "feature")
    assert clone.branch("nope", oids["m1"]) == LocalBranch("nope", "missing")
    assert clone.branch("main", oids["m2"]) == LocalBranch("main", "same", oids["m2"], checked_out_here=True)
    assert clone.branch("behind", oids["m2"]) == LocalBranch("behind", "behind", oids["m0"], 0, 2)
    assert clone.branch("ahead", oids["m1"]) == LocalBranch("ahead", "ahead", oids["m2"], 1, 0)
    assert clone.branch("diverged", oids["m1"]) == LocalBranch("diverged", "diverged", oids["d1"], 1, 1)
    assert clone.branch("feature", oids["d1"]) == LocalBranch("feature", "same", oids["d1"],
                                                              worktree=str(elsewhere))
    assert clone.merge_base(oids["d1"], oids["m2"]) == oids["m0"]


def test_the_new_bases_commits_and_files(repo: tuple[Path, dict[str, str]]) -> None:
    work, oids = repo
    clone = Clone(Git(work), "origin", str(work))
    total, entries = clone.new_commits(oids["m2"], oids["d1"], 1)
    assert total == 2 and [(e.oid, e.subject) for e in entries] == [(oids["m2"], "m2")]  # newest first, limited
    assert clone.new_commits(oids["d1"], oids["d1"], 5) == (0, [])
    assert sorted(clone.files_changed(oids["m2"], oids["d1"])) == ["f.txt", "main.txt"]


def test_predicted_conflicts_name_the_conflicting_paths(repo: tuple[Path, dict[str, str]]) -> None:
    work, oids = repo
    clone = Clone(Git(work), "origin", str(work))
    assert clone.predicted_conflicts(oids["m2"], oids["m0"], oids["d1"]) == ["f.txt"]
    assert clone.predicted_conflicts(oids["m2"], oids["m0"], oids["m0"]) == []  # nothing to replay: clean
    assert clone.predicted_conflicts("f" * 40, oids["m0"], oids["d1"]) is None  # the new base is not in the clone
    assert clone.predicted_conflicts(oids["m2"], oids["m0"], "f" * 40) is None
