"""Which gh the tool runs, with each real gh binary: gh on PATH; no gh on PATH but GH_PR_AGENT_GH naming one
(a bundled or unpacked gh); and no gh on PATH nor GH_PR_AGENT_GH, run as an extension by a gh that is not on
PATH (found through GH_PATH, which gh >= 2.60 sets, or as the parent process for older gh). The discovery
order is the one README's Environment table documents."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson

from tests.e2e.conftest import ROOT
from tests.e2e.worlds import feedback_world


def bare_path(bin_dir: Path) -> str:
    """A PATH with git and what the launcher's shell code needs, and no gh (Debian's gh is in /usr/bin)."""
    bin_dir.mkdir()
    for tool in ("git", "bash", "dirname", "readlink", "cat"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def unresolved(proc: subprocess.CompletedProcess[str]) -> int:
    assert proc.returncode == 0, proc.stderr
    return int(orjson.loads(proc.stdout)["total_unresolved"])


def test_gh_on_path_or_only_the_named_or_parent_gh(make_hub, gh_path: str, tmp_path: Path) -> None:
    hub = make_hub(feedback_world())
    base = {k: v for k, v in hub.child_env(GH_PR_AGENT_CONFIG_DIR=str(tmp_path / "cfg"),
                                           PYTHONPATH=str(ROOT)).items()
            if k not in ("GH_PR_AGENT_GH", "GH_PATH")}
    no_gh = bare_path(tmp_path / "bin")
    assert shutil.which("gh", path=no_gh) is None
    tool = [sys.executable, "-m", "pr_agent", "comments", "acme/widgets#7", "--json"]

    def run(cmd: list[str], cwd: Path = tmp_path, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(cmd, env={**base, **env}, cwd=cwd, capture_output=True, text=True, timeout=120,
                              check=False)

    gh_dir = tmp_path / "gh-on-path"  # exactly this gh first on PATH, found by name
    gh_dir.mkdir()
    (gh_dir / "gh").symlink_to(gh_path)
    assert unresolved(run(tool, PATH=f"{gh_dir}{os.pathsep}{no_gh}")) == 9

    assert unresolved(run(tool, PATH=no_gh, GH_PR_AGENT_GH=gh_path)) == 9  # not on PATH, named

    missing = run(tool, PATH=no_gh)  # neither: a typed error that says where it looked
    assert missing.returncode == 3 and orjson.loads(missing.stdout)["error"]["code"] == "gh_not_found"

    # run by a gh that is not on PATH, as `gh pr-agent`: the extension finds the gh that started it
    checkout = tmp_path / "gh-pr-agent"
    checkout.mkdir()
    (checkout / "gh-pr-agent").symlink_to(ROOT / "gh-pr-agent")  # the launcher resolves its own links
    install = run([gh_path, "extension", "install", "."], cwd=checkout, XDG_DATA_HOME=str(tmp_path / "data"))
    assert install.returncode == 0, install.stderr
    as_extension = run([gh_path, "pr-agent", "comments", "acme/widgets#7", "--json"], PATH=no_gh,
                       XDG_DATA_HOME=str(tmp_path / "data"), GH_PR_AGENT_VENV=str(Path(sys.executable).parents[1]))
    assert unresolved(as_extension) == 9
