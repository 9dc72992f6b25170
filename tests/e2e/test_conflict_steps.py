"""detect_merge_conflicts' resolution steps, executed as written for every conflict type git reports (issue 12
point 8): content, add/add, rename/rename, rename/delete, delete/modify (both ways), distinct types (mode),
binary, file/directory (both ways, and with git's side-copy name already taken), symlink and submodule (not
checked out: moved on both sides, and deleted on one side while moved on the other, each way).

One shared git world (a bare origin with ``refs/pull/N/head`` and a user clone); per type: the tool runs in the
clone through real gh and fakehub, then every step runs verbatim in bash — `gh pr checkout` through real gh, the
final `gh pr-agent conflicts` through gh's extension mechanism — with a scripted resolution where a step asks the
user to edit (the choice the suggested resolution offers, its own backticked command where it quotes one). The
merge must commit, the push must land, and the last step must find nothing left to resolve."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.conftest import ROOT, Agent
from tests.e2e.gitrepos import git
from tests.safety.worlds import pinned_gh

SSH_URL = "git@github.localhost:acme/widgets.git"
Op = tuple[str, ...]  # ("write", path, text) | ("rm", path) | ("mv", old, new) | ("link", path, target) | ("x", path)
#                       | ("gitlink", path, commit): a submodule entry (not checked out, as in a clone without
#                         `git submodule update`)
SUB = {n: str(n) * 40 for n in (1, 2, 3)}  # the submodule's commits: never fetched, as in most clones
BASE: list[Op] = [("write", "f.txt", "alpha\nbeta\ngamma\n"), ("write", "ren.txt", "renamed twice\n"),
                  ("write", "rd.txt", "renamed or deleted\n"), ("write", "dm.txt", "one\ntwo\n"),
                  ("write", "md.txt", "one\ntwo\n"), ("write", "ty.txt", "a plain file\n"),
                  ("write", "logo.bin", "\x00\x01base"), ("link", "link", "target-0"), ("write", "README.md", "x\n"),
                  ("write", "fx~HEAD", "a file named like git's side copy\n"),
                  ("gitlink", "sub", SUB[1]), ("gitlink", "subd", SUB[1]), ("gitlink", "subm", SUB[1])]
# number: (type, ops on the base branch, ops on the PR's head)
CASES: dict[int, tuple[str, list[Op], list[Op]]] = {
    41: ("content", [("write", "f.txt", "alpha\nBETA\ngamma\n")], [("write", "f.txt", "alpha\nbeta (PR)\ngamma\n")]),
    42: ("add/add", [("write", "new.txt", "base's\n")], [("write", "new.txt", "the PR's\n")]),
    43: ("rename/rename", [("mv", "ren.txt", "ren_base.txt")], [("mv", "ren.txt", "ren_pr.txt")]),
    44: ("rename/delete", [("rm", "rd.txt")], [("mv", "rd.txt", "rd_new.txt")]),
    45: ("delete/modify", [("rm", "dm.txt")], [("write", "dm.txt", "one\ntwo (PR)\n")]),
    46: ("modify/delete", [("write", "md.txt", "one\ntwo (base)\n")], [("rm", "md.txt")]),
    47: ("mode", [("rm", "ty.txt"), ("link", "ty.txt", "elsewhere")], [("x", "ty.txt")]),
    48: ("binary", [("write", "logo.bin", "\x00\x01main")], [("write", "logo.bin", "\x00\x01pr\xff")]),
    49: ("file/directory", [("write", "fd/inner.txt", "a directory on base\n")], [("write", "fd", "a file (PR)\n")]),
    50: ("directory/file", [("write", "df", "a file on base\n")], [("write", "df/inner.txt", "a directory (PR)\n")]),
    51: ("symlink", [("rm", "link"), ("link", "link", "target-base")], [("rm", "link"), ("link", "link", "target-pr")]),
    # git's side copy for the PR's file would be fx~HEAD, which is taken: git names it fx~HEAD_0 (unique_path)
    52: ("file/directory, side name taken", [("write", "fx/inner.txt", "a directory on base\n")],
         [("write", "fx", "a file (PR)\n")]),
    53: ("submodule", [("gitlink", "sub", SUB[2])], [("gitlink", "sub", SUB[3])]),
    # git reports these as modify/delete: a submodule, recorded by update-index / rm --cached (never by git add)
    54: ("submodule deleted in base", [("rm", "subd")], [("gitlink", "subd", SUB[3])]),
    55: ("submodule deleted in the PR", [("gitlink", "subm", SUB[2])], [("rm", "subm")]),
}
ALL = 60  # one PR that conflicts with its base in every way above (one tool run, one merge: cheap)
# number -> the path its conflict is reported under (a side copy as path~LABEL)
KEY = {41: "f.txt", 42: "new.txt", 43: "ren.txt", 44: "rd_new.txt", 45: "dm.txt", 46: "md.txt", 47: "ty.txt",
       48: "logo.bin", 49: "fd", 50: "df", 51: "link", 52: "fx", 53: "sub", 54: "subd", 55: "subm"}
EXPECTED_TYPE = {"content": "content", "add/add": "add/add", "rename/rename": "rename", "rename/delete": "rename",
                 "delete/modify": "delete", "modify/delete": "delete", "mode": "mode", "binary": "binary",
                 "file/directory": "file/directory", "directory/file": "file/directory", "symlink": "symlink",
                 "file/directory, side name taken": "file/directory", "submodule": "submodule",
                 "submodule deleted in base": "submodule", "submodule deleted in the PR": "submodule"}


def _apply(root: Path, ops: list[Op]) -> None:
    links = [(path, rest[0]) for op, path, *rest in ops if op == "gitlink"]
    for op, path, *rest in ops:
        p = root / path
        if op == "write":
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(rest[0].encode("latin-1"))
        elif op == "rm":
            git(root, "rm", "-q", "--", path)
        elif op == "mv":
            git(root, "mv", "--", path, rest[0])
        elif op == "link":
            os.symlink(rest[0], p)
        elif op == "x":
            p.chmod(0o755)
    git(root, "add", "-A")
    for path, oid in links:
        git(root, "update-index", "--add", "--cacheinfo", f"160000,{oid},{path}")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("conflict-steps")
    seed, origin = root / "seed", root / "acme" / "widgets.git"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    _apply(seed, BASE)
    git(seed, "commit", "-q", "-m", "base")
    heads, bases = {}, {}
    every = {ALL: ("all", [op for _, b, _ in CASES.values() for op in b],
                   [op for _, _, h in CASES.values() for op in h])}
    for n, (_, base_ops, head_ops) in every.items():
        for branch, ops, out in ((f"base-{n}", base_ops, bases), (f"pr-{n}", head_ops, heads)):
            git(seed, "checkout", "-q", "-b", branch, "main")
            _apply(seed, ops)
            git(seed, "commit", "-q", "-m", branch)
            out[n] = git(seed, "rev-parse", "HEAD")
    origin.parent.mkdir()
    git(root, "clone", "-q", "--bare", str(seed), str(origin))
    # the clone's origin is GitHub's ssh address (gh reads `git remote -v`: an insteadOf rewrite would hide the
    # host); this "ssh" serves it from the bare repository, as GitHub's ssh endpoint runs git-upload-pack there
    ssh = root / "ssh"
    ssh.write_text(f'#!/bin/sh\nfor last; do :; done\ncd {shlex.quote(str(root))} && exec sh -c "$last"\n')
    ssh.chmod(0o755)
    git(origin, "update-ref", f"refs/pull/{ALL}/head", heads[ALL])
    # gh runs the extension from its data directory: this checkout, with the test's interpreter
    ext = root / "data" / "gh" / "extensions" / "gh-pr-agent"
    ext.parent.mkdir(parents=True)
    ext.symlink_to(ROOT, target_is_directory=True)
    pulls = [{"number": n, "title": f"PR {n}", "head_ref": f"pr-{n}", "base_ref": f"base-{n}", "head_sha": heads[n],
              "base_sha": bases[n], "merge_state": {"mergeable": "CONFLICTING"}} for n in heads]
    scenario = {"viewer": {"login": "octocat"},
                "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": pulls}]}
    return {"root": root, "origin": origin, "ssh": ssh, "heads": heads, "bases": bases, "scenario": scenario,
            "data": root / "data"}


def _clone(world: dict[str, Any], where: Path) -> Path:
    git(where.parent, "clone", "-q", str(world["origin"]), str(where))
    git(where, "config", "remote.origin.url", SSH_URL)
    for key, value in (("user.name", "Res Olver"), ("user.email", "r@example.com")):
        git(where, "config", key, value)
    return where


def _snippets(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def _resolve(kind: str, f: dict[str, Any], clone: Path, env: dict[str, str]) -> Callable[[Path], None]:
    """The user's part for one file, as its suggested resolution describes it; returns a check of the commit."""
    path, snippets = f["file_path"], _snippets(f["suggested_resolution"])

    def run_snippet(prefix: str) -> None:
        cmd = next(s for s in snippets if s.startswith(prefix))
        assert _run(cmd, clone, env).returncode == 0, cmd

    if kind in ("content", "add/add"):
        text = (clone / path).read_text()
        assert "<<<<<<<" in text and ">>>>>>>" in text
        (clone / path).write_text("alpha\nbeta, both sides\ngamma\n")
        return lambda tree: None
    if kind == "rename/rename":
        assert path == "ren.txt" and sorted(f["paths"]) == ["ren.txt", "ren_base.txt", "ren_pr.txt"], f
        assert (clone / "ren_base.txt").exists() and (clone / "ren_pr.txt").exists()
        run_snippet("rm -- ren_base.txt")  # keep the PR's name
        return lambda tree: _assert_tree(tree, present=["ren_pr.txt"], absent=["ren.txt", "ren_base.txt"])
    if kind == "rename/delete":
        assert path == "rd_new.txt" and (clone / path).exists()
        return lambda tree: _assert_tree(tree, present=["rd_new.txt"], absent=["rd.txt"])  # kept as it is
    if kind == "delete/modify":
        assert f["deleted_in"] == "base" and (clone / "dm.txt").exists()
        return lambda tree: _assert_tree(tree, present=["dm.txt"])  # keep the PR's changed file
    if kind == "modify/delete":
        assert f["deleted_in"] == "head" and (clone / "md.txt").exists()
        run_snippet("rm ")  # confirm the PR's deletion
        return lambda tree: _assert_tree(tree, absent=["md.txt"])
    if kind == "mode":
        assert set(f["paths"]) == {"ty.txt", "ty.txt~HEAD"}, f
        run_snippet("rm ")  # drop base's symlink; keep the PR's (executable) file under its own name
        os.rename(clone / "ty.txt~HEAD", clone / "ty.txt")
        return lambda tree: _assert_tree(tree, present=["ty.txt"], absent=["ty.txt~HEAD"], mode=("ty.txt", "100755"))
    if kind == "binary":
        run_snippet("git checkout --theirs ")
        return lambda tree: _assert_blob(tree, "logo.bin", b"\x00\x01main")
    if kind in ("file/directory", "directory/file"):
        name = "fd" if kind == "file/directory" else "df"
        assert any(p.startswith(name + "~") for p in f["paths"]), f
        copies = list(f["paths"])
        return lambda tree: _assert_tree(tree, present=[*copies, f"{name}/inner.txt"])  # keep both
    if kind == "file/directory, side name taken":
        assert "fx~HEAD_0" in f["paths"] and "fx~HEAD" not in f["paths"], f
        assert (clone / "fx~HEAD_0").read_text() == "a file (PR)\n"
        return lambda tree: _assert_tree(tree, present=["fx~HEAD", "fx~HEAD_0", "fx/inner.txt"])  # keep both
    if kind == "submodule":
        assert f["paths"] == ["sub"] and SUB[3] in f["suggested_resolution"], f
        run_snippet(f"git update-index --cacheinfo 160000,{SUB[3]},sub")  # keep the PR's commit
        return lambda tree: _assert_tree(tree, present=["sub"], mode=("sub", "160000"), oid=("sub", SUB[3]))
    if kind == "submodule deleted in base":
        assert f["deleted_in"] == "base" and f["git_conflicts"] == ["modify/delete"], f
        run_snippet(f"git update-index --cacheinfo 160000,{SUB[3]},subd")  # keep the PR's commit
        return lambda tree: _assert_tree(tree, present=["subd"], mode=("subd", "160000"), oid=("subd", SUB[3]))
    if kind == "submodule deleted in the PR":
        assert f["deleted_in"] == "head" and SUB[2] in f["suggested_resolution"], f
        run_snippet("git rm -q --cached -- subm")  # confirm the PR's deletion
        return lambda tree: _assert_tree(tree, absent=["subm"])
    if kind == "symlink":
        assert os.readlink(clone / "link") == "target-pr"
        run_snippet("git checkout --theirs ")
        return lambda tree: _assert_blob(tree, "link", b"target-base")
    raise AssertionError(kind)


