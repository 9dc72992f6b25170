"""The git gateway (issue 18 items 4 and 5), with real git in temp repositories:

- a clone whose own configuration and hooks name programs (core.fsmonitor, reference-transaction and
  post-index-change hooks, .gitattributes merge drivers, filters and diff drivers, remote.*.uploadpack, a
  credential helper) — each writes a tripwire file — runs none of them through any gateway method, and
  ``.git/index`` stays byte-identical; the same commands run by plain git do fire the tripwires (the trap is armed);
- option-looking and malformed revisions are refused before git sees them, for every method taking one.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.git import Git
from tests.safety.hostile import CORPUS


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}).stdout.strip()


def trip_script(path: Path, trips: Path, name: str, tail: str = "exit 1") -> str:
    path.write_text(f"#!/bin/sh\ntouch '{trips}/{name}'\n{tail}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def trapped(tmp_path: Path) -> tuple[Git, Path, dict[str, str]]:
    trips, bins = tmp_path / "trips", tmp_path / "bin"
    trips.mkdir()
    bins.mkdir()
    origin, clone = tmp_path / "origin", tmp_path / "clone"
    origin.mkdir()
    sh(origin, "init", "-q", "-b", "main")
    (origin / "a.txt").write_text("1\n2\n3\n", encoding="utf-8")
    (origin / ".gitattributes").write_text("* merge=evil filter=evil diff=evil\n", encoding="utf-8")
    sh(origin, "add", ".")
    sh(origin, "commit", "-qm", "base")
    base = sh(origin, "rev-parse", "HEAD")
    sh(origin, "checkout", "-qb", "side")
    (origin / "a.txt").write_text("1\nside\n3\n", encoding="utf-8")
    sh(origin, "commit", "-qam", "side")
    side = sh(origin, "rev-parse", "HEAD")
    sh(origin, "checkout", "-q", "main")
    (origin / "a.txt").write_text("1\nmain\n3\n", encoding="utf-8")
    (origin / "b.txt").write_text("new\n", encoding="utf-8")
    sh(origin, "add", ".")
    sh(origin, "commit", "-qm", "main")
    main = sh(origin, "rev-parse", "HEAD")
    sh(tmp_path, "clone", "-q", "--no-local", str(origin), str(clone))
    sh(origin, "commit", "-q", "--allow-empty", "-m", "later")  # a commit the clone has to fetch
    later = sh(origin, "rev-parse", "HEAD")
    config = {
        "core.fsmonitor": trip_script(bins / "fsmonitor", trips, "fsmonitor"),
        "merge.evil.driver": trip_script(bins / "merge", trips, "merge-driver") + " %O %A %B",
        "filter.evil.clean": trip_script(bins / "clean", trips, "filter-clean", "cat"),
        "filter.evil.smudge": trip_script(bins / "smudge", trips, "filter-smudge", "cat"),
        "diff.evil.textconv": trip_script(bins / "textconv", trips, "textconv", 'cat "$1"'),
        "diff.evil.command": trip_script(bins / "diffcmd", trips, "diff-command"),
        "remote.origin.uploadpack": trip_script(bins / "upload", trips, "uploadpack", 'exec git-upload-pack "$@"'),
        "credential.helper": "!" + trip_script(bins / "cred", trips, "credential"),
    }
    for key, value in config.items():
        sh(clone, "config", key, value)
    for hook in ("reference-transaction", "post-index-change", "post-checkout", "pre-auto-gc", "post-merge"):
        trip_script(clone / ".git" / "hooks" / hook, trips, f"hook-{hook}", "exit 0")
    (clone / "a.txt").write_text("1\n2\n3\nlocal edit\n", encoding="utf-8")  # status has something to look at
    os.utime(clone / ".git" / "index", (1, 1))  # racy-clean entries: a plain status would refresh the index
    assert not list(trips.iterdir())
    return Git(clone), trips, {"base": base, "side": side, "main": main, "later": later}


def exercise(git: Git, oids: dict[str, str]) -> None:
    """Every gateway method that reads the clone or GitHub's ids."""
    base, side, main = oids["base"], oids["side"], oids["main"]
    assert git.is_repo() and git.has_local_changes()
    git.remotes()
    git.current_branch()
    assert git.rev_parse_commit(main) == main and git.has_commit(side)
    assert git.merge_tree(main, side).returncode == 1  # a real conflict: the text merge ran, not the driver
    _tree, names, clean = git.merge_tree_names(main, side)
    assert names == ["a.txt"] and clean is False
    assert git.merge_base(main, side) == base and git.is_ancestor(base, main) is True
    assert git.changed_files(base, main) == ["a.txt", "b.txt"]
    git.renames(base, main)
    blob_old = sh(git.cwd, "rev-parse", f"{base}:a.txt")
    blob_new = sh(git.cwd, "rev-parse", f"{main}:a.txt")
    assert "+main" in git.diff_blobs(blob_old, blob_new)
    assert git.show(f"{main}:a.txt") == "1\nmain\n3\n" and git.blob_size(blob_new) == 9
    assert [e.oid for e in git.log(main, f"^{base}")] == [main] and git.count(main, f"^{base}") == 1
    assert git.same_patch(side, main) == set()
    assert git.tree(main) and git.probe_commit(git.tree(main) or "", base)
    assert git.fetch_objects("origin", [oids["later"]]) and git.has_commit(oids["later"])
    assert git.fetch_into("origin", ["+refs/heads/side:refs/gh-pr-agent/t/side"]).returncode == 0
    git.delete_refs(["refs/gh-pr-agent/t/side"])
    git.worktrees()
    git.operation_in_progress()


