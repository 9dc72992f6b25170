"""End-to-end harness: our CLI and MCP server, the real gh binary, fakehub on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]


class Agent:
    """Runs `python -m pr_agent` as a user would, against one fakehub, with one gh binary."""

    def __init__(self, hub: Any, gh_path: str, home: Path) -> None:
        self.hub = hub
        self.gh_path = gh_path
        self.home = home
        home.mkdir(parents=True, exist_ok=True)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GH_", "GITHUB_"))}
        env.update(self.hub.env)
        env.update(GH_PR_AGENT_GH=self.gh_path, GH_PR_AGENT_CONFIG_DIR=str(self.home / "cfg"),
                   PYTHONPATH=str(ROOT), GH_PR_AGENT_MAX_RETRY_WAIT="3")
        env["PATH"] = os.pathsep.join([str(Path(self.gh_path).parent), env.get("PATH", "")])
        env.update(extra)
        return env

    def cli(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pr_agent", *args], capture_output=True, text=True,
                              cwd=cwd or self.home, env=env or self.env(), timeout=timeout, check=False)

    def json(self, *args: str, **kw: Any) -> Any:
        proc = self.cli(*args, "--json", **kw)
        assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr}"
        return orjson.loads(proc.stdout)

    def shell(self, command: str, stdin: str | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
        """Paste a command into bash, as a user would; ``stdin`` is what it reads (default: nothing, /dev/null)."""
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=self.home,
                              env=self.env(**extra), timeout=60, check=False, input=stdin,
                              stdin=subprocess.DEVNULL if stdin is None else None)


@pytest.fixture
def agent(make_hub: Callable[..., Any], gh_path: str, tmp_path: Path) -> Callable[..., Agent]:
    def make(scenario: Any, **kw: Any) -> Agent:
        return Agent(make_hub(scenario, **kw), gh_path, tmp_path / "home")

    return make


@pytest.fixture
def one_agent(make_hub: Callable[..., Any], tmp_path: Path) -> Callable[..., Agent]:
    """``agent`` with the newest gh only, for tests that measure our server rather than gh (MCP load, clients)."""
    from tests.conftest import gh_binaries

    found = gh_binaries()
    assert found, "no gh binary"

    def make(scenario: Any, **kw: Any) -> Agent:
        return Agent(make_hub(scenario, **kw), found[-1][0], tmp_path / "home")

    return make
