"""detect_merge_conflicts end to end: real git (a bare origin with refs/pull/N/head, a busy user clone),
our CLI, the real gh and fakehub. The user's checkout must be byte-for-byte the same afterwards."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.gitrepos import Repos, build, checkout_state, conflicts_world

FAST_POLL = {"GH_PR_AGENT_MERGEABLE_WAIT": "0.4"}
# number: (exit code, [(file_path, conflict_type, extra fields)])
EXPECTED: dict[int, tuple[int, list[tuple[str, str, dict[str, Any]]]]] = {
    21: (1, [("f.txt", "content", {"base_content_preview": "BETA from main",
                                   "head_content_preview": "beta from the PR"})]),
    22: (1, [("new_name.txt", "rename", {"renamed_from": "old_name.txt", "renamed_in": "base",
                                         "base_content_preview": "THREE (main)",
                                         "head_content_preview": "three (PR)"})]),
    23: (1, [("doomed.txt", "delete", {"deleted_in": "base", "git_conflicts": ["modify/delete"]})]),
    24: (1, [("logo.bin", "binary", {})]),
    25: (0, []),
}
IDS = {21: "content", 22: "rename-edit", 23: "delete-modify", 24: "binary", 25: "clean"}


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> Repos:
    return build(tmp_path_factory.mktemp("conflicts"))


def run(a: Any, *args: str, cwd: Path | None = None, **env: str) -> tuple[int, dict[str, Any]]:
    proc = a.cli("conflicts", *args, "--json", cwd=cwd, env=a.env(**FAST_POLL, **env))
    assert proc.stdout, proc.stderr
    return proc.returncode, orjson.loads(proc.stdout)


@pytest.mark.parametrize("number", list(EXPECTED), ids=[IDS[n] for n in EXPECTED])
def test_conflicting_files_inside_a_clone(agent, repos: Repos, number: int) -> None:
    a = agent(conflicts_world(repos, {25: "MERGEABLE"}))
    before = checkout_state(repos.clone)
    code, out = run(a, f"acme/widgets#{number}", cwd=repos.clone)
    assert checkout_state(repos.clone) == before  # branch, HEAD, index, working tree, stash, refs, config
    exit_code, files = EXPECTED[number]
    assert code == exit_code
    assert out["source"] == "local" and out["local"]["head_sha"] == repos.heads[number]
    assert out["local"]["head_matches_github"] is True and out["local"]["base_sha"] == repos.bases[number]
    assert [(f["file_path"], f["conflict_type"]) for f in out["conflicts"]] == [(p, t) for p, t, _ in files]
    for got, (_, _, extra) in zip(out["conflicts"], files, strict=True):
        for key, value in extra.items():
            assert got[key] == value, key
        assert got["suggested_resolution"] and got["base_content_preview"] and got["head_content_preview"]
    if files:
        assert out["verdict"] == "conflicts" and out["has_conflicts"] is True
        steps = out["instructions"]["resolution_steps"]
        assert steps[0].startswith(f"gh pr checkout {number} ") and steps[-1].startswith("gh pr-agent conflicts")
    else:
        assert (out["verdict"], out["has_conflicts"], out["conflicts"]) == ("clean", False, [])
        assert "instructions" not in out


def test_binary_and_delete_previews(agent, repos: Repos) -> None:
    a = agent(conflicts_world(repos, {}))
    _, binary = run(a, "acme/widgets#24", cwd=repos.clone)
    f = binary["conflicts"][0]
    assert f["base_content_preview"].startswith("(binary, 12 bytes")
    assert f["head_content_preview"].startswith("(binary, 11 bytes")
    _, deleted = run(a, "acme/widgets#23", "--repo-path", str(repos.clone))
    f = deleted["conflicts"][0]
    assert f["base_content_preview"] == "(deleted on 'base-23')"
    assert "+please, with a change" in f["head_content_preview"] and "`rm -- doomed.txt`" in f["suggested_resolution"]


def test_target_branch_and_repo_path(agent, repos: Repos, tmp_path: Path) -> None:
    a = agent(conflicts_world(repos, {}))
    before = checkout_state(repos.clone)
    # PR 21 conflicts with its own base; against base-25 (which only touched README.md) it merges cleanly
    code, out = run(a, "acme/widgets#21", "--target", "base-25", "--repo-path", str(repos.clone), cwd=tmp_path)
    assert (code, out["verdict"], out["target_branch"]) == (0, "clean", "base-25")
    assert out["local"]["base_sha"] == repos.bases[25] and out["github"]["mergeable"] == "CONFLICTING"
    code, out = run(a, "acme/widgets#21", "--repo-path", str(repos.clone), cwd=tmp_path)
    assert (code, [c["file_path"] for c in out["conflicts"]]) == (1, ["f.txt"])
    assert checkout_state(repos.clone) == before
    # --target outside a clone cannot be answered (GitHub knows only the base): an error, not "pending" (8)
    code, out = run(a, "acme/widgets#21", "--target", "base-25", cwd=tmp_path)
    assert (code, out["verdict"], out["source"]) == (3, "unknown", "github")
    assert any("--repo-path" in n for n in out["notes"]), out["notes"]


def test_nonexistent_refs_are_errors_not_conflicts(agent, repos: Repos) -> None:
    a = agent(conflicts_world(repos, {}))
    before = checkout_state(repos.clone)
    code, out = run(a, "acme/widgets#21", "--target", "no-such-branch", cwd=repos.clone)
    assert code == 3 and out["error"]["code"] == "ref_not_found"
    assert out["error"]["details"]["value"] == "no-such-branch"
    code, out = run(a, "acme/widgets#26", cwd=repos.clone)  # GitHub knows PR 26; the remote has no refs/pull/26
    assert code == 3 and out["error"]["code"] == "ref_not_found"
    assert checkout_state(repos.clone) == before
    assert "refs/gh-pr-agent" not in checkout_state(repos.clone)["refs"]


def test_outside_a_clone_reports_githubs_verdict(agent, repos: Repos, tmp_path: Path) -> None:
    a = agent(conflicts_world(repos, {25: "MERGEABLE"}))
    code, out = run(a, "acme/widgets#21", cwd=tmp_path)
    assert (code, out["verdict"], out["source"], out["conflicts"]) == (1, "conflicts", "github", [])
    assert "--repo-path" in out["notes"][0] and out["mergeable_state"] == "dirty"
    code, out = run(a, "acme/widgets#25", cwd=tmp_path)
    assert (code, out["verdict"], out["has_conflicts"]) == (0, "clean", False)
    code, out = run(a, "acme/widgets#26", cwd=tmp_path)  # GitHub never settles: unknown, never "no conflicts"
    assert (code, out["verdict"], out["github"]["polls"]) == (8, "unknown", 4)
    assert "has_conflicts" not in out


def test_explicit_repo_path_must_be_a_clone_of_the_repo(agent, repos: Repos, tmp_path: Path) -> None:
    a = agent(conflicts_world(repos, {}))
    code, out = run(a, "acme/widgets#21", "--repo-path", str(tmp_path))
    assert code == 3 and out["error"]["code"] == "not_a_git_repository"
    code, out = run(a, "acme/widgets#21", "--repo-path", str(repos.origin.parent / "seed"))
    assert code == 3 and out["error"]["code"] == "clone_mismatch"


def test_old_git_is_a_typed_error(agent, repos: Repos, tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    real = next(p for p in os.environ["PATH"].split(os.pathsep) if (Path(p) / "git").is_file())
    (fake / "git").write_text(f'#!/bin/sh\n[ "$1" = "--version" ] && {{ echo "git version 2.37.1"; exit 0; }}\n'
                              f'exec {real}/git "$@"\n')
    (fake / "git").chmod(0o755)
    a = agent(conflicts_world(repos, {}))
    env = a.env(**FAST_POLL)
    env["PATH"] = f"{fake}{os.pathsep}{env['PATH']}"
    proc = a.cli("conflicts", "acme/widgets#21", "--json", cwd=repos.clone, env=env)
    err = orjson.loads(proc.stdout)["error"]
    assert proc.returncode == 3 and err["code"] == "git_too_old"
    assert err["details"] == {"git_version": "2.37.1", "minimum": "2.38.0",
                              "feature": "listing conflicting files (git merge-tree --write-tree)"}
    assert "Upgrade git" in err["suggestion"] and err["repair"] == {"command": "git --version"}