def _ls(tree: Path) -> dict[str, tuple[str, str]]:
    out = git(tree, "ls-tree", "-r", "-z", "HEAD")
    entries = {}
    for rec in out.split("\0"):
        if rec:
            meta, name = rec.split("\t", 1)
            mode, _, oid = meta.split()
            entries[name] = (mode, oid)
    return entries


def _assert_tree(clone: Path, present: list[str] = (), absent: list[str] = (),  # type: ignore[assignment]
                 mode: tuple[str, str] | None = None, oid: tuple[str, str] | None = None) -> None:
    entries = _ls(clone)
    assert all(p in entries for p in present), (present, sorted(entries))
    assert not any(p in entries for p in absent), (absent, sorted(entries))
    if mode:
        assert entries[mode[0]][0] == mode[1], entries[mode[0]]
    if oid:
        assert entries[oid[0]][1] == oid[1], entries[oid[0]]


def _assert_blob(clone: Path, path: str, content: bytes) -> None:
    oid = _ls(clone)[path][1]
    blob = subprocess.run(["git", "cat-file", "blob", oid], cwd=clone, capture_output=True, check=True).stdout
    assert blob == content


def test_the_resolution_steps_work_as_written(make_hub, world: dict[str, Any], tmp_path: Path) -> None:
    a = Agent(make_hub(world["scenario"]), pinned_gh(), tmp_path / "home")
    clone = _clone(world, tmp_path / "clone")
    env = a.env(XDG_DATA_HOME=str(world["data"]), GH_PR_AGENT_VENV=sys.prefix, GH_PR_AGENT_MERGEABLE_WAIT="0.4",
                GIT_CONFIG_NOSYSTEM="1", GIT_SSH_COMMAND=str(world["ssh"]))
    proc = a.cli("conflicts", f"acme/widgets#{ALL}", "--json", cwd=clone, env=env)
    out = orjson.loads(proc.stdout)
    assert proc.returncode == 1 and out["source"] == "local", (proc.stderr, out)
    by_case = {}
    for f in out["conflicts"]:
        [n] = [n for n, key in KEY.items() if f["file_path"] == key or f["file_path"].startswith(key + "~")]
        by_case[n] = f
    assert {n: f["conflict_type"] for n, f in by_case.items()} == {n: EXPECTED_TYPE[c[0]] for n, c in CASES.items()}
    checks: list[Callable[[Path], None]] = []
    for step in out["instructions"]["resolution_steps"]:
        if step.startswith("# resolve"):  # the user's part, file by file (every "resolve" comment names one)
            n = next(n for n, f in by_case.items() if step.startswith(f"# resolve {shlex.quote(f['file_path'])}:"))
            checks.append(_resolve(CASES[n][0], by_case[n], clone, env))
            continue
        final = step.startswith("gh pr-agent conflicts")
        if final:  # GitHub moves refs/pull/N/head when the PR's branch is pushed
            git(world["origin"], "update-ref", f"refs/pull/{ALL}/head", f"refs/heads/pr-{ALL}")
        res = _run(step, clone, env)
        merging = "git merge" in step and res.returncode == 1  # the merge stops on the conflicts, as it should
        assert res.returncode == 0 or merging, (step, res.stdout, res.stderr)
        if final:
            assert "Traceback" not in res.stderr and orjson.loads(
                _run(step.split("   # ")[0] + " --json", clone, env).stdout)["verdict"] == "clean"
    assert len(checks) == len(CASES)
    # the merge is committed: two parents (the PR's head and the target), nothing unmerged, every choice recorded
    parents = git(clone, "rev-list", "--parents", "-n", "1", "HEAD").split()[1:]
    assert parents == [world["heads"][ALL], world["bases"][ALL]]
    assert git(clone, "diff", "--name-only", "--diff-filter=U") == "" and git(clone, "status", "--porcelain") == ""
    for check in checks:
        check(clone)
    assert git(world["origin"], "rev-parse", f"refs/heads/pr-{ALL}") == git(clone, "rev-parse", "HEAD")
