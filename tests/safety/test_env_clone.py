"""Environment faults of the tools that use a local clone: git too old for `merge-tree --write-tree` (a
stand-in `git` first on PATH that reports 2.30 and rejects the option, delegating everything else to the real
git), git missing, --repo-path that is not a clone, or a clone of another repository."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.conftest import Agent
from tests.e2e.gitrepos import Repos, build, checkout_state, conflicts_world
from tests.safety.worlds import FAST_ENV, pinned_gh


def real_git() -> str:
    found = shutil.which("git")
    assert found
    return found


def old_git_dir(tmp: Path) -> Path:
    """git 2.30 as far as we can tell: --version says so and --write-tree is an unknown option (exit 129)."""
    directory = tmp / "old-git"
    directory.mkdir(exist_ok=True)
    script = (f'#!/bin/sh\n[ "$1" = "--version" ] && {{ echo "git version 2.30.2"; exit 0; }}\n'
              f'for a in "$@"; do [ "$a" = "--write-tree" ] && {{ echo "error: unknown option '
              "\\`write-tree'\" >&2; exit 129; }; done\n"
              f'exec {real_git()} "$@"\n')
    (directory / "git").write_text(script, encoding="utf-8")
    (directory / "git").chmod(0o755)
    return directory


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> Repos:
    return build(tmp_path_factory.mktemp("conflicts-env"))


def _run(agent: Agent, args: list[str], cwd: Path, path_first: Path | None = None,
         path: str | None = None) -> tuple[int, dict[str, Any]]:
    env = agent.env(**FAST_ENV)
    if path is not None:
        env["PATH"] = path
    elif path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env['PATH']}"
    proc = agent.cli(*args, "--json", cwd=cwd, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, orjson.loads(proc.stdout)


def test_conflicts_with_old_git_is_a_typed_error(make_hub, repos: Repos, tmp_path: Path) -> None:
    a = Agent(make_hub(conflicts_world(repos, {})), pinned_gh(), tmp_path / "home")
    before = checkout_state(repos.clone)
    code, out = _run(a, ["conflicts", "acme/widgets#21"], repos.clone, path_first=old_git_dir(tmp_path))
    err = out["error"]
    assert (code, err["code"], err["details"]["git_version"]) == (3, "git_too_old", "2.30.2")
    assert err["repair"] == {"command": "git --version"} and "2.38" in err["suggestion"]
    assert checkout_state(repos.clone) == before


def test_conflicts_clone_faults(make_hub, repos: Repos, tmp_path: Path) -> None:
    a = Agent(make_hub(conflicts_world(repos, {})), pinned_gh(), tmp_path / "home")
    plain = tmp_path / "plain"
    plain.mkdir()
    code, out = _run(a, ["conflicts", "acme/widgets#21", "--repo-path", str(plain)], tmp_path)
    assert (code, out["error"]["code"]) == (3, "not_a_git_repository")
    code, out = _run(a, ["conflicts", "acme/widgets#21", "--repo-path", str(repos.origin.parent / "seed")], tmp_path)
    assert (code, out["error"]["code"]) == (3, "clone_mismatch")
    assert out["error"]["repair"]["command"].startswith("git -C ")
    code, out = _run(a, ["conflicts", "acme/widgets#21", "--repo-path", str(tmp_path / "nowhere")], tmp_path)
    assert (code, out["error"]["code"]) == (3, "not_a_git_repository")
    empty = tmp_path / "empty-path"
    empty.mkdir()
    code, out = _run(a, ["conflicts", "acme/widgets#21", "--repo-path", str(repos.clone)], tmp_path, path=str(empty))
    assert (code, out["error"]["code"]) == (3, "git_not_found") and "git-scm.com" in out["error"]["suggestion"]


@pytest.mark.parametrize("cli", ["stack", "rebase-after-squash"])
def test_stack_tools_with_old_git_say_conflicts_are_unknown(make_hub, tmp_path: Path, cli: str) -> None:
    """The stack tools do not need merge-tree to plan, only to predict conflicts: with old git they still
    answer, and say that the conflicts are unknown (never an empty list that reads as 'clean')."""
    from tests.e2e.test_stack import squashed

    repo = squashed(tmp_path / "git", 3, delete=True)
    a = Agent(make_hub(repo.scenario()), pinned_gh(), tmp_path / "home")
    args = ["stack", "11", "12"] if cli == "stack" else ["rebase-after-squash", "12"]
    code, fresh = _run(a, args, repo.clone)
    assert code == 0 and not any("could not be predicted" in w for w in fresh.get("warnings") or [])
    code, old = _run(a, args, repo.clone, path_first=old_git_dir(tmp_path))
    assert code == 0, old
    assert any("could not be predicted" in w for w in old["warnings"]), old.get("warnings")
    assert old["commands"] == fresh["commands"]  # the plan itself does not depend on merge-tree


def test_no_git_at_all(make_hub, tmp_path: Path) -> None:
    """Without git on PATH the tools that only use a clone when they run in one still answer from GitHub."""
    from tests.safety.worlds import CASES, agent_for

    only_gh = tmp_path / "only-gh"
    only_gh.mkdir()
    (only_gh / "gh").symlink_to(pinned_gh())
    for tool in ("manage_stacked_prs", "rebase_after_squash_merge", "detect_merge_conflicts"):
        case = CASES[tool]
        a = agent_for(make_hub, case.world, tmp_path / f"home-{tool}")
        code, out = _run(a, list(case.args), tmp_path, path=str(only_gh))
        assert code == case.ok_exit and "error" not in out, (tool, out)


# fault -> runs made here (figures for docs/safety.md)
CLONE_FAULTS: dict[str, int] = {
    "git too old: detect_merge_conflicts in a clone": 1,
    "git too old: manage_stacked_prs / rebase_after_squash_merge in a clone (with a fresh-git control run)": 4,
    "--repo-path is not a clone / a clone of another repository / does not exist": 3,
    "git missing, --repo-path given": 1,
    "git missing, outside a clone (stack, rebase-after-squash, conflicts)": 3,
}