def test_no_repository_program_runs_and_the_index_is_untouched(trapped) -> None:
    git, trips, oids = trapped
    index = git.cwd / ".git" / "index"
    before = index.read_bytes(), index.stat().st_mtime_ns
    exercise(git, oids)
    assert sorted(p.name for p in trips.iterdir()) == []
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before


def test_the_trap_is_armed_for_plain_git(trapped) -> None:
    git, trips, oids = trapped
    index = git.cwd / ".git" / "index"
    before = index.read_bytes()
    subprocess.run(["git", "status", "--porcelain"], cwd=git.cwd, capture_output=True, check=False)
    subprocess.run(["git", "merge-tree", "--write-tree", oids["main"], oids["side"]], cwd=git.cwd,
                   capture_output=True, check=False)
    subprocess.run(["git", "fetch", "-q", "origin", "+refs/heads/side:refs/t/side"], cwd=git.cwd,
                   capture_output=True, check=False)
    fired = {p.name for p in trips.iterdir()}
    assert {"fsmonitor", "merge-driver", "hook-reference-transaction", "uploadpack"} <= fired, fired
    assert "hook-post-index-change" in fired or index.read_bytes() != before


BAD = CORPUS["revisions"]


@pytest.mark.parametrize("value", BAD)
def test_option_looking_revisions_are_refused_everywhere(trapped, value: str, tmp_path: Path) -> None:
    git, trips, oids = trapped
    ok = oids["main"]
    calls = [
        lambda: git.rev_parse_commit(value), lambda: git.merge_tree(ok, value), lambda: git.merge_tree(value, ok),
        lambda: git.merge_base(value, ok), lambda: git.renames(value, ok), lambda: git.show(value),
        lambda: git.blob_size(value), lambda: git.diff_blobs(value, ok), lambda: git.has_commit(value),
        lambda: git.is_ancestor(value, ok), lambda: git.log(value), lambda: git.log(ok, value),
        lambda: git.count(value), lambda: git.changed_files(ok, value), lambda: git.tree(value),
        lambda: git.merge_tree_names(value, ok), lambda: git.probe_commit(value, ok),
        lambda: git.probe_commit(ok, value), lambda: git.fetch_objects("origin", [value]),
        lambda: git.delete_refs([value]), lambda: git.same_patch(value, ok), lambda: git.same_patch(ok, value),
    ]
    for call in calls:
        with pytest.raises(PrAgentError) as err:
            call()
        assert err.value.code == "invalid_arguments" and err.value.details["field"] == "revision"
    assert not Path("/tmp/pr-agent-pwned").exists() and not (git.cwd / "pwned").exists()
    assert not list(trips.iterdir())


def test_valid_revisions_pass() -> None:
    git = Git(".")
    hexid = "a" * 40
    assert git.revs(hexid, "b" * 64, "refs/remotes/origin/+main", "refs/gh-pr-agent/x/base") == [
        hexid, "b" * 64, "refs/remotes/origin/+main", "refs/gh-pr-agent/x/base"]
    assert git.revs(f"^{hexid}", exclude=True) == [f"^{hexid}"]


def test_only_the_gateway_runs_git() -> None:
    """Every git command runs through a checked gateway method (validated revisions, ``--end-of-options``):
    no module but pr_agent/git.py calls the raw runner or starts a process of its own."""
    root = Path(__file__).resolve().parents[2] / "pr_agent"
    raw = re.compile(r"\bgit\.(?:call|_raw)\(|\bsubprocess\.(?:run|Popen|call|check_output|check_call)\(")
    found = [f"{p.relative_to(root)}:{n}: {line.strip()}" for p in sorted(root.rglob("*.py"))
             if p.name not in ("git.py", "gh.py")  # the two gateways themselves
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if raw.search(line)]
    assert not found, "\n".join(found)
