"""`gh extension install` of this checkout: the launcher bootstraps its private venv once, then runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import orjson

from tests.e2e.conftest import ROOT
from tests.e2e.worlds import feedback_world

IGNORE = shutil.ignore_patterns(".git", ".venv", ".venv-*", "__pycache__", "*.egg-info", ".pytest_cache",
                                ".ruff_cache", ".hypothesis", "bench")


def test_install_as_gh_extension_and_run(make_hub, tmp_path: Path) -> None:
    gh = shutil.which("gh") or str(Path(ROOT / ".venv" / "bin" / "gh"))
    hub = make_hub(feedback_world())
    checkout = tmp_path / "gh-pr-agent"
    shutil.copytree(ROOT, checkout, ignore=IGNORE)
    env = hub.child_env(XDG_DATA_HOME=str(tmp_path / "data"), GH_PR_AGENT_CONFIG_DIR=str(tmp_path / "cfg"))

    # the first run installs from PyPI, so it must not go through fakehub's proxy
    no_proxy = {k: v for k, v in env.items() if "proxy" not in k.lower()}

    def gh_run(*args: str, cwd: Path = tmp_path, direct: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run([gh, *args], cwd=cwd, env=no_proxy if direct else env, capture_output=True,
                              text=True, timeout=600, check=False)

    install = gh_run("extension", "install", ".", cwd=checkout)
    assert install.returncode == 0, install.stderr
    assert "pr-agent" in gh_run("extension", "list").stdout

    first = gh_run("pr-agent", "--help", direct=True)
    assert first.returncode == 0, first.stderr
    assert "setting up a private Python environment" in first.stderr
    assert "comments" in first.stdout and "resolve" in first.stdout
    assert (checkout / ".venv-ext" / ".deps-stamp").exists()

    second = gh_run("pr-agent", "comments", "acme/widgets#7", "--json")
    assert second.returncode == 0, second.stderr
    assert "setting up" not in second.stderr
    assert orjson.loads(second.stdout)["total_unresolved"] == 9

    mcp_help = gh_run("pr-agent", "mcp", "--help")
    assert mcp_help.returncode == 0 and "MCP" in mcp_help.stdout

    # Later runs take the fast path: they start the venv's Python without looking for one on PATH.
    stamp = checkout / ".venv-ext" / ".launch-stamp"
    assert stamp.read_text().strip()
    bare = _bare_path(tmp_path / "bin")  # bash and coreutils, no Python
    fast = subprocess.run([str(checkout / "gh-pr-agent"), "--version"], env={**env, "PATH": bare},
                          capture_output=True, text=True, timeout=60, check=False)
    assert fast.returncode == 0 and "version" in fast.stdout, fast.stderr

    # A changed pyproject.toml or interpreter no longer matches the stamp: the full check runs again (here
    # it cannot find a Python on the bare PATH and says so), and a normal run renews the stamp.
    stamp.write_text("stale\n")
    slow = subprocess.run([str(checkout / "gh-pr-agent"), "--version"], env={**env, "PATH": bare},
                          capture_output=True, text=True, timeout=60, check=False)
    assert slow.returncode == 1 and "needs Python 3.10 or newer" in slow.stderr
    again = gh_run("pr-agent", "--version")
    assert again.returncode == 0 and "setting up" not in again.stderr
    assert stamp.read_text().strip() != "stale"


def _bare_path(bin_dir: Path) -> str:
    """A PATH with only what the launcher's shell code needs, and no Python interpreter."""
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "readlink", "cksum", "stat", "cat", "mkdir", "rm", "mv"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def test_an_invalid_python_override_is_refused_by_name(tmp_path: Path) -> None:
    """GH_PR_AGENT_PYTHON names the interpreter: one that is missing or older than 3.10 is an error naming the
    variable (exit 2, like every invalid environment value), never silently replaced by another Python."""
    old = tmp_path / "python3.8"
    old.write_text("#!/bin/sh\necho old\n")  # answers the version probe as a Python 3.8 would: not "py310"
    old.chmod(0o755)
    not_python = shutil.which("true")
    assert not_python
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    for value, reason in [("/nonexistent/python3", "is not an executable"), ("no-such-python", "is not an executable"),
                          (str(old), "is not Python 3.10 or newer"), (not_python, "is not Python 3.10 or newer")]:
        proc = subprocess.run([str(ROOT / "gh-pr-agent"), "--version"], env={**env, "GH_PR_AGENT_PYTHON": value},
                              capture_output=True, text=True, timeout=60, check=False)
        assert proc.returncode == 2 and proc.stdout == "", (value, proc.stderr)
        assert f"GH_PR_AGENT_PYTHON={value} {reason}" in proc.stderr and "hint:" in proc.stderr, proc.stderr
    assert not (ROOT / ".venv-ext.lock").exists()
